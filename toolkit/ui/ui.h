#ifndef TF_UI_H
#define TF_UI_H

/*
 * ui/: what the user, a CI log or a pipeline sees of a run: the sink of
 * every message (log.h), the terminal status line, GitHub Actions groups
 * and annotations (ui.c), and --json events (ui_event.c).
 *
 * Every message goes through tf_ui_report(): tf_ui_setup() makes it the
 * sink of log.c, which hands it each line after cleaning control
 * characters. The stages tell the UI what happens with
 * one-line calls (tf_ui_step_started() and friends); the UI decides how
 * to show it:
 *   - on a terminal, a status line at the bottom, redrawn in place: the
 *     targets, the source being fetched with bytes and rate, the steps
 *     running with their elapsed time. Messages print above it; after
 *     the first error it is gone for good, so nothing hides an error;
 *   - otherwise plain lines, each finished step with its time;
 *   - with GITHUB_ACTIONS=true, each step's log folded in a
 *     ::group::/::endgroup:: block and errors as ::error annotations at
 *     their recipe position (on stdout, where the runner reads them);
 *   - with --json, one JSON object per line on stdout for each event
 *     (docs/events.md); messages still go to stderr as text.
 */

#include <stddef.h>

/* How a step ended. */
enum tf_ui_step {
	TF_UI_STEP_OK,         /* ran and succeeded */
	TF_UI_STEP_FAILED,     /* ran and failed */
	TF_UI_STEP_UP_TO_DATE, /* did not run: nothing changed */
	TF_UI_STEP_SKIPPED,    /* did not run: a step it needs failed */
};

/*
 * Choose the output from --color (NULL: auto), --json, the environment
 * (NO_COLOR, GITHUB_ACTIONS, TERM) and whether stderr is a terminal.
 * Returns 0.
 */
int tf_ui_setup(const char *color, int json);
/* The run is over: clear the status line, emit the final event. */
void tf_ui_finish(int exit_code);
/* 1 if --json is on: commands keep stdout for the events. */
int tf_ui_json(void);

/* The targets of this run, for the status line. */
void tf_ui_targets(const char *const *names, size_t nr);
/* Bytes of a download so far (label: "source 'x'"). */
void tf_ui_fetch_progress(const char *label, long long bytes);
/* A source is in the cache (url already without credentials). */
void tf_ui_source_fetched(const char *name, const char *url, const char *sha256,
			  const char *path);
/* How many steps the build has in all. */
void tf_ui_steps_total(size_t nr);
void tf_ui_step_started(const char *target, const char *step,
			const char *reason);
/* seconds and log only for steps that ran (log: NULL otherwise). */
void tf_ui_step_finished(const char *target, const char *step,
			 enum tf_ui_step how, double seconds, const char *log);
void tf_ui_wheel_written(const char *path, const char *sha256);

/* --- between ui.c and ui_event.c --- */
void tf_ui_event_open(void);
/* Emit {"event": name, ...} with the pairs KEY, TYPE, VALUE (jansson's
   json_pack format after "event"), e.g. ui_event("wheel", "{s:s}", ...). */
void tf_ui_event(const char *name, const char *fmt, ...);
double tf_ui_now(void);

#endif
