#ifndef TF_RUN_H
#define TF_RUN_H

/*
 * Child processes: fork and exec with an explicit argv, environment,
 * directory and log file. No shell is involved unless argv[0] is one.
 * With tf_verbosity >= 2 the exact argv is printed before it runs.
 */

#include <sys/types.h>

#include "buf.h"

struct tf_run {
	struct tf_strvec argv; /* owned; argv.v[0] is looked up in PATH */
	struct tf_strvec env;  /* owned; the whole environment if clean_env */
	int clean_env;   /* 1: env is all the child gets; 0: env adds to ours */
	const char *dir; /* borrowed; directory to run in, NULL for ours */
	const char *
		log_path; /* borrowed; stdout+stderr appended here, NULL: ours */
	const char *tee_prefix; /* borrowed; with log_path, also copy output live
				   to stderr, each line prefixed (NULL: don't) */
	unsigned long long log_max; /* with log_path: bytes the log keeps
				       before dropping output (its last
				       TF_RUN_LOG_TAIL bytes are kept, after
				       a line saying how much went); 0: all */
	pid_t pid;     /* set by tf_run_start; 0 when not running */
	int own_group; /* 1: the child starts a session of its own, so
				  a kill of -pid reaches all it starts */
};

#define TF_RUN_INIT                                                          \
	{                                                                    \
		TF_STRVEC_INIT, TF_STRVEC_INIT, 0, NULL, NULL, NULL, 0, 0, 0 \
	}

/* What a capped log keeps of the output past its cap: its end. */
#define TF_RUN_LOG_TAIL (64 << 10)

/*
 * Set TZ for this process when the user left it unset, so local time is
 * not looked up again at every mktime(); children still get the
 * environment the user gave. Call once, first thing in main.
 */
void tf_run_pin_tz(void);
/* Start the child. Returns 0, or -1 with an error printed. */
int tf_run_start(struct tf_run *r);
/*
 * Run synchronously, collecting stdout and stderr into out (appended,
 * at most cap bytes kept: the rest is read and dropped). Returns its
 * exit status (0-255), 128 + the signal number if it was killed, or -1
 * if waiting failed.
 */
int tf_run_capture(struct tf_run *r, struct tf_buf *out, size_t cap);
/*
 * tf_run_capture within a time bound: past `seconds` (0: none) the
 * child's group is stopped as a step past its limit is (SIGTERM, then
 * SIGKILL after a grace of 2 s), *timed_out (if not NULL) is set to 1,
 * and its status is returned as tf_run_wait gives it (128 + the signal).
 */
int tf_run_capture_within(struct tf_run *r, struct tf_buf *out, size_t cap,
			  long seconds, int *timed_out);
/*
 * Run a tool for tfbuild's own questions (apt-cache, dpkg, a compiler's
 * version): argv in dir (NULL: ours) with only PATH=tf_run_path and
 * LC_ALL=C in its environment, so that its answer does not depend on
 * the caller's locale or PATH; its output kept as tf_run_capture keeps
 * it, and its status returned as tf_run_capture returns it.
 */
int tf_run_tool(const char *const *argv, const char *dir, struct tf_buf *out,
		size_t cap);
/*
 * Send sig to every child of this process that is not in keep[0..n)
 * (NULL entries skipped): descendants of steps that left their session
 * and were re-parented here (see PR_SET_CHILD_SUBREAPER). Returns how
 * many were signalled.
 */
int tf_run_kill_strays(struct tf_run **keep, size_t n, int sig);
/* Free argv and env; safe twice. */
void tf_run_release(struct tf_run *r);

/* Describe a status from tf_run_capture: "exit status 2", "signal 11 (...)". */
void tf_run_describe_status(int status, struct tf_buf *out);
/* s as one shell word in single quotes ('\'' for a quote), appended to
   out: for the scripts tfbuild writes. */
void tf_run_quote_word(struct tf_buf *out, const char *s);
/* Shell-quote argv into out, for -v and error messages. */
void tf_run_quote_argv(const struct tf_strvec *argv, struct tf_buf *out);

/* Full path of prog in tf_run_path (or prog itself if it has a
 * '/' and is executable); NULL if not found. Caller frees. */
char *tf_run_which(const char *prog);

/* The PATH every step and tool lookup uses: fixed, not the caller's. */
extern const char tf_run_path[];

#endif
