#ifndef TF_SESSION_H
#define TF_SESSION_H

/*
 * What the recipe-driven commands (recipe, fetch) share: their options,
 * loading the recipe, choosing targets and expanding a plan for each.
 */

#include "base/base.h"
#include "cache/cache.h"
#include "fetch/fetch.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

struct tf_cache;
struct tf_provision;

struct tf_options {
	const char *recipe;  /* borrowed from argv: the recipe path */
	const char *out_dir; /* borrowed; --out, default "wheels" */
	const char *
		cache_dir; /* owned; --cache, default $XDG_CACHE_HOME/tfbuild */
	const char *
		build_dir; /* owned; absolute; --build-dir, default beside recipe */
	int jobs;          /* --jobs, default: online CPUs */
	int offline;       /* --offline */
	int keep_going;    /* --keep-going */
	int recheck;       /* --recheck: re-hash cache hits */
	int force;         /* --force: rebuild every step */
	int lock;          /* lock the build tree and output folder (recipe) */
	int wait;          /* --wait: for those locks, instead of failing */
	int unpinned;      /* a target wheel may lack its pin (lock) */
	long long timeout; /* --timeout, seconds; 0: not given */
	const char *toolchain; /* borrowed; --toolchain FILE, or NULL */
	struct tf_strvec
		targets; /* owned; --target values ("all" expanded later) */
	struct tf_strvec sets;       /* owned; --set NAME=VALUE */
	const char *launcher;        /* borrowed; --launcher, or NULL */
	const char *distcc_hosts;    /* borrowed; --distcc-hosts, or NULL */
	struct tf_cache_opts cache;  /* config file, environment, then options;
				       .dir: the absolute cache directory */
	struct tf_strvec cache_keep; /* owned: strings cache points to */
};

struct tf_session {
	struct tf_options opt;      /* owned */
	struct tf_recipe recipe;    /* owned */
	struct tf_plan *plans;      /* owned array, one per chosen target */
	struct tf_plan **plan_ptrs; /* owned array of pointers into plans */
	size_t nr_plans;
	struct tf_provision *provisions; /* owned array, one per plan */
	struct tf_strvec targets;        /* owned: the plans' targets */
	struct tf_plan_opts plan_opts;   /* how the plans were made */
	char *cache_abs;                 /* owned: plan_opts.cache_dir */
	int read_only; /* 1: write nothing, not even the tool identities
			  and file digests remembered (explain) */
	struct tf_fetch_opts fetch; /* points into opt */
	struct tf_cache *cache; /* owned: opened by the command that builds */
	struct tf_lock build_lock; /* owned: held with opt.lock (lock.h) */
	struct tf_lock out_lock;   /* owned: held with opt.lock, unless the
				      output folder is the build tree */
};

struct tf_args;
struct tf_cmd;

/*
 * Take the recipe commands' options from the parsed command line (one
 * argument: the recipe) into s->opt, with defaults. Returns 0, or
 * TF_EXIT_USAGE after printing a usage error for command c.
 */
int tf_session_setup(struct tf_session *s, const struct tf_args *a,
		     const struct tf_cmd *c);
/*
 * Load the recipe and expand a plan for each chosen target; with
 * s->opt.lock, first lock the build tree and the output folder for the
 * whole session. Returns an exit code: 0, or TF_EXIT_RECIPE /
 * TF_EXIT_BUILD / TF_EXIT_USAGE / TF_EXIT_BUSY (another run holds a
 * lock) / TF_EXIT_FAILURE.
 */
int tf_session_open(struct tf_session *s, int check_tools);
/*
 * The provisioning stage of every plan (provision.h): the target
 * packages that no earlier run resolved are resolved, and their plans
 * made again with them; then what each target's steps are given is
 * made, and its wheels fetched. Returns an exit code: 0, or
 * TF_EXIT_RECIPE / TF_EXIT_BUILD / TF_EXIT_FETCH (a target wheel).
 */
int tf_session_provision(struct tf_session *s);
void tf_session_release(struct tf_session *s);

#endif
