#ifndef TF_LOCK_H
#define TF_LOCK_H

/*
 * Run locks: one tfbuild at a time in a build tree or an output folder.
 *
 * The lock is flock(2) LOCK_EX on an O_RDONLY|O_DIRECTORY descriptor of
 * the directory itself, so it leaves no file anywhere: nothing in the
 * output folder that could be mistaken for a product and published with
 * the wheels, no dot-file in the build tree. The kernel drops it when the
 * process ends however it ends (a crash, SIGKILL), so a lock is never
 * stale. The descriptor is close-on-exec: build steps do not inherit it
 * and cannot keep it held after tfbuild is gone.
 *
 * A directory that does not exist yet is created to be locked; if the
 * run leaves it empty, releasing the lock removes it again (with the
 * parents the lock created), so a failed run leaves no trace there, as
 * before locks existed. After locking, the path is checked to still name
 * the locked directory: a run that locked a directory another run had
 * just removed starts over on the new one.
 *
 * The holder's pid is read from /proc/locks, for the message only; the
 * lock itself is the flock, never a pid file.
 */

#include <sys/types.h>

struct tf_lock {
	int fd;        /* owned: the locked directory, or -1 */
	char *path;    /* owned: the directory, absolute */
	char *created; /* owned: the topmost directory this lock created,
			    or NULL */
};

#define TF_LOCK_INIT           \
	{                      \
		-1, NULL, NULL \
	}

/* What tf_lock_take gives. */
enum tf_lock_result {
	TF_LOCK_TAKEN, /* locked: l holds the directory */
	TF_LOCK_BUSY,  /* another process holds it (reported) */
	TF_LOCK_ERROR, /* any other failure (reported) */
};

/*
 * Lock directory path (creating it if missing) for this run. what names
 * it in messages ("build tree", "output folder"). If another process
 * holds it: with wait, say so and block until it is free; without,
 * report "WHAT PATH is busy: another tfbuild (pid N) is using it" and
 * return TF_LOCK_BUSY.
 */
enum tf_lock_result tf_lock_take(struct tf_lock *l, const char *path,
				 const char *what, int wait);
/*
 * 1 if l already holds the directory path (the same inode, under
 * whatever name): locking it a second time from this process would
 * conflict with itself.
 */
int tf_lock_holds(const struct tf_lock *l, const char *path);
/* Remove the directories the lock created if they are empty, then
   unlock. Safe on TF_LOCK_INIT and twice. */
void tf_lock_release(struct tf_lock *l);

/*
 * The pid holding an exclusive flock on device dev, inode ino, from the
 * text of /proc/locks; 0 if none is listed. Pure: for unit tests.
 */
pid_t tf_lock_holder_in(const char *proc_locks, dev_t dev, ino_t ino);

/*
 * Cache entries in use (docs/cache.md, "In use"): a download, target
 * root or target site this run reads is held with a shared flock(2) on
 * a close-on-exec descriptor of its own, kept until the process ends,
 * so `tfbuild cache gc`, which locks exclusively without waiting before
 * it removes anything (tf_lock_evict), skips it. Using it also moves
 * its least-recently-used clock: the mtime of stamp, a file inside the
 * directory path (NULL: path itself), is set to now.
 *
 * Returns 1 when held; 0 when path is missing, has no stamp (not
 * complete), or was removed or replaced while this waited for the lock
 * (gc had it): the caller makes it again; -1 after reporting.
 */
int tf_lock_use(const char *path, const char *stamp);

/*
 * A directory of the cache made once and shared (a target root, a site),
 * held for this run as tf_lock_use does. If it is
 * not there, fill(TMP, arg) fills a temporary directory beside it (named
 * after prefix, mode 0755), writing stamp last, and TMP is renamed into
 * place; a run that finished the same one first wins. One that gc
 * removes before it is held is made again, three times at most; what
 * names it in the error then ("the site", "target aarch64: the root").
 * 0, or -1 after reporting.
 */
int tf_lock_use_made(const char *path, const char *stamp, const char *prefix,
		     const char *what, int (*fill)(const char *tmp, void *arg),
		     void *arg);

/* What tf_lock_evict gives. */
enum tf_lock_evict_result {
	TF_LOCK_EVICTED, /* removed, or gone already */
	TF_LOCK_IN_USE,  /* a process holds it (tf_lock_use): left alone */
	TF_LOCK_FAILED,  /* could not remove it (reported) */
};

/*
 * Remove path unless a process holds it: take an exclusive flock
 * without waiting; then unlink a file, or rename a directory to
 * ".NAME.gc-PID" beside it (readers see all of it or none) and remove
 * that tree. A gc killed meanwhile leaves only that temporary, which
 * tf_lock_gc_leftover recognizes.
 */
enum tf_lock_evict_result tf_lock_evict(const char *path);

/*
 * 1 if name is a temporary ".NAME.gc-PID" of a gc whose process is no
 * longer running (or is this one): safe to remove.
 */
int tf_lock_gc_leftover(const char *name);

#endif
