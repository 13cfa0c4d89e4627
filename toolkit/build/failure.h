#ifndef TF_BUILD_FAILURE_H
#define TF_BUILD_FAILURE_H

/*
 * build/ inside: what a failed step's user is shown: the end of its log,
 * and for a test that died of an illegal instruction on the baseline
 * CPU, the files whose code is above the baseline.
 */

struct tf_plan;
struct tf_plan_step;

/* The last lines of log on stderr, whatever the log's size. */
void tf_build_show_tail(const char *log);
/*
 * Test ps of p failed with status on the baseline CPU: on an illegal
 * instruction, say so and name the suspects (isa/'s tf_isa_blame).
 */
void tf_build_baseline_failure(const struct tf_plan *p,
			       const struct tf_plan_step *ps, int status);

/*
 * Step ps of p's cross target exited 127 and its log says "X: command
 * not found" for an X the build machine has: point at `host-tools`,
 * at the step's position in the recipe.
 */
void tf_build_host_tool_failure(const struct tf_plan *p,
				const struct tf_plan_step *ps, int status);

/*
 * Step ps of p failed in the sandbox and its log's last lines speak of a
 * pseudo terminal (/dev/ptmx, openpty): say that steps get none, at the
 * step's position in the recipe.
 */
void tf_build_terminal_failure(const struct tf_plan *p,
			       const struct tf_plan_step *ps);
#endif
