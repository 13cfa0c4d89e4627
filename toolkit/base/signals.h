#ifndef TF_SIGNALS_H
#define TF_SIGNALS_H

/*
 * Dying of SIGINT, SIGTERM or SIGHUP at any moment without leaving
 * anything behind (docs/security.md#signals). main() installs a handler
 * that, in the main thread only (another thread that takes the signal
 * hands it on to the main thread):
 *   1. sends the signal on to every child tracked below, to its whole
 *      process group, waits up to TF_SIGNALS_GRACE seconds for it, then
 *      SIGKILLs the group;
 *   2. removes every temporary file or directory registered below
 *      (directories with all they hold);
 *   3. dies of the signal (SIG_DFL, raise), so the caller sees 130, 143
 *      or 129, as from any program.
 * The handler uses only async-signal-safe calls and reads fixed slots
 * claimed with atomic operations. The build loop (build.c) blocks these
 * signals and stops its steps itself; main() then dies of the signal it
 * reports.
 */

#include <signal.h>
#include <sys/types.h>

/* Seconds between forwarding the signal and SIGKILL. */
#define TF_SIGNALS_GRACE 2

/* Install the handler; from main(), once, before any thread starts. */
void tf_signals_catch(void);
/* Block SIGINT/SIGTERM/SIGHUP in the calling thread; *old gets the mask. */
void tf_signals_block(sigset_t *old);
/* Restore the mask tf_signals_block saved. */
void tf_signals_restore(const sigset_t *old);
/* In a thread tfbuild starts: never take these signals there. */
void tf_signals_worker(void);
/* In a child just forked: the default action again (the mask is kept). */
void tf_signals_child(void);

/*
 * Track a child (call with the signals blocked, between fork and the
 * restore, so no child is ever untracked while alive); forget it once
 * it has exited and before it is reaped (its pid cannot be reused
 * meanwhile).
 */
void tf_signals_child_add(pid_t pid);
void tf_signals_child_forget(pid_t pid);

/*
 * Create a temporary file (mkostemp) or directory (mkdtemp) from tmpl
 * and register it, with the signals blocked in between, so a death
 * leaves neither behind. The fd, or -1 / tmpl, or NULL, with errno.
 */
int tf_signals_mkstemp(char *tmpl, int flags);
char *tf_signals_mkdtemp(char *tmpl);
/*
 * Forget a path tf_signals_mkstemp or tf_signals_mkdtemp registered
 * for removal on a fatal signal: call it after renaming or removing it.
 */
void tf_signals_temp_forget(const char *path);

/*
 * Die of sig (after the normal cleanup of a command the build loop
 * stopped); returns only if that failed.
 */
void tf_signals_die(int sig);

#endif
