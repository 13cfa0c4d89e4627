#ifndef TF_CACHE_GC_H
#define TF_CACHE_GC_H

/*
 * Everything the cache directory grows, seen and evicted as one: the
 * store's archives (store.h), downloads (<cache>/sha256/), target roots
 * with their .debs, and target sites (docs/cache.md, "Commands"). Each
 * item's least-recently-used clock is an mtime tfbuild sets to now
 * whenever a run uses it; a run holds what it uses with a shared
 * flock(2) (tf_lock_use, base/lock.h), and gc, which locks exclusively
 * without waiting, skips and counts what it cannot lock.
 */

#include <stddef.h>

struct tf_store;

/* The kinds of things in the cache, in the order they are reported. */
enum tf_gc_kind {
	TF_GC_STORE,     /* the store's archives */
	TF_GC_DOWNLOADS, /* <cache>/sha256/<digest> */
	TF_GC_ROOTS,     /* target roots, and the .debs they come from */
	TF_GC_SITES,     /* target sites */
	TF_GC_KINDS
};

/* Where each kind lives, found the way a run finds it. */
struct tf_gc_dirs {
	char *cache; /* owned: the cache directory */
	char *roots; /* owned: $TF_SYSROOT_CACHE, else <cache>/target-roots */
	char *sites; /* owned: <$TF_SYSROOT_CACHE or cache>/target-sites */
};

#define TF_GC_DIRS_INIT          \
	{                        \
		NULL, NULL, NULL \
	}

void tf_gc_dirs_find(struct tf_gc_dirs *d, const char *cache_dir);
void tf_gc_dirs_release(struct tf_gc_dirs *d);

/* One kind's share. */
struct tf_gc_count {
	size_t nr;       /* items (archives, downloads, roots, sites) */
	size_t debs;     /* roots only: .debs */
	long long bytes; /* their bytes (apparent sizes) */
	size_t busy;     /* gc: skipped, in use by a running process */
};

struct tf_gc_report {
	struct tf_gc_count kind[TF_GC_KINDS]; /* gc: what was removed */
	struct tf_gc_count etc; /* gc: prepared /etc copies of the step
				   sandbox removed (<cache>/sandbox/etc-HEX),
				   outside the LRU order: all but the most
				   recently used one */
	size_t temps;           /* temporaries of killed runs or gcs removed */
	long long temp_bytes;   /* their bytes */
	long long left;         /* bytes the cache holds after gc */
};

/* One thing that can be evicted, for choosing the order. */
struct tf_gc_item {
	enum tf_gc_kind kind;
	int deb;    /* a .deb of target-roots/debs/ */
	char *path; /* owned: its path (the store: the blob's digest) */
	long long size;
	long long sec, nsec; /* the LRU clock */
};

/*
 * Sort v[0..nr) least recently used first: by the clock, then kind,
 * then path. Pure: for unit tests.
 */
void tf_gc_order(struct tf_gc_item *v, size_t nr);

/* What each kind holds now into kinds. 0, or -1 after reporting. */
int tf_gc_usage(const struct tf_store *s, const struct tf_gc_dirs *d,
		struct tf_gc_count kinds[TF_GC_KINDS]);

/*
 * Evict least-recently-used items of every kind, in one order, until
 * the whole cache holds at most max_size bytes, skipping (and counting)
 * those in use; then drop the store's entries whose archive is gone,
 * every prepared /etc of the step sandbox but the most recently used
 * one and those a run holds (tf_lock_use), temp files a day old, and
 * the temporaries a killed gc left. 0, or -1
 * after reporting what could not be removed.
 */
int tf_gc_run(const struct tf_store *s, const struct tf_gc_dirs *d,
	      long long max_size, struct tf_gc_report *r);

#endif
