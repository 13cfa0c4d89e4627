#include "stamp.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digestcache.h"
#include "base/base.h"

void tf_stamp_add_hex(struct tf_stamp *s, const char *name, const char *hex)
{
	tf_strvec_push(&s->names, name);
	tf_strvec_push(&s->digests, hex);
}

void tf_stamp_add(struct tf_stamp *s, const char *name, const void *data,
		  size_t len)
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];

	tf_sha256_update(h, data, len);
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
	tf_stamp_add_hex(s, name, hex);
}

void tf_stamp_key(const struct tf_stamp *s, char hex[TF_SHA256_HEX_LEN + 1])
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	size_t i;

	for (i = 0; i < s->names.nr; i++) {
		/* NUL separators: no two different lists hash alike. */
		tf_sha256_update(h, s->names.v[i], strlen(s->names.v[i]) + 1);
		tf_sha256_update(h, s->digests.v[i],
				 strlen(s->digests.v[i]) + 1);
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
}

int tf_stamp_read(const char *path, struct tf_stamp *s)
{
	struct tf_buf text = TF_BUF_INIT;
	char *line, *save = NULL;
	int ret = 0;

	text.cap = 1 << 20;
	if (!tf_path_exists(path))
		return 1;
	if (tf_read_file(path, &text)) {
		tf_buf_release(&text);
		return 1;
	}
	for (line = strtok_r(text.buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		if (!sp || !tf_sha256_is_hex(sp + 1))
			ret = 1;
		else if (!strncmp(line, "output ", 7))
			memcpy(s->output, sp + 1, TF_SHA256_HEX_LEN + 1);
		else if (!strncmp(line, "input ", 6)) {
			*sp = '\0';
			tf_stamp_add_hex(s, line + 6, sp + 1);
		} else
			ret = 1;
	}
	tf_buf_release(&text);
	return ret;
}

int tf_stamp_write(const char *path, const struct tf_stamp *s)
{
	struct tf_buf text = TF_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < s->names.nr; i++)
		tf_buf_addf(&text, "input %s %s\n", s->names.v[i],
			    s->digests.v[i]);
	if (*s->output)
		tf_buf_addf(&text, "output %s\n", s->output);
	ret = tf_write_file_atomic(path, text.buf, text.len, 0644);
	tf_buf_release(&text);
	return ret;
}

int tf_stamp_same(const struct tf_stamp *a, const struct tf_stamp *b)
{
	size_t i;

	if (a->names.nr != b->names.nr)
		return 0;
	for (i = 0; i < a->names.nr; i++)
		if (strcmp(a->names.v[i], b->names.v[i]) ||
		    strcmp(a->digests.v[i], b->digests.v[i]))
			return 0;
	return 1;
}

static const char *lookup(const struct tf_stamp *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->names.nr; i++)
		if (!strcmp(s->names.v[i], name))
			return s->digests.v[i];
	return NULL;
}

/* "source:backend" reads as "source 'backend'". */
static void add_input_name(struct tf_buf *out, const char *name)
{
	const char *colon = strchr(name, ':');

	if (colon)
		tf_buf_addf(out, "%.*s '%s'", (int)(colon - name), name,
			    colon + 1);
	else
		tf_buf_addstr(out, name);
}

void tf_stamp_explain(const struct tf_stamp *old, const struct tf_stamp *now,
		      struct tf_buf *out)
{
	size_t i, n = 0;

	if (!old->names.nr) {
		tf_buf_addstr(out, "never built");
		return;
	}
	for (i = 0; i < now->names.nr; i++) {
		const char *was = lookup(old, now->names.v[i]);

		if (was && !strcmp(was, now->digests.v[i]))
			continue;
		tf_buf_addstr(out, n++ ? ", " : "");
		add_input_name(out, now->names.v[i]);
		tf_buf_addstr(out, was ? " changed" : " is new");
	}
	for (i = 0; i < old->names.nr; i++)
		if (!lookup(now, old->names.v[i])) {
			tf_buf_addstr(out, n++ ? ", " : "");
			add_input_name(out, old->names.v[i]);
			tf_buf_addstr(out, " is gone");
		}
	if (!n)
		tf_buf_addstr(out, "up to date");
}

void tf_stamp_release(struct tf_stamp *s)
{
	if (!s)
		return;
	tf_strvec_release(&s->names);
	tf_strvec_release(&s->digests);
	s->output[0] = '\0';
}

struct tree_walk {
	struct tf_sha256 *h;
	int packed; /* files the wheel writer read must be as it read them */
};

/* Digest one entry (and, for a directory, everything below it). */
static int digest_entry(const char *path, const char *rel, void *arg)
{
	struct tree_walk *w = arg;
	unsigned char md[TF_SHA256_LEN];
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) < 0)
		return error_errno("cannot stat '%s'", path);
	tf_sha256_update(w->h, rel, strlen(rel) + 1);
	if (S_ISDIR(st.st_mode)) {
		tf_sha256_update(w->h, "d", 1);
		return tf_dir_each(path, rel, digest_entry, w);
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target));
		if (n < 0)
			return error_errno("cannot read link '%s'", path);
		tf_sha256_update(w->h, "l", 1);
		tf_sha256_update(w->h, target, (size_t)n);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return error("'%s' is not a file, directory or link", path);
	tf_sha256_update(w->h, (st.st_mode & 0111) ? "x" : "f", 1);
	if (!tf_digest_cache_lookup(path, &st, md)) {
		/* Not as the writer saw it: the wheel may hold other bytes. */
		if (w->packed && tf_digest_cache_stored(path))
			return error("'%s' changed while it was being packed",
				     path);
		if (tf_sha256_file(path, md, NULL))
			return -1;
		tf_digest_cache_store(path, &st, md);
	}
	tf_sha256_update(w->h, md, sizeof(md));
	return 0;
}

static int tree_digest(const char *dir, int packed,
		       char hex[TF_SHA256_HEX_LEN + 1])
{
	struct tree_walk w = { tf_sha256_new(), packed };
	unsigned char md[TF_SHA256_LEN];

	tf_digest_cache_settle();
	if (tf_dir_each(dir, "", digest_entry, &w)) {
		tf_sha256_free(w.h);
		return -1;
	}
	tf_sha256_final(w.h, md);
	tf_sha256_hex(md, hex);
	return 0;
}

int tf_tree_digest(const char *dir, char hex[TF_SHA256_HEX_LEN + 1])
{
	return tree_digest(dir, 0, hex);
}

int tf_tree_digest_packed(const char *dir, char hex[TF_SHA256_HEX_LEN + 1])
{
	return tree_digest(dir, 1, hex);
}
