#ifndef TF_LOG_H
#define TF_LOG_H

/*
 * Messages and exit codes, and the one failure convention every file in
 * toolkit/ follows:
 *
 * 1. A function that can fail returns 0, or -1 after reporting the
 *    failure once, with error(), where its context is known, as one line:
 *      tfbuild: recipes/demo.yaml:12:5: unknown key 'sourse' in 'sources[0]'
 *    so failure paths read `return error(...)`, and a caller that gets -1
 *    reports nothing more. Errors at a recipe position go through
 *    tf_error_at() (recipe/recipe.h), which keeps FILE, LINE and COL apart
 *    for CI annotations and JSON events.
 * 2. A function with more than two outcomes returns a named enum (enum
 *    tf_plan_result, enum tf_elf_read, ...), never a meaning given to -1,
 *    0 and 1, nor a count of errors.
 * 3. A function named *_check never prints: it explains a refusal in a
 *    `why` buffer, `int tf_x_check(const char *v, struct tf_buf *why)`,
 *    returns 0, or -1 with why filled, and its caller reports. A function
 *    that checks and reports is named for what it does (*_verify,
 *    *_validate).
 * 4. --help, -V and usage errors are handled by the command table
 *    (cli/cli.h), never signalled by a parser's return value.
 * 5. Only the commands (cli/) decide exit codes, from enum tf_exit;
 *    main() is the only exit. Below them nothing exits but
 *    tf_out_of_memory() (base/buf.h) and BUG(), for the two failures no
 *    caller can handle. toolkit/LAYERS holds `calls die: cli/`, so no
 *    die() can come back below the commands.
 * 6. Text that came from input (archive member names, patch file names,
 *    URLs, recipe strings) is passed to the reporting functions as is:
 *    they, and only they, show control characters as '?' so that no
 *    message can drive the terminal or break a log line.
 *
 * The exit codes are listed, with what each command returns, in
 * docs/exit-codes.md and by `tfbuild --help`.
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
	TF_EXIT_WHEEL =
		6, /* wheel could not be written or failed verification */
	TF_EXIT_BUSY =
		7, /* build tree or output folder locked by another run */
};

/* How much a message matters: error(), warning(), info(), verbose(). */
enum tf_level {
	TF_LEVEL_ERROR,
	TF_LEVEL_WARNING,
	TF_LEVEL_INFO,
	TF_LEVEL_VERBOSE,
};

/*
 * Where every message goes, once its text is made safe (rule 6): FILE
 * is NULL or the recipe position's file. The default prints
 * "tfbuild: [warning: ][FILE:LINE:COL: ]MSG" on stderr; the UI, a layer
 * above, sets its own (ui/ui.h: colours, the status line, annotations,
 * JSON events) when it is set up. NULL sets the default back.
 */
typedef void tf_log_sink(enum tf_level level, const char *file, int line,
			 int col, const char *msg);
void tf_log_set_sink(tf_log_sink *sink);

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
/* Print "tfbuild: FILE:LINE:COL: MSG" to stderr; return -1. */
int error_at(const char *file, int line, int col, const char *fmt, ...)
	TF_PRINTF(4, 5);
/* Like error(), with ": strerror(errno)" appended; return -1. */
int error_errno(const char *fmt, ...) TF_PRINTF(1, 2);
/* Print "tfbuild: warning: MSG" to stderr. */
void warning(const char *fmt, ...) TF_PRINTF(1, 2);
/* Progress for humans on stderr, hidden by -q. */
void info(const char *fmt, ...) TF_PRINTF(1, 2);
/* Detail shown only with -v. */
void verbose(const char *fmt, ...) TF_PRINTF(1, 2);

TF_NORETURN void tf_bug(const char *file, int line, const char *fmt, ...)
	TF_PRINTF(3, 4);
/* A broken internal assumption: report file and line, then abort. */
#define BUG(...) tf_bug(__FILE__, __LINE__, __VA_ARGS__)

#endif
