#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "signals.h"
#include "buf.h"

extern char **environ;

/* 1 when tf_run_pin_tz set TZ itself: children do not inherit it. */
#define PINNED_TZ ":/etc/localtime"
static int tz_pinned;

/*
 * glibc's mktime() looks at /etc/localtime again on every call while TZ
 * is unset (a stat, and a read when it changed); libarchive calls it for
 * every zip header it reads, so verifying a wheel of 63,000 entries
 * cost 570,000 stats. With TZ naming that same file, glibc reads it
 * once: local time means the same, only no longer re-checked.
 */
void tf_run_pin_tz(void)
{
	if (getenv("TZ"))
		return;
	if (!setenv("TZ", PINNED_TZ, 1))
		tz_pinned = 1;
}

void tf_run_quote_word(struct tf_buf *out, const char *s)
{
	tf_buf_addch(out, '\'');
	for (; *s; s++)
		if (*s == '\'')
			tf_buf_addstr(out, "'\\''");
		else
			tf_buf_addch(out, *s);
	tf_buf_addch(out, '\'');
}

void tf_run_quote_argv(const struct tf_strvec *argv, struct tf_buf *out)
{
	size_t i;

	for (i = 0; i < argv->nr; i++) {
		const char *a = argv->v[i];

		if (i)
			tf_buf_addch(out, ' ');
		if (*a && !a[strcspn(a, " \t\n'\"\\$`;&|<>()*?[]#~{}")]) {
			tf_buf_addstr(out, a);
			continue;
		}
		tf_run_quote_word(out, a);
	}
}

void tf_run_describe_status(int status, struct tf_buf *out)
{
	if (status > 128)
		tf_buf_addf(out, "killed by signal %d (%s)", status - 128,
			    strsignal(status - 128));
	else
		tf_buf_addf(out, "exit status %d", status);
}

/* Build the child's environment: ours plus r->env, or r->env alone. */
static char **child_env(struct tf_run *r, struct tf_strvec *merged)
{
	size_t i, j;

	if (r->clean_env)
		return r->env.v;
	for (i = 0; environ[i]; i++) {
		size_t klen = strcspn(environ[i], "=");
		int overridden = 0;

		if (tz_pinned && !strcmp(environ[i], "TZ=" PINNED_TZ))
			continue;
		for (j = 0; j < r->env.nr && !overridden; j++)
			overridden = !strncmp(r->env.v[j], environ[i], klen) &&
				     r->env.v[j][klen] == '=';
		if (!overridden)
			tf_strvec_push(merged, environ[i]);
	}
	tf_strvec_pushv(merged, (const char *const *)r->env.v);
	return merged->v;
}

/* Close the descriptors in [from, to]; none when from > to. */
static void close_span(unsigned int from, unsigned int to)
{
	unsigned int fd;

	if (from > to || !close_range(from, to, 0))
		return;
	for (fd = from; fd <= to && fd < 65536; fd++)
		close((int)fd);
}

/*
 * Close every descriptor above 2: what tfbuild's caller left open (a
 * `7<secret`, a socket) and tfbuild's own (a lock) never reach a tool
 * or a step.
 */
static void close_above_stderr(void)
{
	close_span(3, ~0U);
}

/* Close every descriptor above 2 but a and b. */
static void keep_only(int a, int b)
{
	unsigned int lo = (unsigned int)(a < b ? a : b),
		     hi = (unsigned int)(a < b ? b : a);

	close_span(3, lo - 1);
	close_span(lo + 1, hi - 1);
	close_span(hi + 1, ~0U);
}

/*
 * Die with the process that forked us (SIGKILL), not after it: a
 * supervisor killed with tfbuild takes bwrap along (--die-with-parent),
 * and with it every process of the step. If that parent is already gone
 * (reparented before the prctl), end now.
 */
static void die_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
}

/* In the child, after fork: never returns. */
static void exec_child(struct tf_run *r, char **envp, int out_fd)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0) {
		dup2(null, 0);
		close(null);
	}
	if (out_fd >= 0) {
		dup2(out_fd, 1);
		dup2(out_fd, 2);
	}
	close_above_stderr();
	if (r->dir && chdir(r->dir) < 0) {
		dprintf(2, "tfbuild: cannot change to '%s': %s\n", r->dir,
			strerror(errno));
		_exit(127);
	}
	signal(SIGPIPE, SIG_DFL);
	{
		/* The build loop blocks signals it waits for; a child must not
		 * inherit that, or SIGTERM could not stop it. */
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	execvpe(r->argv.v[0], r->argv.v, envp);
	dprintf(2, "tfbuild: cannot run '%s': %s\n", r->argv.v[0],
		strerror(errno));
	_exit(127);
}

/*
 * A log with a cap: the first max bytes, then only a ring of the last
 * TF_RUN_LOG_TAIL, written at the end after a line saying how many
 * bytes were dropped. A step printing 2 GB leaves a log of max + 64 KiB
 * whose last lines are still the step's last lines.
 */
struct capped {
	int fd;
	unsigned long long max, written, over; /* over: bytes past max */
	char *ring;                            /* TF_RUN_LOG_TAIL bytes */
	size_t head;                           /* next byte of ring to write */
};

static void capped_add(struct capped *c, const char *p, size_t n)
{
	size_t k = 0;

	if (!c->max || c->written < c->max) {
		k = !c->max || n < c->max - c->written
			    ? n
			    : (size_t)(c->max - c->written);
		if (tf_write_all(c->fd, p, k) < 0)
			return;
		c->written += k;
	}
	for (c->over += n - k; k < n; k++) {
		c->ring[c->head] = p[k];
		c->head = (c->head + 1) % TF_RUN_LOG_TAIL;
	}
}

static void capped_end(struct capped *c)
{
	size_t kept =
		c->over < TF_RUN_LOG_TAIL ? (size_t)c->over : TF_RUN_LOG_TAIL;
	size_t from = (c->head + TF_RUN_LOG_TAIL - kept) % TF_RUN_LOG_TAIL;
	size_t first =
		kept < TF_RUN_LOG_TAIL - from ? kept : TF_RUN_LOG_TAIL - from;

	if (!c->over)
		return;
	if (c->over > kept)
		dprintf(c->fd,
			"\n[tfbuild: the log is capped at %llu bytes "
			"(TFBUILD_STEP_LOG_MAX): %llu bytes of output were "
			"dropped; its last %zu bytes follow]\n",
			c->max, c->over - kept, kept);
	tf_write_all(c->fd, c->ring + from, first);
	tf_write_all(c->fd, c->ring, kept - first);
}

/*
 * The supervisor of a step's output: runs the command with its output
 * on a pipe, keeps it in the log within the cap and, with a tee prefix,
 * copies each line, prefixed, to stderr. Exits with the command's
 * status so the parent sees one child either way.
 */
static void supervise(struct tf_run *r, char **envp, int log_fd)
{
	struct tf_buf line = TF_BUF_INIT;
	struct capped c = { log_fd, r->log_max, 0, 0, NULL, 0 };
	char chunk[4096];
	int fds[2], status = 0, done = 0, drained = 0;
	ssize_t n = -1;
	pid_t pid, parent = getpid();

	c.ring = malloc(TF_RUN_LOG_TAIL);
	if (!c.ring || pipe2(fds, O_CLOEXEC) < 0)
		_exit(127);
	pid = fork();
	if (pid < 0)
		_exit(127);
	if (!pid) {
		die_with(parent);
		exec_child(r, envp, fds[1]);
	}
	close(fds[1]);
	/* The supervisor itself holds only its log and the pipe: nothing
	 * of tfbuild's (the build tree's lock) outlives tfbuild in it. */
	keep_only(log_fd, fds[0]);
	/* Stopping a step signals its group: the supervisor stays to write
	   the tail once the command is gone (SIGKILL still ends it). */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Until the command ends, not until the pipe does: a process it
	   left behind may hold the pipe open (it is stopped later). */
	while (!done) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		ssize_t i;

		if (waitpid(pid, &status, WNOHANG) == pid) {
			done = 1;
			fcntl(fds[0], F_SETFL, O_NONBLOCK); /* drain, then go */
		} else if (poll(&p, 1, 100) <= 0) {
			continue;
		}
		while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			capped_add(&c, chunk, (size_t)n);
			for (i = 0; r->tee_prefix && i < n; i++) {
				tf_buf_addch(&line, chunk[i]);
				if (chunk[i] == '\n') {
					dprintf(2, "%s%s", r->tee_prefix,
						line.buf);
					tf_buf_reset(&line);
				}
			}
			/* One read, then look at the child; once it is gone,
			   what is there, bounded against a stray that writes
			   on. */
			if (!done || ++drained > 256)
				break;
		}
		if (!n && !done) { /* EOF: the command closed its output */
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			done = 1;
		}
	}
	capped_end(&c);
	if (line.len)
		dprintf(2, "%s%s\n", r->tee_prefix, line.buf);
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WEXITSTATUS(status));
}

/* With -vv, the exact command and where it runs. */
static void announce(const struct tf_run *r)
{
	struct tf_buf cmd = TF_BUF_INIT;

	if (tf_verbosity < 2)
		return;
	tf_run_quote_argv(&r->argv, &cmd);
	if (r->dir)
		verbose("run: %s (in %s)", cmd.buf, r->dir);
	else
		verbose("run: %s", cmd.buf);
	tf_buf_release(&cmd);
}

/* How fork_child sets up the child before it runs r's command. */
struct child_setup {
	int out_fd;      /* its stdout and stderr; -1: ours */
	int supervised;  /* 1: out_fd is a log that supervise() keeps */
	int with_parent; /* 1: it dies with tfbuild (die_with) */
	int own_pgrp;    /* 1: a process group of its own (both sides set
			    it: whichever runs first, the group exists when
			    tracked) */
};

/*
 * Fork and exec r's command with envp as s says, and track the child
 * for the fatal-signal handler (signals.h). Returns 0 with r->pid set,
 * or -1 with an error printed.
 */
static int fork_child(struct tf_run *r, char **envp,
		      const struct child_setup *s)
{
	pid_t parent = getpid();
	sigset_t mask;

	announce(r);
	fflush(NULL);
	/* Blocked until the child is tracked: a signal in between would
	 * leave it running (signals.h). */
	tf_signals_block(&mask);
	r->pid = fork();
	if (r->pid < 0) {
		int e = errno;

		tf_signals_restore(&mask);
		r->pid = 0;
		errno = e;
		return error_errno("cannot fork to run '%s'", r->argv.v[0]);
	}
	if (!r->pid) {
		if (s->with_parent)
			die_with(parent);
		tf_signals_child();
		if (s->own_pgrp)
			setpgid(0, 0);
		else if (r->own_group)
			setsid();
		if (s->supervised)
			supervise(r, envp, s->out_fd);
		exec_child(r, envp, s->out_fd);
	}
	if (s->own_pgrp)
		setpgid(r->pid, r->pid);
	tf_signals_child_add(r->pid);
	tf_signals_restore(&mask);
	return 0;
}

int tf_run_start(struct tf_run *r)
{
	struct tf_strvec merged = TF_STRVEC_INIT;
	struct child_setup s = { .out_fd = -1, .with_parent = 1 };
	int ret;

	if (!r->argv.nr)
		BUG("tf_run_start with an empty argv");
	if (r->log_path) {
		s.out_fd =
			open(r->log_path,
			     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (s.out_fd < 0)
			return error_errno("cannot open log '%s'", r->log_path);
		s.supervised = r->tee_prefix || r->log_max;
	}
	ret = fork_child(r, child_env(r, &merged), &s);
	if (s.out_fd >= 0)
		close(s.out_fd);
	tf_strvec_release(&merged);
	return ret;
}

/*
 * Wait for pid to end and reap it, forgetting it in between: it is
 * tracked for the fatal-signal handler until it ended, and its pid
 * cannot be given to another process before it is reaped.
 */
static int reap(pid_t pid, int *status)
{
	siginfo_t info;

	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return -1;
	tf_signals_child_forget(pid);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/*
 * Wait for a started child. Returns its exit status (0-255), 128 + the
 * signal number if it was killed, or -1 if waiting failed.
 */
static int tf_run_wait(struct tf_run *r)
{
	int status;

	if (!r->pid)
		BUG("tf_run_wait on a child that was not started");
	if (reap(r->pid, &status) < 0) {
		r->pid = 0;
		return error_errno("cannot wait for '%s'", r->argv.v[0]);
	}
	r->pid = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Grace between SIGTERM and SIGKILL for a child past its time. */
#define STOP_GRACE_MS 2000

/*
 * Stop a child past its time as a step past its limit is stopped: its
 * group gets SIGTERM, then, after the grace or once the child is gone,
 * SIGKILL for whatever of the group is left.
 */
static void stop_group(pid_t pid)
{
	long long until = mono_ms() + STOP_GRACE_MS;
	struct timespec tick = { 0, 50 * 1000000L };

	kill(-pid, SIGTERM);
	for (;;) {
		siginfo_t info;

		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info,
			   WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == pid)
			break;
		if (mono_ms() >= until)
			break;
		nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);
}

/* Read the child's output until it closes it or deadline_ms passes. */
static int read_until(int fd, struct tf_buf *out, size_t cap,
		      long long deadline_ms)
{
	char chunk[4096];
	ssize_t n;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		long long left = deadline_ms ? deadline_ms - mono_ms() : -1;

		if (deadline_ms && left <= 0)
			return 1;
		if (poll(&p, 1,
			 left < 0       ? -1
			 : left > 60000 ? 60000
					: (int)left) <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (out->len < cap)
			tf_buf_add(out, chunk,
				   (size_t)n < cap - out->len ? (size_t)n
							      : cap - out->len);
	}
}

int tf_run_capture(struct tf_run *r, struct tf_buf *out, size_t cap)
{
	return tf_run_capture_within(r, out, cap, 0, NULL);
}

int tf_run_capture_within(struct tf_run *r, struct tf_buf *out, size_t cap,
			  long seconds, int *timed_out)
{
	struct tf_strvec merged = TF_STRVEC_INIT;
	long long deadline = seconds > 0 ? mono_ms() + seconds * 1000LL : 0;
	/* A group of its own, so that a fatal signal to tfbuild reaches
	 * all it starts (a pyenv shim and its python, say): the handler
	 * sends it on to the group (signals.h). */
	struct child_setup s = { .own_pgrp = 1 };
	int fds[2], late, ret;

	if (timed_out)
		*timed_out = 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return error_errno("cannot create a pipe");
	s.out_fd = fds[1];
	ret = fork_child(r, child_env(r, &merged), &s);
	close(fds[1]);
	tf_strvec_release(&merged);
	if (ret < 0) {
		close(fds[0]);
		return -1;
	}
	late = read_until(fds[0], out, cap, deadline);
	if (late) {
		stop_group(r->pid);
		if (timed_out)
			*timed_out = 1;
	}
	close(fds[0]);
	return tf_run_wait(r);
}

int tf_run_tool(const char *const *argv, const char *dir, struct tf_buf *out,
		size_t cap)
{
	struct tf_run r = TF_RUN_INIT;
	int status;

	tf_strvec_pushv(&r.argv, argv);
	r.clean_env = 1;
	tf_strvec_pushf(&r.env, "PATH=%s", tf_run_path);
	tf_strvec_push(&r.env, "LC_ALL=C");
	r.dir = dir;
	status = tf_run_capture(&r, out, cap);
	tf_run_release(&r);
	return status;
}

/* The parent pid of pid, from /proc/PID/stat; -1 if it is gone. */
static pid_t parent_of(const char *pid)
{
	char path[64], text[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')'. */
	rp = strrchr(text, ')');
	if (!rp || rp[1] != ' ' || !rp[2] || rp[3] != ' ')
		return -1;
	return (pid_t)atol(rp + 4);
}

int tf_run_kill_strays(struct tf_run **keep, size_t n, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	int count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atol(e->d_name);
		size_t i;

		if (pid <= 0 || parent_of(e->d_name) != self)
			continue;
		for (i = 0; i < n; i++)
			if (keep[i] && keep[i]->pid == pid)
				break;
		if (i < n)
			continue;
		/* Its group too: a stray that started a session of its own. */
		kill(-pid, sig);
		kill(pid, sig);
		count++;
	}
	closedir(d);
	return count;
}

void tf_run_release(struct tf_run *r)
{
	if (!r)
		return;
	tf_strvec_release(&r->argv);
	tf_strvec_release(&r->env);
}

const char tf_run_path[] =
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

char *tf_run_which(const char *prog)
{
	struct tf_buf b = TF_BUF_INIT;
	const char *p = tf_run_path;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? tf_strdup(prog) : NULL;
	while (*p) {
		size_t n = strcspn(p, ":");

		tf_buf_setf(&b, "%.*s/%s", (int)n, p, prog);
		if (access(b.buf, X_OK) == 0)
			return tf_buf_detach(&b);
		p += n + (p[n] == ':');
	}
	tf_buf_release(&b);
	return NULL;
}
