#ifndef TF_LOG_H
#define TF_LOG_H

/*
 * Messages and exit codes.
 *
 * A failure is reported once, where its context is known, as one line:
 *   tfbuild: recipes/demo.yaml:12:5: unknown key 'sourse' in 'sources[0]'
 * error() prints such a line and returns -1, so failure paths read
 * `return error(...)`. Only main() and the cmd_*.c files exit.
 */

#include <stdarg.h>

/* Exit codes: stable, documented in docs/exit-codes.md and `tfbuild --help`. */
enum tf_exit {
	TF_EXIT_OK = 0,
	TF_EXIT_FAILURE = 1, /* anything not covered below */
	TF_EXIT_USAGE = 2,   /* bad command line */
	TF_EXIT_RECIPE = 3,  /* recipe does not parse or validate */
	TF_EXIT_FETCH = 4,   /* download or checksum failure */
	TF_EXIT_BUILD = 5,   /* extract, patch or build step failure */
	TF_EXIT_WHEEL = 6,   /* wheel could not be written or failed verification */
};

/* 0 quiet (-q), 1 normal, 2 verbose (-v), 3 and up more verbose. */
extern int tf_verbosity;

#if defined(__GNUC__)
#define TF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TF_NORETURN __attribute__((noreturn))
#else
#define TF_PRINTF(a, b)
#define TF_NORETURN
#endif

/* Print "tfbuild: MSG" to stderr; return -1. */
int error(const char *fmt, ...) TF_PRINTF(1, 2);
/* Like error(), with ": strerror(errno)" appended; return -1. */
int error_errno(const char *fmt, ...) TF_PRINTF(1, 2);
/* Print "tfbuild: warning: MSG" to stderr. */
void warning(const char *fmt, ...) TF_PRINTF(1, 2);
/* Progress for humans on stderr, hidden by -q. */
void info(const char *fmt, ...) TF_PRINTF(1, 2);
/* Detail shown only with -v. */
void verbose(const char *fmt, ...) TF_PRINTF(1, 2);
/* Print "tfbuild: MSG" and exit with CODE. Top level only. */
TF_NORETURN void die(int code, const char *fmt, ...) TF_PRINTF(2, 3);

TF_NORETURN void tf_bug(const char *file, int line, const char *fmt, ...)
	TF_PRINTF(3, 4);
/* A broken internal assumption: report file and line, then abort. */
#define BUG(...) tf_bug(__FILE__, __LINE__, __VA_ARGS__)

#endif
