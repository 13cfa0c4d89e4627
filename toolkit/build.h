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
};

/*
 * Run every step of every plan. Each step starts with empty work and
 * stage directories and a fresh log. On a failure, report the step, the
 * target, its exit status, the last lines of its log and the log's
 * path. Returns 0 if every step succeeded, else -1.
 */
int tf_build_run(struct tf_plan **plans, size_t nr_plans,
		 const struct tf_build_opts *o);

#endif
