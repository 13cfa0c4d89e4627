/* A template's files, filled in with a project's names, into a new directory. */
#include "scaffold.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "metadata/metadata.h"

static const char *const placeholder_ids[] = {
#define TF_PLACEHOLDER(id, what) #id,
#include "placeholders.inc"
#undef TF_PLACEHOLDER
	NULL,
};

const struct tf_template *tf_template_find(const char *name)
{
	const struct tf_template *t;

	for (t = tf_templates; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

const char *const *tf_template_names(void)
{
	static const char *names[64];
	size_t i;

	if (!names[0])
		for (i = 0; tf_templates[i].name; i++) {
			if (i + 1 >= sizeof(names) / sizeof(*names))
				BUG("more templates than tf_template_names holds");
			names[i] = tf_templates[i].name;
		}
	return names;
}

/* Python's keywords: a module named one cannot be imported. */
static int is_keyword(const char *s)
{
	static const char *const kw[] = {
		"and",    "as",       "assert", "async",  "await",    "break",
		"class",  "continue", "def",    "del",    "elif",     "else",
		"except", "finally",  "for",    "from",   "global",   "if",
		"import", "in",       "is",     "lambda", "nonlocal", "not",
		"or",     "pass",     "raise",  "return", "try",      "while",
		"with",   "yield",    NULL,
	};
	size_t i;

	for (i = 0; kw[i]; i++)
		if (!strcmp(kw[i], s))
			return 1;
	return 0;
}

/*
 * MODULE as TensorFlow accepts a device type, [A-Z][A-Z_]* (it aborts on
 * any other): each digit spelled out, set apart by '_', so M1 is M_ONE.
 */
static void device_type(const char *module, struct tf_buf *out)
{
	static const char *const digits[] = { "ZERO",  "ONE",  "TWO", "THREE",
					      "FOUR",  "FIVE", "SIX", "SEVEN",
					      "EIGHT", "NINE" };
	const char *p;

	for (p = module; *p; p++) {
		if (*p < '0' || *p > '9') {
			if (p > module && p[-1] >= '0' && p[-1] <= '9' &&
			    *p != '_')
				tf_buf_addch(out, '_');
			tf_buf_addch(out, *p);
			continue;
		}
		if (out->len && out->buf[out->len - 1] != '_')
			tf_buf_addch(out, '_');
		tf_buf_addstr(out, digits[*p - '0']);
	}
}

int tf_scaffold_names_check(const char *name, struct tf_scaffold_names *names,
			    struct tf_buf *why)
{
	struct tf_buf *n = &names->v[TF_PH_name], *m = &names->v[TF_PH_module];
	size_t i;

	for (i = 0; i < TF_NR_PLACEHOLDERS; i++)
		names->v[i] = (struct tf_buf)TF_BUF_INIT;
	if (!tf_pyname_is_valid(name)) {
		tf_buf_addf(
			why,
			"'%s' is not a distribution name: letters, digits, '.', '_' and '-', starting and ending with a letter or digit",
			name);
		return -1;
	}
	tf_pyname_normalize(name, n);
	for (i = 0; i < n->len; i++) {
		char c = n->buf[i];

		tf_buf_addch(m, c == '-' ? '_' : c);
		tf_buf_addch(&names->v[TF_PH_MODULE],
			     c == '-'               ? '_'
			     : c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A')
						    : c);
	}
	device_type(names->v[TF_PH_MODULE].buf, &names->v[TF_PH_DEVICE]);
	if (m->buf[0] >= '0' && m->buf[0] <= '9') {
		tf_buf_addf(
			why,
			"'%s' gives the module name '%s', which starts with a digit and is no Python identifier",
			name, m->buf);
		return -1;
	}
	if (is_keyword(m->buf)) {
		tf_buf_addf(
			why,
			"'%s' gives the module name '%s', a Python keyword, which cannot be imported",
			name, m->buf);
		return -1;
	}
	return 0;
}

void tf_scaffold_names_release(struct tf_scaffold_names *names)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < TF_NR_PLACEHOLDERS; i++)
		tf_buf_release(&names->v[i]);
}

/* s with every {{ID}} replaced, into out (the generator checked them). */
static void fill(const char *s, size_t len,
		 const struct tf_scaffold_names *names, struct tf_buf *out)
{
	const char *end = s + len, *p;
	size_t i, n;

	while ((p = memmem(s, (size_t)(end - s), "{{", 2))) {
		tf_buf_add(out, s, (size_t)(p - s));
		for (i = 0; placeholder_ids[i]; i++) {
			n = strlen(placeholder_ids[i]);
			if ((size_t)(end - p) >= n + 4 &&
			    !memcmp(p + 2, placeholder_ids[i], n) &&
			    !memcmp(p + 2 + n, "}}", 2))
				break;
		}
		if (!placeholder_ids[i])
			BUG("a template has a '{{' the generator let through");
		tf_buf_addstr(out, names->v[i].buf);
		s = p + 2 + n + 2;
	}
	tf_buf_add(out, s, (size_t)(end - s));
}

static int write_one(const char *tmp, const struct tf_template_file *f,
		     const struct tf_scaffold_names *names, mode_t umask_now)
{
	struct tf_buf rel = TF_BUF_INIT, path = TF_BUF_INIT, dir = TF_BUF_INIT;
	struct tf_buf text = TF_BUF_INIT;
	int fd = -1, ret = -1;

	fill(f->path, strlen(f->path), names, &rel);
	if (!tf_path_is_safe_relative(rel.buf))
		BUG("template path '%s' leaves the project", rel.buf);
	tf_path_join(&path, tmp, rel.buf);
	tf_path_dirname(&dir, path.buf);
	fill((const char *)f->data, f->len, names, &text);
	if (tf_mkdir_p(dir.buf))
		goto out;
	fd = open(path.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  (mode_t)f->mode & ~umask_now);
	if (fd < 0 || tf_write_all(fd, text.buf, text.len) || close(fd)) {
		error_errno("cannot write '%s'", path.buf);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	ret = 0;
out:
	tf_buf_release(&rel);
	tf_buf_release(&path);
	tf_buf_release(&dir);
	tf_buf_release(&text);
	return ret;
}

/* 0 if dir may become the project: absent, or an empty directory. */
static int dir_free(const char *dir)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct stat st;
	int empty;

	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return error_errno("cannot read '%s'", dir);
	}
	if (!S_ISDIR(st.st_mode))
		return error(
			"'%s' exists and is not a directory: give a new or empty directory",
			dir);
	if (tf_list_dir(dir, &names))
		return -1;
	empty = !names.nr;
	tf_strvec_release(&names);
	if (!empty)
		return error(
			"'%s' exists and is not empty: give a new or empty directory",
			dir);
	return 0;
}

int tf_scaffold_write(const struct tf_template *t, const char *dir,
		      const struct tf_scaffold_names *names)
{
	struct tf_buf parent = TF_BUF_INIT, tmp = TF_BUF_INIT;
	mode_t mask = umask(0);
	size_t i;
	int ret = -1;

	umask(mask);
	if (dir_free(dir))
		goto out;
	tf_path_dirname(&parent, dir);
	if (tf_mkdir_p(parent.buf) ||
	    tf_mkdtemp_temp(parent.buf, "tfbuild-new", &tmp))
		goto out;
	/* mkdtemp made it 0700; the project is an ordinary directory. */
	if (chmod(tmp.buf, 0777 & ~mask) < 0) {
		error_errno("cannot chmod '%s'", tmp.buf);
		goto fail;
	}
	for (i = 0; i < t->nr_files; i++)
		if (write_one(tmp.buf, &t->files[i], names, mask))
			goto fail;
	/* An empty directory is replaced by rename(2) itself. */
	if (rename(tmp.buf, dir) < 0) {
		error_errno("cannot rename '%s' to '%s'", tmp.buf, dir);
		goto fail;
	}
	tf_signals_temp_forget(tmp.buf);
	ret = 0;
	goto out;
fail:
	tf_rm_rf(tmp.buf);
	tf_signals_temp_forget(tmp.buf);
out:
	tf_buf_release(&parent);
	tf_buf_release(&tmp);
	return ret;
}
