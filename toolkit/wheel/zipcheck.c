#include "zipcheck.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "wheelread.h"

#define CHUNK 65536

/*
 * One reader of the entries, stepped in lockstep with the others: no
 * listing of every name is kept (at 63,000 entries the three listings
 * this compared took 17 MB, the peak RSS of a recipe run).
 */
struct lister {
	struct tf_wheel_reader *r; /* owned; NULL if it cannot be opened */
	int seekable;              /* the central directory's reader, or the
			       local headers' */
	int state;         /* 0: at an entry, 1: at the end, -1: failed */
	const char *name;  /* borrowed from r: the entry's, "" if none */
	char size[32];     /* its size in decimal, "?" when not known */
	long long n;       /* the size */
	size_t nr;         /* entries read */
	struct tf_buf why; /* why it failed */
};

static int end_record(const char *path, struct tf_buf *why)
{
	static const unsigned char sig[4] = { 'P', 'K', 5, 6 };
	unsigned char e[22];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 22) {
		if (fd >= 0)
			close(fd);
		tf_buf_setf(why, "not a zip archive (no end record)");
		return -1;
	}
	ok = pread(fd, e, sizeof(e), st.st_size - 22) == (ssize_t)sizeof(e);
	close(fd);
	if (!ok || memcmp(e, sig, 4)) {
		tf_buf_setf(
			why,
			"data after the zip archive's end, or a zip comment");
		return -1;
	}
	if (e[20] || e[21]) {
		tf_buf_setf(why, "the zip archive has a comment");
		return -1;
	}
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * The names in the central directory, as Python's zipfile (pip) reads
 * them: libarchive's seekable reader takes each name from the local
 * header instead, so a name the two disagree on would go unseen.
 */
struct cd_walk {
	int fd; /* owned */
	uint64_t off, count, i;
	int state;          /* 0: more to read, 1: at the end, -1: bad */
	struct tf_buf name; /* the last name read, up to a NUL in it */
	size_t name_len;    /* its length in the header */
	unsigned method;    /* its compression method */
	unsigned char *buf; /* owned: CD_CHUNK bytes of the file, from at */
	uint64_t at;
	size_t len;
};

/* Read in chunks: two preads per entry were 126,000 system calls. */
#define CD_CHUNK 65536

/* n (< CD_CHUNK) bytes at off into dst, through w->buf. 0 or -1. */
static int cd_read(struct cd_walk *w, uint64_t off, void *dst, size_t n)
{
	ssize_t got;

	if (off < w->at || off + n > w->at + w->len) {
		if (!w->buf)
			w->buf = tf_malloc(CD_CHUNK);
		got = pread(w->fd, w->buf, CD_CHUNK, (off_t)off);
		if (got < 0)
			return -1;
		w->at = off;
		w->len = (size_t)got;
		if (n > w->len)
			return -1;
	}
	memcpy(dst, w->buf + (off - w->at), n);
	return 0;
}

static void cd_open(struct cd_walk *w, const char *path)
{
	unsigned char e[22], z[56];
	struct stat st;

	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	w->state = -1;
	w->i = 0;
	w->name = (struct tf_buf)TF_BUF_INIT;
	w->buf = NULL;
	w->at = 0;
	w->len = 0;
	if (w->fd < 0 || fstat(w->fd, &st) < 0 ||
	    pread(w->fd, e, 22, st.st_size - 22) != 22)
		return;
	w->off = le(e + 16, 4);
	w->count = le(e + 10, 2);
	if ((w->off == 0xffffffff || w->count == 0xffff) && st.st_size >= 42) {
		unsigned char loc[20];

		if (pread(w->fd, loc, 20, st.st_size - 42) != 20 ||
		    memcmp(loc, "PK\6\7", 4) ||
		    pread(w->fd, z, 56, (off_t)le(loc + 8, 8)) != 56 ||
		    memcmp(z, "PK\6\6", 4))
			return;
		w->count = le(z + 32, 8);
		w->off = le(z + 48, 8);
	}
	w->state = 0;
}

/* The next name into w->name; w->state says if there was one. */
static void cd_next(struct cd_walk *w)
{
	unsigned char h[46];
	size_t n;

	if (w->state)
		return;
	if (w->i == w->count) {
		w->state = 1;
		return;
	}
	if (cd_read(w, w->off, h, 46) < 0 || memcmp(h, "PK\1\2", 4)) {
		w->state = -1;
		return;
	}
	n = (size_t)le(h + 28, 2);
	tf_buf_reset(&w->name);
	tf_buf_grow(&w->name, n);
	if (cd_read(w, w->off + 46, w->name.buf, n) < 0) {
		w->state = -1;
		return;
	}
	w->name.buf[n] = 0;
	w->name.len = strlen(w->name.buf);
	w->name_len = n;
	w->method = (unsigned)le(h + 10, 2);
	w->off += 46 + n + le(h + 30, 2) + le(h + 32, 2);
	w->i++;
}

static void cd_close(struct cd_walk *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	tf_buf_release(&w->name);
	free(w->buf);
	w->buf = NULL;
}

static void lister_open(struct lister *l, const char *path, int seekable)
{
	struct tf_buf why = TF_BUF_INIT;

	/* Names are UTF-8 (zip's flag, or as pip reads them): in the C
	   locale libarchive could not convert a non-ASCII one. */
	l->r = tf_wheel_open(
		path,
		(seekable ? TF_WHEEL_SEEKABLE : TF_WHEEL_STREAMABLE) |
			TF_WHEEL_UTF8,
		CHUNK, &why);
	l->seekable = seekable;
	l->state = 0;
	l->name = "";
	l->nr = 0;
	l->why = (struct tf_buf)TF_BUF_INIT;
	if (!l->r) {
		tf_buf_setf(&l->why, "cannot read the zip archive: %s",
			    why.buf);
		l->state = -1;
	}
	tf_buf_release(&why);
}

static void lister_next(struct lister *l)
{
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;

	if (l->state)
		return;
	step = tf_wheel_next(l->r, &m);
	if (step == TF_WHEEL_MEMBER || step == TF_WHEEL_WARNED) {
		l->name = m->name;
		if (!l->name)
			l->name = "";
		l->n = m->size;
		if (m->size_known)
			snprintf(l->size, sizeof(l->size), "%lld", l->n);
		else
			strcpy(l->size, "?");
		l->nr++;
		return;
	}
	l->state = step == TF_WHEEL_END ? 1 : -1;
	if (l->state < 0)
		tf_buf_setf(&l->why, "cannot read the zip archive%s: %s",
			    l->seekable ? "" : "'s local headers",
			    tf_wheel_error(l->r));
}

static void lister_close(struct lister *l)
{
	tf_wheel_close(l->r);
	l->r = NULL;
	tf_buf_release(&l->why);
}

/*
 * What the three readers found, as they went: each first defect of its
 * kind. tf_zipcheck reports the first kind in its order of precedence
 * (the order the checks had when each listing was read whole).
 */
struct findings {
	struct tf_buf differ;     /* central directory vs local headers */
	struct tf_buf raw_differ; /* zipfile's names vs local headers */
	struct tf_buf bad_entry;  /* a name or method no installer takes */
	uint64_t total;           /* the declared sizes' sum */
};

/* The entries at the same index in the central directory and locally. */
static void compare(const struct lister *cd, const struct lister *local,
		    struct findings *f)
{
	if (f->differ.len)
		return;
	if (strcmp(cd->name, local->name))
		tf_buf_setf(
			&f->differ,
			"%s: the central directory names the entry '%s' that the local header calls '%s'",
			cd->name, cd->name, local->name);
	else if (strcmp(cd->size, local->size) && strcmp(local->size, "?"))
		tf_buf_setf(
			&f->differ,
			"%s: size %s in the central directory, %s in the local header",
			cd->name, cd->size, local->size);
}

static void note_central(const struct lister *cd, struct findings *f)
{
	if (cd->size[0] != '?' && cd->n > 0)
		f->total += (uint64_t)cd->n;
}

/*
 * What pip's zipfile cannot install, in the central directory's own
 * bytes: a NUL in a name (zipfile cuts the name there, so the file
 * lands under another path than the one listed), and a compression
 * method other than stored (0) and deflate (8). Python's zipfile also
 * reads bzip2 (12) and lzma (14), but only where CPython was built with
 * those modules, and other installers need not; zstd (93) and the rest
 * it cannot read at all (docs/security.md).
 */
static void check_raw(const struct cd_walk *raw, struct findings *f)
{
	const char *n = raw->name.buf;

	if (raw->state || f->bad_entry.len)
		return;
	if (raw->name.len != raw->name_len)
		tf_buf_setf(
			&f->bad_entry,
			"%s: the entry name holds a NUL byte after '%s' "
			"(%zu bytes in all): Python's zipfile cuts it there",
			n, n, raw->name_len);
	else if (raw->method != 0 && raw->method != 8)
		tf_buf_setf(&f->bad_entry,
			    "%s: compressed with method %u (%s): a wheel's "
			    "entries are stored (0) or deflated (8), what "
			    "every installer reads",
			    n, raw->method,
			    raw->method == 12 || raw->method == 14
				    ? raw->method == 12
					      ? "bzip2, which pip reads only "
						"where CPython has its bz2 "
						"module"
					      : "lzma, which pip reads only "
						"where CPython has its lzma "
						"module"
			    : raw->method == 93 ? "zstd, which pip cannot read"
						: "which pip cannot read");
}

static void compare_raw(struct cd_walk *raw, const struct lister *local,
			struct findings *f)
{
	cd_next(raw);
	check_raw(raw, f);
	if (raw->state || f->raw_differ.len ||
	    !strcmp(raw->name.buf, local->name))
		return;
	tf_buf_setf(
		&f->raw_differ,
		"%s: the central directory names the entry '%s' that the local header calls '%s'",
		local->name, raw->name.buf, local->name);
}

/* Step the three readers together, to the end of each. */
static void walk(struct lister *cd, struct lister *local, struct cd_walk *raw,
		 struct findings *f)
{
	for (;;) {
		lister_next(cd);
		lister_next(local);
		/* The central directory unreadable: nothing else counts. */
		if (cd->state < 0)
			return;
		if (!cd->state)
			note_central(cd, f);
		if (!cd->state && !local->state)
			compare(cd, local, f);
		if (!local->state)
			compare_raw(raw, local, f);
		if (cd->state && local->state)
			break;
	}
	while (!raw->state) {
		cd_next(raw);
		check_raw(raw, f);
	}
}

static int verdict(const char *path, const struct lister *cd,
		   const struct lister *local, const struct cd_walk *raw,
		   const struct findings *f, uint64_t max, struct tf_buf *why)
{
	if (cd->state < 0)
		return tf_buf_setf(why, "%s", cd->why.buf), -1;
	if (end_record(path, why) < 0)
		return -1;
	if (local->state < 0)
		return tf_buf_setf(why, "%s", local->why.buf), -1;
	if (f->differ.len)
		return tf_buf_setf(why, "%s", f->differ.buf), -1;
	if (cd->nr != local->nr)
		return tf_buf_setf(
			       why,
			       "%zu entries in the central directory, %zu local headers (overlapping or hidden entries)",
			       cd->nr, local->nr),
		       -1;
	if (raw->state < 0)
		return tf_buf_setf(
			       why,
			       "the zip archive's central directory cannot be read"),
		       -1;
	if (f->raw_differ.len)
		return tf_buf_setf(why, "%s", f->raw_differ.buf), -1;
	if (f->bad_entry.len)
		return tf_buf_setf(why, "%s", f->bad_entry.buf), -1;
	if (f->total > max)
		return tf_buf_setf(
			       why,
			       "its entries expand to %llu bytes, over the limit of %llu (%s)",
			       (unsigned long long)f->total,
			       (unsigned long long)max,
			       TF_LIMIT_VERIFY_BYTES.env),
		       -1;
	return 0;
}

int tf_zipcheck(const char *path, struct tf_buf *why)
{
	struct lister cd, local;
	struct cd_walk raw;
	struct findings f = { TF_BUF_INIT, TF_BUF_INIT, TF_BUF_INIT, 0 };
	uint64_t max;
	int ret;

	if (tf_limit_get(&TF_LIMIT_VERIFY_BYTES, &max) < 0) {
		tf_buf_setf(why, "bad %s", TF_LIMIT_VERIFY_BYTES.env);
		return -1;
	}
	lister_open(&cd, path, 1);
	lister_open(&local, path, 0);
	cd_open(&raw, path);
	walk(&cd, &local, &raw, &f);
	ret = verdict(path, &cd, &local, &raw, &f, max, why);
	lister_close(&cd);
	lister_close(&local);
	cd_close(&raw);
	tf_buf_release(&f.differ);
	tf_buf_release(&f.raw_differ);
	tf_buf_release(&f.bad_entry);
	return ret;
}

struct tf_zip_names {
	struct cd_walk raw;
};

struct tf_zip_names *tf_zip_names_open(const char *path, struct tf_buf *why)
{
	struct tf_zip_names *w;

	if (end_record(path, why) < 0)
		return NULL;
	w = tf_calloc(1, sizeof(*w));
	cd_open(&w->raw, path);
	return w;
}

const char *tf_zip_names_next(struct tf_zip_names *w, int *bad)
{
	cd_next(&w->raw);
	*bad = w->raw.state < 0;
	return w->raw.state ? NULL : w->raw.name.buf;
}

void tf_zip_names_close(struct tf_zip_names *w)
{
	if (!w)
		return;
	cd_close(&w->raw);
	free(w);
}
