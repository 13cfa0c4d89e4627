#ifndef TF_BUILD_H
#define TF_BUILD_H

/*
 * build/: the steps run: dependency order, `--jobs` children, logs,
 * stamps and the cache deciding what need not run again (below).
 *
 * The steps of one or more plans (one per target) run as child processes,
 * in dependency order, up to `jobs` at a time. Steps of different targets
 * are independent, so targets build side by side.
 */

#include <stddef.h>

struct tf_plan;

struct tf_cache;

struct tf_build_opts {
	int jobs;       /* most steps running at once, >= 1 */
	int keep_going; /* 1: after a failure, go on with steps that don't need it */
	int force;      /* 1: run every step, whatever the stamps say */
	long long timeout; /* --timeout, seconds: every step's limit, over the
			      recipe's `timeout`; 0: the recipe's or default */
	struct tf_cache *cache; /* borrowed: the build cache, or NULL */
	const char *cache_dir;  /* borrowed: absolute cache directory (a
				      place cache keys do not depend on) */
	int no_sandbox; /* --sandbox=off: steps run without bubblewrap */
	const char *signing_key; /* borrowed: the cache's signing key, hidden
				    from steps, or NULL */
	const char *attestation_key; /* borrowed: --attestation-key, hidden
					from steps, or NULL */
};

/* A step's or test's time limit when neither the recipe nor --timeout sets one. */
#define TF_BUILD_DEFAULT_TIMEOUT (60 * 60)
/* After SIGTERM, how long a stopped step's processes get before SIGKILL. */
#define TF_BUILD_KILL_GRACE 2

/*
 * The signal (SIGINT, SIGTERM, SIGHUP) that interrupted the last
 * tf_build_run, or 0. Commands exit with 128 + it.
 */
extern int tf_build_signal;

/*
 * Run every step of every plan that is not up to date. Each step runs in
 * a bubblewrap sandbox (sandbox.c, docs/security.md), unless
 * o->no_sandbox, in a session of its own; past its time limit, or when tfbuild gets
 * SIGINT, SIGTERM or SIGHUP, its whole process group (emulator included)
 * gets SIGTERM, then SIGKILL after TF_BUILD_KILL_GRACE seconds, and
 * processes that escaped into sessions of their own are reaped through
 * PR_SET_CHILD_SUBREAPER and stopped too. Steps that read one source
 * tree never run at the same time (one tree per running step). A step is up to
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
 * Check every step's `sandbox: {read: [...]}` (docs/recipe.md#sandbox)
 * before anything runs: each path must exist and not be `/`, in /proc
 * or /dev, or what steps never see (o's keys, credentials files, the
 * cache's store). Each refusal is reported once at its FILE:LINE:COL;
 * 0, or -1 (the command exits 3).
 */
int tf_build_check_reads(struct tf_plan **plans, size_t nr_plans,
			 const struct tf_build_opts *o);

/*
 * Say, for every step of every plan, whether a run would build it and
 * why ("source 'backend' changed", "needs 'backend', which will run"),
 * on stdout. Source keys must be set (tf_sources_stamp). Returns 0.
 */
int tf_build_explain(struct tf_plan **plans, size_t nr_plans,
		     const struct tf_build_opts *o);

#endif
