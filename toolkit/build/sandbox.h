#ifndef TF_SANDBOX_H
#define TF_SANDBOX_H

/*
 * The step sandbox (docs/security.md#the-step-sandbox): each step runs
 * under bubblewrap, with the network, processes and file system it may
 * touch, and nothing else. Private to build/.
 */

#include "base/base.h"
#include "plan/plan.h"

struct tf_build_opts;

/*
 * Whether a sandbox can be made here: bwrap ($TFBUILD_BWRAP, or bwrap in
 * the fixed PATH) run once with every namespace a step gets. Asked once
 * per run (the answer is kept until tf_sandbox_forget); 0, or -1 after
 * saying, once, why not and what to do.
 */
int tf_sandbox_ready(void);
/* Forget the probe's answer: the next run asks again. */
void tf_sandbox_forget(void);

/*
 * The argv that runs step ps of p in its sandbox: bwrap, its options
 * (namespaces, the file system's view, the step's directory), then
 * cmd. env is the step's whole environment (it reaches the step through
 * bwrap's own, which holds nothing else). Appended to argv.
 */
void tf_sandbox_argv(const struct tf_plan *p, const struct tf_plan_step *ps,
		     const struct tf_build_opts *o, const struct tf_strvec *env,
		     const char *const *cmd, struct tf_strvec *argv);

/* 1 if ps's sandbox keeps the network: `network: true`, or distcc. */
int tf_sandbox_network(const struct tf_plan *p, const struct tf_plan_step *ps);

#endif
