#include "digestcache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "path.h"
#include "signals.h"

#define MAGIC "tfbuild-file-digests 1\n"

struct entry {
	char *path;      /* owned */
	unsigned long long dev, ino, size;
	long long mtime, ctime;
	unsigned char md[TF_SHA256_LEN];
	unsigned char used;   /* looked up or stored in this run */
	unsigned char stored; /* stored in this run */
};

static struct {
	char *file;      /* owned: the cache file, NULL when none is open */
	struct entry *v; /* owned array; the loaded part sorted by path */
	size_t nr, alloc, nr_sorted;
	int dirty;       /* an entry was added this run */
} cache;

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path,
		      ((const struct entry *)b)->path);
}

static struct entry *add(const char *path)
{
	if (cache.nr == cache.alloc) {
		cache.alloc = cache.alloc ? cache.alloc * 2 : 64;
		cache.v = tf_realloc(cache.v, cache.alloc * sizeof(*cache.v));
	}
	memset(&cache.v[cache.nr], 0, sizeof(cache.v[cache.nr]));
	cache.v[cache.nr].path = tf_strdup(path);
	return &cache.v[cache.nr++];
}

static int unhex(const char *s, unsigned char md[TF_SHA256_LEN])
{
	size_t i;
	unsigned v;

	if (!tf_sha256_is_hex(s))
		return -1;
	for (i = 0; i < TF_SHA256_LEN; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		md[i] = (unsigned char)v;
	}
	return 0;
}

/* "HEX DEV INO SIZE MTIME CTIME PATH": the path last, anything but '\n'. */
static void parse_line(char *line, long long written)
{
	char hex[TF_SHA256_HEX_LEN + 1];
	unsigned long long dev, ino, size;
	long long mtime, ctime;
	int off = 0;
	struct entry *e;

	if (sscanf(line, "%64s %llu %llu %llu %lld %lld %n", hex, &dev, &ino,
		   &size, &mtime, &ctime, &off) != 6 || !off || !line[off])
		return;
	/* Racily clean: stat'ed in the tick the cache was written. */
	if (mtime >= written || ctime >= written)
		return;
	e = add(line + off);
	e->dev = dev;
	e->ino = ino;
	e->size = size;
	e->mtime = mtime;
	e->ctime = ctime;
	if (unhex(hex, e->md)) {
		free(e->path);
		cache.nr--;
	}
}

void tf_digest_cache_open(const char *file)
{
	struct tf_buf b = TF_BUF_INIT;
	struct stat st;
	char *p, *nl;

	tf_digest_cache_close(0);
	cache.file = tf_strdup(file);
	if (lstat(file, &st) < 0 || !S_ISREG(st.st_mode) ||
	    tf_read_file(file, &b) || strncmp(b.buf, MAGIC, strlen(MAGIC))) {
		tf_buf_release(&b);
		return;
	}
	for (p = b.buf + strlen(MAGIC); (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		parse_line(p, tf_time_ns(&st.st_mtim));
	}
	if (cache.nr)
		qsort(cache.v, cache.nr, sizeof(*cache.v), cmp_entry);
	cache.nr_sorted = cache.nr;
	tf_buf_release(&b);
}

static int same(const struct entry *e, const struct stat *st)
{
	return e->dev == (unsigned long long)st->st_dev &&
	       e->ino == (unsigned long long)st->st_ino &&
	       e->size == (unsigned long long)st->st_size &&
	       e->mtime == tf_time_ns(&st->st_mtim) && e->ctime == tf_time_ns(&st->st_ctim);
}

int tf_digest_cache_lookup(const char *path, const struct stat *st,
			   unsigned char md[TF_SHA256_LEN])
{
	struct entry key, *e;

	if (!cache.file || !cache.nr_sorted || !S_ISREG(st->st_mode))
		return 0;
	key.path = (char *)path;
	e = bsearch(&key, cache.v, cache.nr_sorted, sizeof(*cache.v), cmp_entry);
	if (!e || !same(e, st))
		return 0;
	e->used = 1;
	memcpy(md, e->md, TF_SHA256_LEN);
	return 1;
}

void tf_digest_cache_store(const char *path, const struct stat *st,
			   const unsigned char md[TF_SHA256_LEN])
{
	struct entry *e;

	if (!cache.file || !S_ISREG(st->st_mode) || strchr(path, '\n'))
		return;
	e = add(path);
	e->dev = (unsigned long long)st->st_dev;
	e->ino = (unsigned long long)st->st_ino;
	e->size = (unsigned long long)st->st_size;
	e->mtime = tf_time_ns(&st->st_mtim);
	e->ctime = tf_time_ns(&st->st_ctim);
	memcpy(e->md, md, TF_SHA256_LEN);
	e->used = e->stored = 1;
	cache.dirty = 1;
}

/* Move the entry at the end of the array into its sorted place. */
static void insert_last(void)
{
	struct entry e = cache.v[cache.nr - 1], *v = cache.v;
	size_t lo = 0, hi = cache.nr_sorted, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(v[mid].path, e.path);
		if (!c) { /* the later one replaces it */
			e.used |= v[mid].used;
			free(v[mid].path);
			v[mid] = e;
			cache.nr--;
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&v[lo + 1], &v[lo], (cache.nr_sorted - lo) * sizeof(*v));
	v[lo] = e;
	cache.nr_sorted++;
}

void tf_digest_cache_settle(void)
{
	size_t i, n = 0;

	if (cache.nr == cache.nr_sorted)
		return;
	/* A few new entries (a wheel's digest): each into its place. */
	if (cache.nr - cache.nr_sorted <= 16) {
		struct entry *tail = tf_calloc(cache.nr - cache.nr_sorted,
					       sizeof(*tail));
		size_t k, nr_tail = cache.nr - cache.nr_sorted;

		memcpy(tail, &cache.v[cache.nr_sorted], nr_tail * sizeof(*tail));
		cache.nr = cache.nr_sorted;
		for (k = 0; k < nr_tail; k++) {
			cache.v[cache.nr++] = tail[k];
			insert_last();
		}
		free(tail);
		return;
	}
	/* glibc's qsort is a merge sort: of two entries for one path, the
	   one stored later stays second, and is kept. */
	qsort(cache.v, cache.nr, sizeof(*cache.v), cmp_entry);
	for (i = 0; i < cache.nr; i++) {
		if (i + 1 < cache.nr &&
		    !strcmp(cache.v[i].path, cache.v[i + 1].path)) {
			cache.v[i + 1].used |= cache.v[i].used;
			cache.v[i + 1].stored |= cache.v[i].stored;
			free(cache.v[i].path);
			continue;
		}
		cache.v[n++] = cache.v[i];
	}
	cache.nr = cache.nr_sorted = n;
}

int tf_digest_cache_stored(const char *path)
{
	struct entry key, *e;

	if (!cache.file || !cache.nr_sorted)
		return 0;
	key.path = (char *)path;
	e = bsearch(&key, cache.v, cache.nr_sorted, sizeof(*cache.v), cmp_entry);
	return e && e->stored;
}

/*
 * Write the used entries to fd, 64 KiB at a time: at 63,000 files the
 * whole text would be 11 MB more at the very end of a run, on top of
 * what packing left in the heap (the peak RSS).
 */
static int write_entries(int fd)
{
	struct tf_buf b = TF_BUF_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;
	int ret = 0;

	tf_buf_addstr(&b, MAGIC);
	for (i = 0; !ret && i < cache.nr; i++) {
		const struct entry *e = &cache.v[i];

		if (!e->used || (i + 1 < cache.nr && cache.v[i + 1].used &&
				 !strcmp(e->path, cache.v[i + 1].path)))
			continue;
		tf_sha256_hex(e->md, hex);
		tf_buf_addf(&b, "%s %llu %llu %llu %lld %lld %s\n", hex, e->dev,
			    e->ino, e->size, e->mtime, e->ctime, e->path);
		if (b.len >= 65536) {
			ret = tf_write_all(fd, b.buf, b.len);
			tf_buf_reset(&b);
		}
	}
	if (!ret)
		ret = tf_write_all(fd, b.buf, b.len);
	tf_buf_release(&b);
	return ret;
}

/* Written as tf_write_file_atomic does: beside it, fsync, rename. */
static void save(void)
{
	struct tf_buf dir = TF_BUF_INIT;
	const char *slash = strrchr(cache.file, '/');
	char *tmp = NULL;
	int fd, ok = 0;

	tf_buf_add(&dir, cache.file, slash ? (size_t)(slash - cache.file) : 0);
	if (!dir.len)
		tf_buf_addstr(&dir, slash ? "/" : ".");
	/* Of two entries for one path, the second is kept. */
	if (cache.nr)
		qsort(cache.v, cache.nr, sizeof(*cache.v), cmp_entry);
	/* A cache that cannot be written is only a slower next run. */
	if (!tf_path_is_dir(dir.buf)) {
		/* nothing was built (explain, a failed check): no build tree */
		tf_buf_release(&dir);
		return;
	}
	tmp = tf_xstrfmt("%s.tmp.XXXXXX", cache.file);
	fd = tf_signals_mkstemp(tmp, 0);
	if (fd >= 0) {
		ok = !write_entries(fd) && !fsync(fd) && !fchmod(fd, 0644);
		ok = !close(fd) && ok && !rename(tmp, cache.file);
		if (!ok)
			unlink(tmp);
		tf_signals_temp_forget(tmp);
	}
	if (!ok)
		warning("the file digest cache '%s' was not saved", cache.file);
	free(tmp);
	tf_buf_release(&dir);
}

void tf_digest_cache_close(int save_it)
{
	size_t i, used = 0;

	if (!cache.file)
		return;
	for (i = 0; i < cache.nr; i++)
		used += cache.v[i].used;
	/* Rewrite when something was learnt or forgotten, not on a no-op. */
	if (save_it && (cache.dirty || used != cache.nr_sorted))
		save();
	for (i = 0; i < cache.nr; i++)
		free(cache.v[i].path);
	free(cache.v);
	free(cache.file);
	memset(&cache, 0, sizeof(cache));
}

int tf_digest_cache_file(const char *path, unsigned char md[TF_SHA256_LEN])
{
	struct stat before, after;

	if (lstat(path, &before) < 0)
		return error_errno("cannot stat '%s'", path);
	tf_digest_cache_settle();
	if (tf_digest_cache_lookup(path, &before, md))
		return 0;
	if (tf_sha256_file(path, md, NULL) < 0)
		return -1;
	/* Kept only if the file stayed as it was while it was read. */
	if (!lstat(path, &after) && tf_stat_same(&after, &before))
		tf_digest_cache_store(path, &before, md);
	return 0;
}
