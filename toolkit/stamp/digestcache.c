#include "digestcache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

#define MAGIC "tfbuild-file-digests 1\n"

/*
 * At 63,000 files one malloc'ed absolute path per entry made this 11 MB
 * of a run's peak RSS. A path is kept as its directory (with the
 * trailing '/', interned: a tree has a few directories per hundred
 * files) and its last component, both in a string pool.
 */
struct entry {
	const char *name; /* in cache.pool: the path after its last '/' */
	uint32_t dir;     /* index into cache.dirs */
	uint16_t used;    /* looked up or stored in this run */
	uint16_t stored;  /* stored in this run */
	unsigned long long dev, ino, size;
	long long mtime, ctime;
	unsigned char md[TF_SHA256_LEN];
};

static struct {
	char *file;      /* owned: the cache file, NULL when none is open */
	struct entry *v; /* owned array: loaded, then stored entries */
	size_t nr, alloc;
	uint32_t *sorted; /* owned: the indices of the entries lookups see
			      (loaded, and stored before the last settle),
			      by path, one per path: the latest */
	size_t nr_sorted;
	size_t nr_loaded;  /* entries read from the file */
	size_t nr_seen;    /* entries when sorted was made */
	const char **dirs; /* owned array of pool strings: "/src/" */
	size_t nr_dirs, alloc_dirs;
	uint32_t *table;        /* owned: open hash of dirs, 1 + index or 0 */
	size_t table_size;      /* a power of two, > 2 * nr_dirs */
	struct tf_strpool pool; /* owned: every dir and name */
	int dirty;              /* an entry was added this run */
} cache;

static uint32_t hash_dir(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of dir s[0..n) in the table: its entry, or the empty one. */
static uint32_t *dir_slot(const char *s, size_t n)
{
	size_t mask = cache.table_size - 1, i = hash_dir(s, n) & mask;

	while (cache.table[i]) {
		const char *d = cache.dirs[cache.table[i] - 1];

		if (!strncmp(d, s, n) && !d[n])
			break;
		i = (i + 1) & mask;
	}
	return &cache.table[i];
}

static void grow_table(void)
{
	size_t i;

	free(cache.table);
	cache.table_size = cache.table_size ? cache.table_size * 2 : 256;
	cache.table = tf_calloc(cache.table_size, sizeof(*cache.table));
	for (i = 0; i < cache.nr_dirs; i++)
		*dir_slot(cache.dirs[i], strlen(cache.dirs[i])) =
			(uint32_t)i + 1;
}

/* The index of dir s[0..n), added if add, else -1 when unknown. */
static long find_dir(const char *s, size_t n, int add)
{
	uint32_t *slot;

	if (!cache.table_size) {
		if (!add)
			return -1;
		grow_table();
	}
	slot = dir_slot(s, n);
	if (*slot)
		return (long)*slot - 1;
	if (!add)
		return -1;
	if (cache.nr_dirs == cache.alloc_dirs) {
		cache.alloc_dirs = cache.alloc_dirs ? cache.alloc_dirs * 2 : 64;
		cache.dirs = tf_realloc(cache.dirs,
					cache.alloc_dirs * sizeof(*cache.dirs));
	}
	cache.dirs[cache.nr_dirs] = tf_strpool_addn(&cache.pool, s, n);
	*slot = (uint32_t)++cache.nr_dirs;
	if (cache.nr_dirs * 2 >= cache.table_size)
		grow_table();
	return (long)cache.nr_dirs - 1;
}

/* Where path's last component starts. */
static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int cmp_path(const struct entry *x, const struct entry *y)
{
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_index(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = cmp_path(&cache.v[i], &cache.v[j]);

	return c ? c : i < j ? -1 : i > j;
}

/* Indices 0..n-1 of cache.v sorted by path, then in the order added. */
static uint32_t *sort_indices(size_t n)
{
	uint32_t *v = tf_calloc(n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	qsort(v, n, sizeof(*v), cmp_index);
	return v;
}

void tf_digest_cache_reserve(size_t more)
{
	if (!cache.file || cache.alloc - cache.nr >= more)
		return;
	cache.alloc = cache.nr + more;
	cache.v = tf_realloc(cache.v, cache.alloc * sizeof(*cache.v));
}

static struct entry *add(const char *path)
{
	const char *base = base_of(path);
	struct entry *e;

	if (cache.nr == cache.alloc) {
		cache.alloc = cache.alloc ? cache.alloc * 2 : 64;
		cache.v = tf_realloc(cache.v, cache.alloc * sizeof(*cache.v));
	}
	e = &cache.v[cache.nr++];
	memset(e, 0, sizeof(*e));
	e->dir = (uint32_t)find_dir(path, (size_t)(base - path), 1);
	e->name = tf_strpool_add(&cache.pool, base);
	return e;
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
		   &size, &mtime, &ctime, &off) != 6 ||
	    !off || !line[off])
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
	if (unhex(hex, e->md))
		cache.nr--; /* its strings stay in the pool until close */
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
	cache.sorted = sort_indices(cache.nr);
	cache.nr_sorted = cache.nr_loaded = cache.nr_seen = cache.nr;
	tf_buf_release(&b);
}

static int same(const struct entry *e, const struct stat *st)
{
	return e->dev == (unsigned long long)st->st_dev &&
	       e->ino == (unsigned long long)st->st_ino &&
	       e->size == (unsigned long long)st->st_size &&
	       e->mtime == tf_time_ns(&st->st_mtim) &&
	       e->ctime == tf_time_ns(&st->st_ctim);
}

/* The entry lookups see for path, or NULL. */
static struct entry *find(const char *path)
{
	const char *base = base_of(path);
	struct entry key;
	size_t lo = 0, hi = cache.nr_sorted;
	long dir;

	if (!cache.file || !cache.nr_sorted)
		return NULL;
	dir = find_dir(path, (size_t)(base - path), 0);
	if (dir < 0)
		return NULL;
	key.dir = (uint32_t)dir;
	key.name = base;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_path(&key, &cache.v[cache.sorted[mid]]);

		if (!c)
			return &cache.v[cache.sorted[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int tf_digest_cache_lookup(const char *path, const struct stat *st,
			   unsigned char md[TF_SHA256_LEN])
{
	struct entry *e;

	if (!S_ISREG(st->st_mode) || !(e = find(path)) || !same(e, st))
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

void tf_digest_cache_settle(void)
{
	size_t i, n = 0;

	if (cache.nr == cache.nr_seen)
		return;
	free(cache.sorted);
	/* By path, then in the order added: of a run for one path, the
	   last is the latest, and the one kept. */
	cache.sorted = sort_indices(cache.nr);
	for (i = 0; i < cache.nr; i++) {
		if (i + 1 < cache.nr &&
		    !cmp_path(&cache.v[cache.sorted[i]],
			      &cache.v[cache.sorted[i + 1]]))
			continue;
		cache.sorted[n++] = cache.sorted[i];
	}
	cache.nr_sorted = n;
	cache.nr_seen = cache.nr;
}

int tf_digest_cache_stored(const char *path)
{
	const struct entry *e = find(path);

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
	uint32_t *order = sort_indices(cache.nr);
	size_t i;
	int ret = 0;

	tf_buf_addstr(&b, MAGIC);
	for (i = 0; !ret && i < cache.nr; i++) {
		const struct entry *e = &cache.v[order[i]];
		const struct entry *next =
			i + 1 < cache.nr ? &cache.v[order[i + 1]] : NULL;

		/* Of two entries for one path, the later one is kept. */
		if (!e->used || (next && next->used && !cmp_path(e, next)))
			continue;
		tf_sha256_hex(e->md, hex);
		tf_buf_addf(&b, "%s %llu %llu %llu %lld %lld %s%s\n", hex,
			    e->dev, e->ino, e->size, e->mtime, e->ctime,
			    cache.dirs[e->dir], e->name);
		if (b.len >= 65536) {
			ret = tf_write_all(fd, b.buf, b.len);
			tf_buf_reset(&b);
		}
	}
	if (!ret)
		ret = tf_write_all(fd, b.buf, b.len);
	tf_buf_release(&b);
	free(order);
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
	if (save_it && (cache.dirty || used != cache.nr_loaded))
		save();
	free(cache.v);
	free(cache.sorted);
	free(cache.dirs);
	free(cache.table);
	tf_strpool_release(&cache.pool);
	free(cache.file);
	memset(&cache, 0, sizeof(cache));
}

void tf_digest_cache_renamed(const char *path, const struct stat *hashed,
			     const unsigned char md[TF_SHA256_LEN])
{
	struct stat now;

	if (!lstat(path, &now) && now.st_dev == hashed->st_dev &&
	    now.st_ino == hashed->st_ino && now.st_size == hashed->st_size &&
	    tf_time_ns(&now.st_mtim) == tf_time_ns(&hashed->st_mtim))
		tf_digest_cache_store(path, &now, md);
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
