/*
 * tfbuild cache gc and stats over everything the cache grows (gc.h):
 * list every item of every kind with its size and LRU clock, then evict
 * the least recently used until the whole fits.
 */
#include "gc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "store.h"

#define STALE_TMP_SECONDS (24L * 60 * 60)

void tf_gc_dirs_find(struct tf_gc_dirs *d, const char *cache_dir)
{
	const char *env = getenv("TF_SYSROOT_CACHE");

	/* As plan/roots.c and plan/wheelpins.c name them. */
	d->cache = tf_strdup(cache_dir);
	if (env && *env == '/') {
		d->roots = tf_strdup(env);
		d->sites = tf_xstrfmt("%s/target-sites", env);
	} else {
		d->roots = tf_xstrfmt("%s/target-roots", cache_dir);
		d->sites = tf_xstrfmt("%s/target-sites", cache_dir);
	}
}

void tf_gc_dirs_release(struct tf_gc_dirs *d)
{
	free(d->cache);
	free(d->roots);
	free(d->sites);
	d->cache = d->roots = d->sites = NULL;
}

static int older(const void *a, const void *b)
{
	const struct tf_gc_item *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->nsec != y->nsec)
		return x->nsec < y->nsec ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->path, y->path);
}

void tf_gc_order(struct tf_gc_item *v, size_t nr)
{
	if (nr)
		qsort(v, nr, sizeof(*v), older);
}

struct items {
	struct tf_gc_item *v; /* owned */
	size_t nr;
	struct tf_gc_report *r; /* borrowed: temporaries removed */
};

static void add(struct items *it, enum tf_gc_kind kind, int deb,
		char *path_take, long long size, const struct timespec *t)
{
	struct tf_gc_item *i;

	it->v = tf_realloc(it->v, (it->nr + 1) * sizeof(*it->v));
	i = &it->v[it->nr++];
	i->kind = kind;
	i->deb = deb;
	i->path = path_take;
	i->size = size;
	i->sec = t->tv_sec;
	i->nsec = t->tv_nsec;
}

static void items_release(struct items *it)
{
	size_t i;

	for (i = 0; i < it->nr; i++)
		free(it->v[i].path);
	free(it->v);
}

/* Apparent bytes of everything under name (not following links). */
static long long tree_bytes(int dirfd, const char *name)
{
	struct stat st;
	struct dirent *de;
	long long n = 0;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return st.st_size;
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n += tree_bytes(fd, de->d_name);
	closedir(d);
	return n;
}

/*
 * A temporary of dir: one a killed gc left (".NAME.gc-PID"), or one a
 * killed run left (".root.*", ".site.*", ".download.*") a day ago.
 * Removed when r is not NULL (gc), counted in r.
 */
static void temporary(const char *dir, const char *name, struct tf_gc_report *r)
{
	struct tf_buf p = TF_BUF_INIT;
	struct stat st;
	long long n;

	tf_path_join(&p, dir, name);
	if (r && lstat(p.buf, &st) == 0 &&
	    (tf_lock_gc_leftover(name) ||
	     time(NULL) - st.st_mtime > STALE_TMP_SECONDS)) {
		n = tree_bytes(AT_FDCWD, p.buf);
		if (!tf_rm_rf(p.buf)) {
			r->temps++;
			r->temp_bytes += n;
		}
	}
	tf_buf_release(&p);
}

/* Each name in dir: temporaries handled, the rest given to fn. */
static int each(const char *dir, struct items *it,
		void (*fn)(struct items *it, const char *dir, const char *name,
			   const char *path))
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf p = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	if (!tf_path_is_dir(dir))
		return 0;
	ret = tf_list_dir(dir, &names);
	for (i = 0; !ret && i < names.nr; i++) {
		if (*names.v[i] == '.') {
			temporary(dir, names.v[i], it->r);
			continue;
		}
		tf_buf_reset(&p);
		tf_path_join(&p, dir, names.v[i]);
		fn(it, dir, names.v[i], p.buf);
	}
	tf_strvec_release(&names);
	tf_buf_release(&p);
	return ret;
}

static void download(struct items *it, const char *dir, const char *name,
		     const char *path)
{
	struct stat st;

	(void)dir;
	if (tf_sha256_is_hex(name) && lstat(path, &st) == 0 &&
	    S_ISREG(st.st_mode))
		add(it, TF_GC_DOWNLOADS, 0, tf_strdup(path), st.st_size,
		    &st.st_mtim);
}

static void deb(struct items *it, const char *dir, const char *name,
		const char *path)
{
	struct stat st;

	(void)dir;
	(void)name;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		add(it, TF_GC_ROOTS, 1, tf_strdup(path), st.st_size,
		    &st.st_mtim);
}

/* A root or a site: its clock is its stamp's mtime (the directory's
   if it has none). */
static void tree(struct items *it, enum tf_gc_kind kind, const char *path,
		 const char *stamp)
{
	struct tf_buf s = TF_BUF_INIT;
	struct stat st;

	tf_path_join(&s, path, stamp);
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		lstat(s.buf, &st);
		add(it, kind, 0, tf_strdup(path), tree_bytes(AT_FDCWD, path),
		    &st.st_mtim);
	}
	tf_buf_release(&s);
}

static void root(struct items *it, const char *dir, const char *name,
		 const char *path)
{
	(void)dir;
	if (!strcmp(name, "debs"))
		each(path, it, deb);
	else if (strcmp(name, "resolved") && strcmp(name, "target-sites"))
		tree(it, TF_GC_ROOTS, path, ".tfbuild-packages");
}

static void site(struct items *it, const char *dir, const char *name,
		 const char *path)
{
	(void)dir;
	(void)name;
	tree(it, TF_GC_SITES, path, ".tfbuild-wheels");
}

/* A prepared /etc of the step sandbox: "etc-HEX" (build/sandbox_etc.c). */
static void etc_copy(struct items *it, const char *dir, const char *name,
		     const char *path)
{
	struct stat st;

	(void)dir;
	if (!strncmp(name, "etc-", 4) && tf_sha256_is_hex(name + 4) &&
	    lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		add(it, TF_GC_KINDS /* none of the LRU's */, 0, tf_strdup(path),
		    tree_bytes(AT_FDCWD, path), &st.st_mtim);
}

/*
 * The step sandbox's prepared /etc copies in <cache>/sandbox: each one
 * the machine's /etc, a network or a `sandbox.read` made, and which the
 * next run makes again if it needs it. All go but the most recently
 * used (a run moves its clock, the directory's mtime, when it holds it)
 * and those a running tfbuild holds, skipped and counted; temporaries
 * as elsewhere. 0, or -1 after reporting what could not be removed.
 */
static int sweep_etc(const struct tf_gc_dirs *d, struct tf_gc_report *r)
{
	struct items it = { NULL, 0, r };
	struct tf_buf dir = TF_BUF_INIT;
	size_t i;
	int ret;

	tf_path_join(&dir, d->cache, "sandbox");
	ret = each(dir.buf, &it, etc_copy);
	tf_gc_order(it.v, it.nr);
	for (i = 0; i + 1 < it.nr; i++) /* the last is the newest */
		switch (tf_lock_evict(it.v[i].path)) {
		case TF_LOCK_EVICTED:
			r->etc.nr++;
			r->etc.bytes += it.v[i].size;
			break;
		case TF_LOCK_IN_USE:
			r->etc.busy++;
			break;
		case TF_LOCK_FAILED:
			ret = -1;
			break;
		}
	items_release(&it);
	tf_buf_release(&dir);
	return ret;
}

/* Every item of every kind into it. */
static int list(const struct tf_store *s, const struct tf_gc_dirs *d,
		struct items *it)
{
	struct tf_store_blob *b = NULL;
	struct tf_buf dl = TF_BUF_INIT;
	struct timespec t;
	size_t i, nr = 0;
	int ret = tf_store_list(s, &b, &nr);

	for (i = 0; i < nr; i++) {
		t.tv_sec = (time_t)b[i].used;
		t.tv_nsec = (long)b[i].used_ns;
		add(it, TF_GC_STORE, 0, tf_strdup(b[i].hex), b[i].size, &t);
	}
	free(b);
	tf_path_join(&dl, d->cache, "sha256");
	if (!ret)
		ret = each(dl.buf, it, download);
	if (!ret)
		ret = each(d->roots, it, root);
	if (!ret)
		ret = each(d->sites, it, site);
	tf_buf_release(&dl);
	return ret;
}

int tf_gc_usage(const struct tf_store *s, const struct tf_gc_dirs *d,
		struct tf_gc_count kinds[TF_GC_KINDS])
{
	struct items it = { NULL, 0, NULL };
	size_t i;
	int ret = list(s, d, &it);

	memset(kinds, 0, TF_GC_KINDS * sizeof(*kinds));
	for (i = 0; i < it.nr; i++) {
		struct tf_gc_count *c = &kinds[it.v[i].kind];

		if (it.v[i].deb)
			c->debs++;
		else
			c->nr++;
		c->bytes += it.v[i].size;
	}
	items_release(&it);
	return ret;
}

/* A .deb goes only while no run holds debs/ (it may be unpacking). */
static enum tf_lock_evict_result evict_deb(const char *path)
{
	struct tf_buf dir = TF_BUF_INIT;
	enum tf_lock_evict_result ret = TF_LOCK_EVICTED;
	int fd;

	tf_path_dirname(&dir, path);
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
		ret = TF_LOCK_IN_USE;
	else if (fd >= 0 && unlink(path) < 0 && errno != ENOENT) {
		error_errno("cannot remove '%s'", path);
		ret = TF_LOCK_FAILED;
	}
	if (fd >= 0)
		close(fd);
	tf_buf_release(&dir);
	return ret;
}

static enum tf_lock_evict_result evict(const struct tf_store *s,
				       const struct tf_gc_item *i)
{
	if (i->kind == TF_GC_STORE)
		return tf_store_evict(s, i->path) ? TF_LOCK_EVICTED
						  : TF_LOCK_IN_USE;
	if (i->deb)
		return evict_deb(i->path);
	return tf_lock_evict(i->path);
}

int tf_gc_run(const struct tf_store *s, const struct tf_gc_dirs *d,
	      long long max_size, struct tf_gc_report *r)
{
	struct items it = { NULL, 0, r };
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf tmp = TF_BUF_INIT;
	long long total = 0;
	size_t i;
	int ret, failed = 0;

	memset(r, 0, sizeof(*r));
	ret = list(s, d, &it);
	for (i = 0; i < it.nr; i++)
		total += it.v[i].size;
	tf_gc_order(it.v, it.nr);
	for (i = 0; !ret && i < it.nr && total > max_size; i++) {
		/* A failure is reported; the rest still go. */
		struct tf_gc_count *c = &r->kind[it.v[i].kind];

		switch (evict(s, &it.v[i])) {
		case TF_LOCK_EVICTED:
			total -= it.v[i].size;
			c->bytes += it.v[i].size;
			if (it.v[i].deb)
				c->debs++;
			else
				c->nr++;
			break;
		case TF_LOCK_IN_USE:
			c->busy++;
			break;
		case TF_LOCK_FAILED:
			failed = 1;
			break;
		}
	}
	r->left = total;
	items_release(&it);
	/* Downloads' temp files: a killed run's, a day old (as fetch.c). */
	tf_path_join(&tmp, d->cache, "tmp");
	if (tf_path_is_dir(tmp.buf) && !tf_list_dir(tmp.buf, &names))
		for (i = 0; i < names.nr; i++)
			temporary(tmp.buf, names.v[i], r);
	tf_strvec_release(&names);
	tf_buf_release(&tmp);
	if (tf_store_sweep(s))
		ret = -1;
	if (sweep_etc(d, r))
		ret = -1;
	return ret || failed ? -1 : 0;
}
