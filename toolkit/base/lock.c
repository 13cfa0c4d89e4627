#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "path.h"
#include "signals.h"

#define MAX_RETRIES 20           /* directory replaced under us, in a row */
#define PROC_LOCKS_CAP (4 << 20) /* bytes of /proc/locks worth reading */

pid_t tf_lock_holder_in(const char *text, dev_t dev, ino_t ino)
{
	const char *line = text;

	while (line && *line) {
		char type[16], mode[16], access[16];
		unsigned maj, min;
		unsigned long long i;
		int pid;

		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:11397913 0 EOF"; a
		   waiter's line has "->" where FLOCK is, and is skipped. */
		if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", type,
			   mode, access, &pid, &maj, &min, &i) == 7 &&
		    !strcmp(type, "FLOCK") && !strcmp(access, "WRITE") &&
		    maj == major(dev) && min == minor(dev) &&
		    i == (unsigned long long)ino && pid > 0)
			return (pid_t)pid;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

/* Who holds fd's directory, best effort: 0 if /proc/locks does not say. */
static pid_t holder(int fd)
{
	struct tf_buf b = TF_BUF_INIT;
	struct stat st;
	char chunk[8192];
	size_t n;
	pid_t pid = 0;
	FILE *f;

	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (b.len < PROC_LOCKS_CAP &&
	       (n = fread(chunk, 1, sizeof(chunk), f)))
		tf_buf_add(&b, chunk, n);
	fclose(f);
	pid = tf_lock_holder_in(b.buf, st.st_dev, st.st_ino);
	tf_buf_release(&b);
	return pid;
}

/* Report that another process holds fd's directory. */
static void busy(const struct tf_lock *l, const char *what, int fd)
{
	pid_t pid = holder(fd);

	if (pid)
		error("%s %s is busy: another tfbuild (pid %ld) is using it",
		      what, l->path, (long)pid);
	else
		error("%s %s is busy: another tfbuild is using it", what,
		      l->path);
}

/* The topmost missing directory on the way to path, or NULL. */
static char *first_missing(const char *path)
{
	struct tf_buf dir = TF_BUF_INIT, up = TF_BUF_INIT;
	char *missing = NULL;

	tf_buf_addstr(&dir, path);
	while (!tf_path_exists(dir.buf)) {
		free(missing);
		missing = tf_strdup(dir.buf);
		tf_buf_reset(&up);
		tf_path_dirname(&up, dir.buf);
		if (!strcmp(up.buf, dir.buf))
			break;
		tf_buf_reset(&dir);
		tf_buf_addstr(&dir, up.buf);
	}
	tf_buf_release(&dir);
	tf_buf_release(&up);
	return missing;
}

/* flock, retrying on EINTR; -1 with errno (EWOULDBLOCK: held). */
static int lock_fd(int fd, int wait)
{
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* 1 if path still names the directory open as fd. */
static int still_there(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Wait for the lock on fd after saying so; 0, or -1 reported. */
static int wait_for(const struct tf_lock *l, const char *what, int fd)
{
	pid_t pid = holder(fd);

	if (pid)
		info("waiting for the %s %s: another tfbuild (pid %ld) is using it",
		     what, l->path, (long)pid);
	else
		info("waiting for the %s %s: another tfbuild is using it", what,
		     l->path);
	if (lock_fd(fd, 1) < 0)
		return error_errno("cannot lock %s %s", what, l->path);
	return 0;
}

/* What one attempt at the lock gives. */
enum attempt {
	LOCKED, /* l holds the directory */
	BUSY,   /* another process holds it (reported) */
	AGAIN,  /* the directory was removed or replaced: try again */
	FAILED, /* any other failure (reported) */
};

static enum attempt attempt(struct tf_lock *l, const char *what, int wait)
{
	char *missing = first_missing(l->path);
	enum attempt ret = LOCKED;
	int fd;

	/* Not "missing": a dangling symlink is refused by tf_mkdir_p too. */
	if (!tf_path_is_dir(l->path) && tf_mkdir_p(l->path)) {
		free(missing);
		return FAILED;
	}
	fd = open(l->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		free(missing);
		if (errno == ENOENT)
			return AGAIN; /* removed by the run that just let go */
		error_errno("cannot open %s %s", what, l->path);
		return FAILED;
	}
	if (lock_fd(fd, 0) < 0) {
		if (errno != EWOULDBLOCK) {
			error_errno("cannot lock %s %s", what, l->path);
			ret = FAILED;
		} else if (!wait) {
			busy(l, what, fd);
			ret = BUSY;
		} else if (wait_for(l, what, fd)) {
			ret = FAILED;
		}
	}
	if (ret == LOCKED && !still_there(fd, l->path))
		ret = AGAIN;
	if (ret != LOCKED) {
		close(fd);
		free(missing);
		return ret;
	}
	l->fd = fd;
	l->created = missing;
	return LOCKED;
}

enum tf_lock_result tf_lock_take(struct tf_lock *l, const char *path,
				 const char *what, int wait)
{
	struct tf_buf abs = TF_BUF_INIT;
	enum attempt ret = AGAIN;
	int i;

	tf_lock_release(l);
	if (tf_path_absolute(&abs, path) < 0)
		return TF_LOCK_ERROR;
	l->path = tf_buf_detach(&abs);
	for (i = 0; ret == AGAIN && i < MAX_RETRIES; i++)
		ret = attempt(l, what, wait);
	if (ret == AGAIN)
		error("cannot lock %s %s: it keeps being replaced", what,
		      l->path);
	return ret == LOCKED ? TF_LOCK_TAKEN
	       : ret == BUSY ? TF_LOCK_BUSY
			     : TF_LOCK_ERROR;
}

int tf_lock_holds(const struct tf_lock *l, const char *path)
{
	return l->fd >= 0 && still_there(l->fd, path);
}

void tf_lock_release(struct tf_lock *l)
{
	struct tf_buf dir = TF_BUF_INIT, up = TF_BUF_INIT;

	/* Remove while still holding the lock: a run waiting on the old
	   directory sees it is gone and starts over (attempt()). */
	if (l->fd >= 0 && l->created) {
		tf_buf_addstr(&dir, l->path);
		while (rmdir(dir.buf) == 0 && strcmp(dir.buf, l->created)) {
			tf_buf_reset(&up);
			tf_path_dirname(&up, dir.buf);
			tf_buf_reset(&dir);
			tf_buf_addstr(&dir, up.buf);
		}
	}
	if (l->fd >= 0)
		close(l->fd);
	free(l->path);
	free(l->created);
	l->fd = -1;
	l->path = NULL;
	l->created = NULL;
	tf_buf_release(&dir);
	tf_buf_release(&up);
}

/* ---- cache entries in use, and their removal by gc ---- */

/* Descriptors held until the process ends: what this run uses. */
static int *held;
static size_t nr_held;

static int flock_retry(int fd, int how)
{
	while (flock(fd, how) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/*
 * Move the LRU clock of what fd holds (the mtime of stamp inside it, or
 * its own) to now, unless it is already within the hour: as relatime
 * moves atime at most once a day, so that a no-op rebuild, which finds
 * everything it needs, writes nothing. A clock that cannot move (a
 * cache of another user's, or on a read-only mount) leaves it held all
 * the same. 0 if stamp is missing: not complete.
 */
static int move_clock(int fd, const char *stamp)
{
	struct timespec now;
	struct stat st;

	if ((stamp ? fstatat(fd, stamp, &st, 0) : fstat(fd, &st)) < 0)
		return errno != ENOENT;
	clock_gettime(CLOCK_REALTIME, &now);
	if (st.st_mtim.tv_sec <= now.tv_sec &&
	    st.st_mtim.tv_sec > now.tv_sec - 3600)
		return 1;
	if (stamp)
		utimensat(fd, stamp, NULL, 0);
	else
		futimens(fd, NULL);
	return 1;
}

int tf_lock_use(const char *path, const char *stamp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0
				       : error_errno("cannot open '%s'", path);
	/* gc holds its exclusive lock only while it renames or unlinks. */
	if (flock_retry(fd, LOCK_SH) < 0) {
		error_errno("cannot lock '%s'", path);
		close(fd);
		return -1;
	}
	/* Removed (or replaced) while we waited: then it is gone for us;
	   so is a directory without its stamp (not complete). */
	if (!still_there(fd, path) || !move_clock(fd, stamp)) {
		close(fd);
		return 0;
	}
	held = tf_realloc(held, (nr_held + 1) * sizeof(*held));
	held[nr_held++] = fd;
	return 1;
}

enum tf_lock_evict_result tf_lock_evict(const char *path)
{
	struct tf_buf tmp = TF_BUF_INIT, dir = TF_BUF_INIT;
	enum tf_lock_evict_result ret = TF_LOCK_EVICTED;
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return TF_LOCK_EVICTED;
	if (fd < 0) {
		error_errno("cannot open '%s'", path);
		return TF_LOCK_FAILED;
	}
	if (flock_retry(fd, LOCK_EX | LOCK_NB) < 0) {
		int busy = errno == EWOULDBLOCK;

		if (!busy)
			error_errno("cannot lock '%s'", path);
		close(fd);
		return busy ? TF_LOCK_IN_USE : TF_LOCK_FAILED;
	}
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0 && errno != ENOENT) {
			error_errno("cannot remove '%s'", path);
			ret = TF_LOCK_FAILED;
		}
		close(fd);
		return ret;
	}
	tf_path_dirname(&dir, path);
	tf_buf_addf(&tmp, "%s/.%s.gc-%ld", dir.buf, tf_path_basename(path),
		    (long)getpid());
	/* Renamed while locked: a reader waiting on the old name wakes up
	   to find it gone, and makes it again. */
	if (rename(path, tmp.buf) < 0) {
		error_errno("cannot rename '%s' to '%s'", path, tmp.buf);
		ret = TF_LOCK_FAILED;
	}
	close(fd);
	if (ret == TF_LOCK_EVICTED && tf_rm_rf(tmp.buf) < 0)
		ret = TF_LOCK_FAILED;
	tf_buf_release(&tmp);
	tf_buf_release(&dir);
	return ret;
}

int tf_lock_gc_leftover(const char *name)
{
	const char *gc = strstr(name, ".gc-");
	char *end;
	long pid;

	if (*name != '.' || !gc)
		return 0;
	while (strstr(gc + 1, ".gc-"))
		gc = strstr(gc + 1, ".gc-");
	errno = 0;
	pid = strtol(gc + 4, &end, 10);
	if (errno || *end || end == gc + 4 || pid <= 0)
		return 0;
	return pid == (long)getpid() ||
	       (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

/* 1 if directory path has its stamp: it is complete. */
static int has_stamp(const char *path, const char *stamp)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret;

	tf_path_join(&b, path, stamp);
	ret = tf_path_exists(b.buf);
	tf_buf_release(&b);
	return ret;
}

/* Fill a temporary directory beside path and rename it into place. */
static int make_dir(const char *path, const char *stamp, const char *prefix,
		    int (*fill)(const char *tmp, void *arg), void *arg)
{
	struct tf_buf parent = TF_BUF_INIT, tmp = TF_BUF_INIT;
	int ret;

	tf_path_dirname(&parent, path);
	ret = tf_mkdir_p(parent.buf);
	if (!ret)
		ret = tf_mkdtemp_temp(parent.buf, prefix, &tmp);
	if (!ret) {
		chmod(tmp.buf, 0755);
		ret = fill(tmp.buf, arg);
	}
	/* Another run may have finished the same one first: keep it. One
	   without its stamp is no run's (left by an older tfbuild): it
	   goes, as gc would remove it. */
	if (!ret && rename(tmp.buf, path) < 0) {
		if (errno != ENOTEMPTY && errno != EEXIST)
			ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
					  path);
		else if (!has_stamp(path, stamp) &&
			 tf_lock_evict(path) == TF_LOCK_EVICTED &&
			 rename(tmp.buf, path) < 0 && errno != ENOTEMPTY &&
			 errno != EEXIST)
			ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
					  path);
	}
	if (tmp.len && tf_path_exists(tmp.buf))
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
	tf_buf_release(&parent);
	tf_buf_release(&tmp);
	return ret;
}

int tf_lock_use_made(const char *path, const char *stamp, const char *prefix,
		     const char *what, int (*fill)(const char *tmp, void *arg),
		     void *arg)
{
	int tries, got = 0;

	/* Held (and marked used) for the whole run, so gc leaves it; one
	   that gc removes between making and holding is made again. */
	for (tries = 0; tries < 4; tries++) {
		got = tf_lock_use(path, stamp);
		if (got || tries == 3)
			break;
		if (make_dir(path, stamp, prefix, fill, arg))
			return -1;
	}
	if (!got)
		return error("%s '%s' was removed each time it was made; is "
			     "'tfbuild cache gc' running in a loop?",
			     what, path);
	return got < 0 ? -1 : 0;
}
