/*
 * A target's wheels unpacked into its site directory (index.h), read
 * through the one wheel reader (wheel/wheelread.c: libarchive stays
 * there). Member names are untrusted: only plain relative paths of
 * files and directories are written, and nothing is ever followed, as
 * nothing but directories and files is ever made.
 */
#include "index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wheel/wheel.h"
#include "base/base.h"
#include "metadata/metadata.h"

/* Every file's time: 1980-01-01, the earliest a zip can hold. */
#define SITE_TIME 315532800

/*
 * The member's path in the site: its name's components with "." and
 * empty ones dropped, NAME.data/purelib/ and /platlib/ taken off. 0;
 * 1 for nothing to write (the .data directories themselves); -1 with
 * why filled for an absolute name or one with "..".
 */
static int site_path(const char *name, struct tf_buf *out, struct tf_buf *why)
{
	struct tf_strvec parts = TF_STRVEC_INIT;
	const char *s = name, *slash;
	size_t i, first = 0, n;
	int ret = 0;

	if (*name == '/') {
		tf_buf_addstr(why, "an absolute path");
		return -1;
	}
	for (; *s; s = *slash ? slash + 1 : slash) {
		slash = s + strcspn(s, "/");
		n = (size_t)(slash - s);
		if (!n || (n == 1 && *s == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			tf_buf_addstr(why, "a path with '..'");
			ret = -1;
			goto out;
		}
		tf_strvec_push_take(&parts, tf_strndup(s, n));
	}
	n = parts.nr ? strlen(parts.v[0]) : 0;
	if (n > 5 && !strcmp(parts.v[0] + n - 5, ".data") && parts.nr > 1 &&
	    (!strcmp(parts.v[1], "purelib") || !strcmp(parts.v[1], "platlib")))
		first = 2;
	if (first >= parts.nr) {
		ret = 1;
		goto out;
	}
	for (i = first; i < parts.nr; i++)
		tf_buf_addf(out, "%s%s", i > first ? "/" : "", parts.v[i]);
out:
	tf_strvec_release(&parts);
	return ret;
}

/* What a wheel may still unpack to (limit.h), and what it has. */
struct budget {
	struct tf_limit_extract lim;
	uint64_t bytes;   /* written so far */
	uint64_t entries; /* members seen */
};

static int over_budget(const char *whl, const char *name,
		       const struct budget *b)
{
	struct tf_buf why = TF_BUF_INIT;

	tf_limit_extract_why(&b->lim, &why);
	error("wheel '%s': member '%s': unpacking it would exceed the limit "
	      "of %llu bytes (%s); refused",
	      whl, name, (unsigned long long)b->lim.max_bytes, why.buf);
	tf_buf_release(&why);
	return -1;
}

/*
 * Charge n more bytes of member name; -1 after reporting past the
 * budget. Declared sizes are charged before a byte is written, the
 * bytes that really come as they come (a header may lie).
 */
static int charge(struct budget *b, const char *whl, const char *name,
		  uint64_t n)
{
	if (n > b->lim.max_bytes - b->bytes)
		return over_budget(whl, name, b);
	b->bytes += n;
	return 0;
}

/* Write the current member's data to a new file at path. */
static int write_member(struct tf_wheel_reader *r, const char *whl,
			const char *name, const char *path, unsigned mode,
			struct budget *b)
{
	static char block[1 << 16];
	struct tf_buf dir = TF_BUF_INIT;
	struct timespec times[2] = { { SITE_TIME, 0 }, { SITE_TIME, 0 } };
	ssize_t n;
	int fd, ret = -1;

	tf_path_dirname(&dir, path);
	if (tf_mkdir_p(dir.buf))
		goto out;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  mode & 0111 ? 0755 : 0644);
	if (fd < 0) {
		error_errno("wheel '%s': member '%s': cannot create '%s'", whl,
			    name, path);
		goto out;
	}
	while ((n = tf_wheel_read(r, block, sizeof(block))) > 0) {
		if (charge(b, whl, name, (uint64_t)n) < 0)
			break;
		if (tf_write_all(fd, block, (size_t)n) < 0) {
			error_errno("cannot write '%s'", path);
			break;
		}
	}
	if (n < 0)
		error("wheel '%s': member '%s': %s", whl, name,
		      tf_wheel_error(r));
	else if (!n && futimens(fd, times) == 0)
		ret = 0;
	else if (!n)
		error_errno("cannot set the time of '%s'", path);
	close(fd);
out:
	tf_buf_release(&dir);
	return ret;
}

/* One member of wheel w into root, within the budget b. */
static int unpack_member(struct tf_wheel_reader *r,
			 const struct tf_index_wheel *w,
			 const struct tf_wheel_member *m, const char *root,
			 struct budget *b)
{
	struct tf_buf why = TF_BUF_INIT, rel = TF_BUF_INIT, path = TF_BUF_INIT;
	int ret = 0, kind;

	if (!m->name)
		return error("wheel '%s': a member without a name", w->file);
	if (m->type == TF_WHEEL_OTHER)
		return error("wheel '%s': member '%s' is a link or a special "
			     "file; refused",
			     w->file, m->name);
	if (++b->entries > b->lim.max_entries)
		return error("wheel '%s': more than %llu members (%s); refused",
			     w->file, (unsigned long long)b->lim.max_entries,
			     TF_LIMIT_EXTRACT_ENTRIES.env);
	if (m->type == TF_WHEEL_FILE && m->size_known &&
	    (m->size < 0 || (uint64_t)m->size > b->lim.max_bytes - b->bytes))
		return over_budget(w->file, m->name, b);
	kind = site_path(m->name, &rel, &why);
	if (kind < 0)
		ret = error("wheel '%s': member '%s' is %s; refused", w->file,
			    m->name, why.buf);
	if (kind)
		goto out;
	tf_buf_setf(&path, "%s/%s", root, rel.buf);
	if (m->type == TF_WHEEL_DIR)
		ret = tf_mkdir_p(path.buf);
	else
		ret = write_member(r, w->file, m->name, path.buf, m->mode, b);
out:
	tf_buf_release(&why);
	tf_buf_release(&rel);
	tf_buf_release(&path);
	return ret;
}

/*
 * A wheel unpacks within the limits of a source archive (limit.h:
 * bytes, ratio to its size, members): a bomb is refused at the member
 * that would pass them, before the disk fills.
 */
static int unpack(const struct tf_index_wheel *w, const char *root)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r = NULL;
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	struct budget b = { .bytes = 0 };
	struct stat st;
	int ret = 0;

	if (stat(w->path, &st) < 0)
		return error_errno("wheel '%s': cannot stat '%s'", w->file,
				   w->path);
	if (tf_limit_extract_get((uint64_t)st.st_size, &b.lim) < 0)
		return -1;
	r = tf_wheel_open(w->path, TF_WHEEL_SEEKABLE | TF_WHEEL_UTF8, 1 << 16,
			  &why);
	if (!r) {
		ret = error("wheel '%s': cannot read the zip archive: %s",
			    w->file, why.buf);
		goto out;
	}
	while (!ret && ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER ||
			step == TF_WHEEL_WARNED))
		ret = unpack_member(r, w, m, root, &b);
	if (!ret && step == TF_WHEEL_ERROR)
		ret = error("wheel '%s': cannot read the zip archive: %s",
			    w->file, tf_wheel_error(r));
out:
	tf_wheel_close(r);
	tf_buf_release(&why);
	return ret;
}

struct site_wheels {
	const char *site;
	const struct tf_index_wheel *wheels;
	size_t n;
};

/* Unpack the wheels into tmp, the site's temporary directory. */
static int fill_site(const char *tmp, void *arg)
{
	const struct site_wheels *sw = arg;
	struct tf_buf marker = TF_BUF_INIT, list = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	info("unpacking %zu wheel%s into %s", sw->n, sw->n == 1 ? "" : "s",
	     sw->site);
	for (i = 0; !ret && i < sw->n; i++) {
		ret = unpack(&sw->wheels[i], tmp);
		tf_buf_addf(&list, "%s %s\n", sw->wheels[i].sha256,
			    sw->wheels[i].file);
	}
	tf_buf_setf(&marker, "%s/.tfbuild-wheels", tmp);
	if (!ret)
		ret = tf_write_file_atomic(marker.buf, list.buf, list.len,
					   0644);
	tf_buf_release(&marker);
	tf_buf_release(&list);
	return ret;
}

int tf_index_site_make(const char *site, const struct tf_index_wheel *wheels,
		       size_t n)
{
	struct site_wheels sw = { site, wheels, n };

	return tf_lock_use_made(site, ".tfbuild-wheels", "site", "the site",
				fill_site, &sw);
}

/* The name of site's .dist-info directory of distribution name at version
   (both normalized), into out; -1 when there is none. */
static int find_dist_info(const char *site, const char *name,
			  const char *version, struct tf_buf *out)
{
	struct tf_buf want = TF_BUF_INIT, wantv = TF_BUF_INIT,
		      have = TF_BUF_INIT, havev = TF_BUF_INIT;
	DIR *d = opendir(site);
	struct dirent *e;
	int ret = -1;

	tf_pyname_normalize(name, &want);
	if (tf_pep440_normalize(version, &wantv))
		tf_buf_addstr(&wantv, version);
	while (d && ret && (e = readdir(d))) {
		const char *dash = strchr(e->d_name, '-');
		size_t n = strlen(e->d_name);
		char *part;

		if (!dash || n < 10 || strcmp(e->d_name + n - 10, ".dist-info"))
			continue;
		part = tf_strndup(e->d_name, (size_t)(dash - e->d_name));
		tf_buf_reset(&have);
		tf_pyname_normalize(part, &have);
		free(part);
		part = tf_strndup(dash + 1,
				  (size_t)(e->d_name + n - 10 - dash - 1));
		tf_buf_reset(&havev);
		if (tf_pep440_normalize(part, &havev))
			tf_buf_addstr(&havev, part);
		free(part);
		if (!strcmp(want.buf, have.buf) &&
		    !strcmp(wantv.buf, havev.buf)) {
			tf_buf_addstr(out, e->d_name);
			ret = 0;
		}
	}
	if (d)
		closedir(d);
	tf_buf_release(&want);
	tf_buf_release(&wantv);
	tf_buf_release(&have);
	tf_buf_release(&havev);
	return ret;
}

/* RECORD's first two fields of line (a quoted path as csv writes one). */
static void record_fields(const char *line, struct tf_buf *path,
			  struct tf_buf *hash)
{
	const char *s = line;

	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			tf_buf_addch(path, *s);
			s += *s == '"';
		}
		s += *s == '"';
	} else {
		while (*s && *s != ',')
			tf_buf_addch(path, *s++);
	}
	if (*s == ',')
		s++;
	while (*s && *s != ',')
		tf_buf_addch(hash, *s++);
}

/* The site paths in RECORD whose file name is soname, into found. */
static void record_matches(char *text, const char *soname,
			   struct tf_strvec *found, struct tf_strvec *hashes)
{
	struct tf_buf path = TF_BUF_INIT, hash = TF_BUF_INIT,
		      site = TF_BUF_INIT, why = TF_BUF_INIT;
	char *line, *next;

	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\r\n");
		if (*next)
			*next++ = '\0';
		tf_buf_reset(&path);
		tf_buf_reset(&hash);
		tf_buf_reset(&site);
		record_fields(line, &path, &hash);
		if (strcmp(tf_path_basename(path.buf), soname) ||
		    site_path(path.buf, &site, &why))
			continue;
		tf_strvec_push(found, site.buf);
		tf_strvec_push(hashes, hash.buf);
	}
	tf_buf_release(&path);
	tf_buf_release(&hash);
	tf_buf_release(&site);
	tf_buf_release(&why);
}

int tf_index_site_find_lib(const char *site, const char *name,
			   const char *version, const char *soname,
			   const char *context, struct tf_buf *path,
			   struct tf_buf *hash)
{
	struct tf_buf dist = TF_BUF_INIT, record = TF_BUF_INIT,
		      text = TF_BUF_INIT;
	struct tf_strvec found = TF_STRVEC_INIT, hashes = TF_STRVEC_INIT;
	int ret = -1;

	if (!site || find_dist_info(site, name, version, &dist)) {
		error("%s: external library '%s': no %s %s among the target's "
		      "wheels%s%s",
		      context, soname, name, version, site ? " in " : "",
		      site ? site : "");
		goto out;
	}
	tf_buf_addf(&dist, "/RECORD");
	tf_path_join(&record, site, dist.buf);
	if (tf_read_file(record.buf, &text) < 0)
		goto out;
	record_matches(text.buf, soname, &found, &hashes);
	if (found.nr != 1) {
		error("%s: external library '%s': %s %s's RECORD (%s) lists %s",
		      context, soname, name, version, dist.buf,
		      found.nr ? "it more than once" : "no file of that name");
		goto out;
	}
	tf_buf_addstr(path, found.v[0]);
	tf_buf_addstr(hash, hashes.v[0]);
	ret = 0;
out:
	tf_buf_release(&dist);
	tf_buf_release(&record);
	tf_buf_release(&text);
	tf_strvec_release(&found);
	tf_strvec_release(&hashes);
	return ret;
}
