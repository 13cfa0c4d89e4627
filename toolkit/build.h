#ifndef TF_BUILD_H
#define TF_BUILD_H

/*
 * Build: run the steps of one or more plans (one per target) as child
 * processes, in dependency order, up to `jobs` at a time. Steps of
 * different targets are independent, so targets build side by side.
 */

#include <stddef.h>

#include "plan.h"

struct tf_build_opts {
	int jobs;       /* most steps running at once, >= 1 */
	int keep_going; /* 1: after a failure, go on with steps that don't need it */
	int force;      /* 1: run every step, whatever the stamps say */
};

/*
 * Run every step of every plan that is not up to date. A step is up to
 * date when its stamp shows the same inputs as now (tfbuild's version,
 * target, toolchain identity, script, environment, the trees of the
 * sources it reads, the outputs of the steps it needs) and its stage
 * still holds what it produced. A step that runs starts with empty work
 * and stage directories, a freshly prepared source tree and a fresh
 * log. On a failure, report the step, the target, its exit status, the
 * last lines of its log and the log's path. Returns 0 if every step
 * succeeded, else -1; *ran (if not NULL) gets how many steps ran.
 */
int tf_build_run(struct tf_plan **plans, size_t nr_plans,
		 const struct tf_build_opts *o, size_t *ran);

/*
 * Say, for every step of every plan, whether a run would build it and
 * why ("source 'backend' changed", "needs 'backend', which will run"),
 * on stdout. Source keys must be set (tf_sources_stamp). Returns 0.
 */
int tf_build_explain(struct tf_plan **plans, size_t nr_plans,
		     const struct tf_build_opts *o);

#endif
