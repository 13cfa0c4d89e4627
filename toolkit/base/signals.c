/*
 * Fatal signals: forward them to the children, remove the temporary
 * files, die of them. Everything the handler reads lives in fixed slots
 * claimed and released with C11 atomics (lock-free on every target), so
 * a handler that interrupts an update sees a slot either whole or not
 * at all; it calls only async-signal-safe functions.
 */
#include "signals.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define MAX_CHILDREN 64
#define MAX_TEMPS 64
/* How deep the handler follows a temporary directory's subdirectories. */
#define MAX_DEPTH 24

enum {
	FREE,
	WRITING,
	LIVE,
	TAKEN
};

struct temp {
	atomic_int
		state; /* FREE, WRITING (being filled), LIVE, TAKEN (by the handler) */
	char path[PATH_MAX];
};

static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };
static atomic_int children[MAX_CHILDREN]; /* pids; 0: a free slot */
static struct temp temps[MAX_TEMPS];
static pid_t main_tid;

static void fatal_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaddset(set, fatal[i]);
}

void tf_signals_block(sigset_t *old)
{
	sigset_t set;

	fatal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void tf_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void tf_signals_worker(void)
{
	tf_signals_block(NULL);
}

void tf_signals_child(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
}

void tf_signals_child_add(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		int free_slot = 0;

		if (atomic_compare_exchange_strong(&children[i], &free_slot,
						   (int)pid))
			return;
	}
}

void tf_signals_child_forget(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		int p = (int)pid;

		if (atomic_compare_exchange_strong(&children[i], &p, 0))
			return;
	}
}

/*
 * Register path (copied) for removal on a fatal signal. Paths longer
 * than PATH_MAX or beyond 64 at once are not registered.
 */
static void tf_signals_temp_add(const char *path)
{
	size_t i, len = strlen(path);

	if (len >= PATH_MAX)
		return;
	for (i = 0; i < MAX_TEMPS; i++) {
		int want = FREE;

		if (!atomic_compare_exchange_strong(&temps[i].state, &want,
						    WRITING))
			continue;
		memcpy(temps[i].path, path, len + 1);
		atomic_store(&temps[i].state, LIVE);
		return;
	}
}

void tf_signals_temp_forget(const char *path)
{
	size_t i;

	for (i = 0; i < MAX_TEMPS; i++) {
		int want = LIVE;

		if (atomic_load(&temps[i].state) == LIVE &&
		    !strcmp(temps[i].path, path) &&
		    atomic_compare_exchange_strong(&temps[i].state, &want,
						   FREE))
			return;
	}
}

int tf_signals_mkstemp(char *tmpl, int flags)
{
	sigset_t old;
	int fd, e;

	tf_signals_block(&old);
	fd = mkostemp(tmpl, flags);
	e = errno;
	if (fd >= 0)
		tf_signals_temp_add(tmpl);
	tf_signals_restore(&old);
	errno = e;
	return fd;
}

char *tf_signals_mkdtemp(char *tmpl)
{
	sigset_t old;
	char *dir;
	int e;

	tf_signals_block(&old);
	dir = mkdtemp(tmpl);
	e = errno;
	if (dir)
		tf_signals_temp_add(tmpl);
	tf_signals_restore(&old);
	errno = e;
	return dir;
}

/*
 * Remove name in dirfd, a directory with all it holds, with
 * async-signal-safe calls only (openat, getdents64, unlinkat). Passes
 * repeat while they remove something: removing entries while reading a
 * directory may make the reading skip some.
 */
static void remove_at(int dirfd, const char *name, int depth)
{
	char buf[2048];
	int fd, removed;
	ssize_t n;

	if (!unlinkat(dirfd, name, 0) || errno == ENOENT)
		return;
	if (errno != EISDIR && errno != EPERM)
		return;
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	do {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
			ssize_t off = 0;

			while (off < n) {
				struct dirent64 *d =
					(struct dirent64 *)(void *)(buf + off);

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") ||
				    !strcmp(d->d_name, ".."))
					continue;
				if (!unlinkat(fd, d->d_name, 0)) {
					removed = 1;
				} else if (depth < MAX_DEPTH &&
					   (errno == EISDIR ||
					    errno == EPERM)) {
					remove_at(fd, d->d_name, depth + 1);
					removed |= !unlinkat(fd, d->d_name,
							     AT_REMOVEDIR);
				}
			}
		}
	} while (removed);
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Signal every tracked child's group, wait for each, then SIGKILL it. */
static void stop_children(int sig)
{
	int left = TF_SIGNALS_GRACE * 100;
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		pid_t p = (pid_t)atomic_load(&children[i]);

		if (p > 0) {
			kill(-p, sig);
			/* Not yet in a group of its own: it is still in ours. */
			kill(p, sig);
		}
	}
	for (i = 0; i < MAX_CHILDREN; i++) {
		pid_t p = (pid_t)atomic_load(&children[i]);

		if (p <= 0)
			continue;
		while (left > 0 && !waitpid(p, NULL, WNOHANG)) {
			pause_ms(10);
			left--;
		}
		/* What else it started in its group goes with it. */
		kill(-p, SIGKILL);
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
	}
}

static void on_fatal(int sig)
{
	int saved = errno;
	size_t i;

	if (gettid() != main_tid) {
		/* The main thread acts: it alone creates temporary files, with
		 * these signals blocked in between. */
		tgkill(getpid(), main_tid, sig);
		errno = saved;
		return;
	}
	stop_children(sig);
	for (i = 0; i < MAX_TEMPS; i++) {
		int want = LIVE;

		if (atomic_compare_exchange_strong(&temps[i].state, &want,
						   TAKEN))
			remove_at(AT_FDCWD, temps[i].path, 0);
	}
	tf_signals_die(sig);
	_exit(128 + sig);
}

void tf_signals_catch(void)
{
	struct sigaction sa;
	size_t i;

	main_tid = gettid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	fatal_set(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;

		/* A signal ignored by whoever started us stays ignored (nohup). */
		if (!sigaction(fatal[i], NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal[i], &sa, NULL);
	}
}

void tf_signals_die(int sig)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}
