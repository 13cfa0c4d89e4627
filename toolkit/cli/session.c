#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stamp/stamp.h"
#include "base/base.h"
#include "env/env.h"
#include "cache/cache.h"
#include "fetch/fetch.h"
#include "plan/plan.h"
#include "provision/provision.h"
#include "recipe/recipe.h"

static char *default_cache(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return tf_xstrfmt("%s/tfbuild", xdg);
	return tf_xstrfmt("%s/.cache/tfbuild", home && *home ? home : "/tmp");
}

static void set_defaults(struct tf_options *o)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (!o->out_dir)
		o->out_dir = "wheels";
	if (!o->cache_dir)
		o->cache_dir = default_cache();
	if (!o->jobs)
		o->jobs = n > 0 ? (int)n : 1;
}

/* The build cache's settings: config file, environment, then options. */
static int cache_options(struct tf_options *o, const struct tf_args *a,
			 const struct tf_cmd *c)
{
	struct tf_buf abs = TF_BUF_INIT;
	struct tf_cache_opts *co = &o->cache;

	co->store = 1;
	co->timeout = TF_CACHE_DEFAULT_TIMEOUT;
	if (tf_cache_config(co, &o->cache_keep))
		return TF_EXIT_USAGE;
	if (a->remote_cache)
		co->remote = *a->remote_cache ? a->remote_cache : NULL;
	if (a->remote_cache_upload)
		co->upload = 1;
	if (a->remote_cache_timeout)
		co->timeout = a->remote_cache_timeout;
	if (a->trust)
		co->trust = a->trust;
	if (a->signing_key)
		co->signing_key = a->signing_key;
	if (a->no_store)
		co->store = 0;
	if (tf_path_absolute(&abs, o->cache_dir) < 0)
		return TF_EXIT_FAILURE;
	tf_strvec_push(&o->cache_keep, abs.buf);
	co->dir = o->cache_keep.v[o->cache_keep.nr - 1];
	tf_buf_release(&abs);
	(void)c;
	return 0;
}

int tf_session_setup(struct tf_session *s, const struct tf_args *a,
		     const struct tf_cmd *c)
{
	struct tf_options *o = &s->opt;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->build_lock = (struct tf_lock)TF_LOCK_INIT;
	s->out_lock = (struct tf_lock)TF_LOCK_INIT;
	o->targets = (struct tf_strvec)TF_STRVEC_INIT;
	o->sets = (struct tf_strvec)TF_STRVEC_INIT;
	o->cache_keep = (struct tf_strvec)TF_STRVEC_INIT;
	if (a->args.nr != 1)
		return tf_usage_error(
			c, "%s",
			a->args.nr ? "too many arguments; one recipe at a time"
				   : "missing the recipe file");
	o->recipe = a->args.v[0];
	o->out_dir = a->out_dir;
	o->cache_dir = a->cache_dir ? tf_strdup(a->cache_dir) : NULL;
	o->build_dir = a->build_dir ? tf_strdup(a->build_dir) : NULL;
	o->jobs = a->jobs;
	o->offline = a->offline;
	o->keep_going = a->keep_going;
	o->recheck = a->recheck;
	o->force = a->force;
	o->wait = a->wait;
	o->toolchain = a->toolchain;
	o->launcher = a->launcher;
	o->distcc_hosts = a->distcc_hosts;
	if (a->distcc_hosts && (!a->launcher || strcmp(a->launcher, "distcc")))
		return tf_usage_error(
			c, "--distcc-hosts goes with --launcher distcc");
	if (a->timeout) {
		o->timeout = tf_parse_duration(a->timeout);
		if (o->timeout <= 0)
			return tf_usage_error(
				c,
				"--timeout wants a duration such as 90s, 30m or 2h, not '%s'",
				a->timeout);
	}
	for (i = 0; i < a->targets.nr; i++)
		tf_strvec_push(&o->targets, a->targets.v[i]);
	for (i = 0; i < a->sets.nr; i++)
		tf_strvec_push(&o->sets, a->sets.v[i]);
	set_defaults(o);
	return cache_options(o, a, c);
}

/* A target the recipe does not build: say which ones it does. */
static int refuse_target(const struct tf_recipe *r, const char *t,
			 const char *host)
{
	struct tf_buf valid = TF_BUF_INIT;
	size_t j;

	for (j = 0; j < r->nr_targets; j++)
		tf_buf_addf(&valid, "%s%s", j ? ", " : "", r->targets[j].s);
	if (!r->nr_targets)
		tf_buf_addf(&valid,
			    "%s (the host's: the recipe lists no 'targets')",
			    host);
	error("--target '%s': %s builds only %s; valid values: %s, all", t,
	      r->path, valid.buf, r->nr_targets ? valid.buf : host);
	tf_buf_release(&valid);
	return -1;
}

/* 1 if name ends in a mkstemp/mkdtemp suffix: tail, then 6 characters. */
static int temp_named(const char *name, const char *tail)
{
	size_t n = strlen(name), t = strlen(tail);

	return n >= t + 6 && !strncmp(name + n - 6 - t, tail, t) &&
	       !strchr(name + n - 6, '.');
}

/* Remove path, a directory or a file, left by an interrupted run. */
static void remove_leftover(const char *path, int dir)
{
	int failed =
		dir ? tf_rm_rf(path) != 0 : unlink(path) < 0 && errno != ENOENT;

	if (failed)
		warning("cannot remove '%s', left by an interrupted run", path);
	else
		info("removed '%s', left by an interrupted run", path);
}

/*
 * What a run killed outright (SIGKILL, a power cut) left in the output
 * folder: pack's temporary directory, and the temporary files SHA256SUMS
 * and the provenance are written through before their rename. This run
 * holds the folder's lock, so nothing else can be writing them: they
 * are stale, and go. Nothing else there is touched.
 */
static void sweep_out_dir(const char *dir)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	struct stat st;
	size_t i;

	if (!tf_path_is_dir(dir) || tf_list_dir(dir, &names))
		return;
	for (i = 0; i < names.nr; i++) {
		const char *n = names.v[i];
		int wheels = !strncmp(n, ".tfbuild-wheels.", 16) &&
			     temp_named(n, ".tfbuild-wheels.");
		int file = (!strncmp(n, "SHA256SUMS.tmp.", 15) &&
			    temp_named(n, "SHA256SUMS.tmp.")) ||
			   temp_named(n, ".intoto.json.tmp.");

		if (!wheels && !file)
			continue;
		tf_buf_reset(&path);
		tf_path_join(&path, dir, n);
		if (lstat(path.buf, &st) < 0 ||
		    (wheels ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
			continue;
		remove_leftover(path.buf, wheels);
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
}

/* 1 if name is one of the folders of a target's tree only runs write. */
static int own_folder(const char *name)
{
	return !strcmp(name, "stamps") || !strcmp(name, "src") ||
	       !strcmp(name, "stage");
}

/*
 * What a run killed outright left in the build tree: the temporaries
 * named as path.h makes them (directories ".PREFIX.XXXXXX", files
 * "NAME.tmp.XXXXXX") in each recipe's target tree (BUILD/RECIPE/TARGET)
 * under stamps, src and stage: a source being extracted and patched, a
 * step's output being restored from the cache, a stamp. Only a run
 * holding the build tree's lock, as this one does, writes there, and it
 * chooses every name (recipe names cannot start with '.'), so these are
 * stale. `explain` and `fetch` write the tool probes, the file-digest
 * cache and the toolchain files without the lock: their temporaries
 * may be in use, and stay.
 */
static void sweep_build_dir(const char *dir, int depth)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	struct stat st;
	size_t i;

	if (tf_list_dir(dir, &names))
		return;
	for (i = 0; i < names.nr; i++) {
		const char *n = names.v[i];

		tf_buf_reset(&path);
		tf_path_join(&path, dir, n);
		if (lstat(path.buf, &st) < 0)
			continue;
		if (depth < 3) {
			if (S_ISDIR(st.st_mode) && n[0] != '.' &&
			    (depth < 2 || own_folder(n)))
				sweep_build_dir(path.buf, depth + 1);
		} else if (S_ISDIR(st.st_mode) && n[0] == '.' &&
			   strchr(n + 1, '.') && temp_named(n, ".")) {
			remove_leftover(path.buf, 1);
		} else if (S_ISREG(st.st_mode) && temp_named(n, ".tmp.")) {
			remove_leftover(path.buf, 0);
		}
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
}

/*
 * One run at a time in a build tree and in an output folder (lock.h):
 * both are locked before anything is written to either, build tree
 * first, so that two runs never wait on each other in opposite orders.
 */
static int take_locks(struct tf_session *s)
{
	enum tf_lock_result rc = tf_lock_take(&s->build_lock, s->opt.build_dir,
					      "build tree", s->opt.wait);

	if (rc == TF_LOCK_TAKEN &&
	    !tf_lock_holds(&s->build_lock, s->opt.out_dir))
		rc = tf_lock_take(&s->out_lock, s->opt.out_dir, "output folder",
				  s->opt.wait);
	if (rc == TF_LOCK_TAKEN && tf_path_is_dir(s->opt.build_dir))
		sweep_build_dir(s->opt.build_dir, 0);
	if (rc == TF_LOCK_TAKEN)
		sweep_out_dir(s->opt.out_dir);
	return rc == TF_LOCK_TAKEN  ? TF_EXIT_OK
	       : rc == TF_LOCK_BUSY ? TF_EXIT_BUSY
				    : TF_EXIT_FAILURE;
}

/* Turn --target values (or the recipe's default) into a list of names. */
static int choose_targets(struct tf_session *s, struct tf_strvec *out)
{
	const struct tf_recipe *r = &s->recipe;
	const char *host = tf_target_host();
	size_t i, j;

	if (!s->opt.targets.nr) {
		for (i = 0; i < r->nr_targets && strcmp(r->targets[i].s, host);
		     i++)
			;
		if (r->nr_targets && i == r->nr_targets)
			return error(
				"%s: the recipe does not list the host target '%s'; choose one with --target",
				r->path, host);
		tf_strvec_push(out, host);
		return 0;
	}
	for (i = 0; i < s->opt.targets.nr; i++) {
		const char *t = s->opt.targets.v[i];

		if (!strcmp(t, "all")) {
			for (j = 0; j < r->nr_targets; j++)
				tf_strvec_push(out, r->targets[j].s);
			if (!r->nr_targets)
				tf_strvec_push(out, host);
			continue;
		}
		for (j = 0; j < r->nr_targets && strcmp(r->targets[j].s, t);
		     j++)
			;
		if (!tf_target_is_known(t) ||
		    (r->nr_targets && j == r->nr_targets))
			return refuse_target(r, t, host);
		tf_strvec_push(out, t);
	}
	return 0;
}

/* Make s->plans[i] for its target with s->plan_opts; an exit code. */
static int make_plan(struct tf_session *s, size_t i)
{
	enum tf_plan_result rc = tf_plan_make(&s->recipe, s->targets.v[i],
					      &s->plan_opts, &s->plans[i]);

	if (!rc)
		return TF_EXIT_OK;
	return rc == TF_PLAN_TOOLCHAIN ? TF_EXIT_BUILD : TF_EXIT_RECIPE;
}

/* The absolute build directory, beside the recipe by default. */
static int build_dir(struct tf_session *s)
{
	struct tf_buf dir = TF_BUF_INIT;

	if (!s->opt.build_dir) {
		tf_path_join(&dir, s->recipe.dir, "build");
		s->opt.build_dir = tf_buf_detach(&dir);
	} else if (s->opt.build_dir[0] != '/') {
		if (tf_path_absolute(&dir, s->opt.build_dir) < 0)
			return -1;
		free((char *)s->opt.build_dir);
		s->opt.build_dir = tf_buf_detach(&dir);
	}
	return 0;
}

/* How the plans are made, from the options. 0 or -1. */
static int plan_opts(struct tf_session *s, int check_tools)
{
	struct tf_plan_opts *po = &s->plan_opts;
	struct tf_buf cache = TF_BUF_INIT;

	memset(po, 0, sizeof(*po));
	po->build_dir = s->opt.build_dir;
	po->jobs = s->opt.jobs;
	po->sets = &s->opt.sets;
	po->check_tools = check_tools;
	po->launcher = s->opt.launcher;
	po->distcc_hosts = s->opt.distcc_hosts;
	po->unpinned = s->opt.unpinned;
	/* Target roots and their wrappers are used from other directories. */
	if (tf_path_absolute(&cache, s->opt.cache_dir) < 0)
		return -1;
	s->cache_abs = tf_buf_detach(&cache);
	po->cache_dir = s->cache_abs;
	return 0;
}

/* Remember tool identities in the build tree (probe.h). */
static void probes_open(const struct tf_session *s)
{
	struct tf_buf probes = TF_BUF_INIT;

	tf_path_join(&probes, s->opt.build_dir, ".tool-probes");
	tf_probe_open(probes.buf);
	tf_buf_release(&probes);
}

int tf_session_open(struct tf_session *s, int check_tools)
{
	struct tf_buf dir = TF_BUF_INIT;
	size_t i;
	int ret = TF_EXIT_OK;

	s->targets = (struct tf_strvec)TF_STRVEC_INIT;
	if (tf_recipe_load(s->opt.recipe, &s->recipe) ||
	    (s->opt.toolchain &&
	     tf_recipe_load_toolchains(&s->recipe, s->opt.toolchain)))
		return TF_EXIT_RECIPE;
	if (!tf_target_host())
		return error("this host's architecture is not supported"),
		       TF_EXIT_BUILD;
	if (choose_targets(s, &s->targets))
		return TF_EXIT_USAGE;
	if (build_dir(s) < 0)
		return TF_EXIT_FAILURE;
	if (s->opt.lock && (ret = take_locks(s)))
		return ret;
	if (plan_opts(s, check_tools) < 0)
		return TF_EXIT_FAILURE;
	probes_open(s);
	/* Stat before hashing unchanged trees (digestcache.h). */
	tf_path_join(&dir, s->opt.build_dir, ".file-digests");
	tf_digest_cache_open(dir.buf);
	tf_buf_release(&dir);
	s->plans = tf_calloc(s->targets.nr, sizeof(*s->plans));
	s->plan_ptrs = tf_calloc(s->targets.nr, sizeof(*s->plan_ptrs));
	s->provisions = tf_calloc(s->targets.nr, sizeof(*s->provisions));
	for (i = 0; i < s->targets.nr; i++) {
		int rc;

		s->plan_ptrs[i] = &s->plans[i];
		s->provisions[i] = (struct tf_provision)TF_PROVISION_INIT;
		s->nr_plans++;
		rc = make_plan(s, i);
		if (rc && !ret)
			ret = rc;
	}
	tf_probe_close(ret == TF_EXIT_OK && !s->read_only);
	s->fetch = (struct tf_fetch_opts)TF_FETCH_OPTS_INIT;
	s->fetch.cache_dir = s->opt.cache_dir;
	s->fetch.offline = s->opt.offline;
	s->fetch.recheck = s->opt.recheck;
	return ret;
}

/* Resolve plan i's packages and make it again with them: an exit code. */
static int resolve_and_replan(struct tf_session *s, size_t i)
{
	struct tf_strvec lines = TF_STRVEC_INIT;
	enum tf_plan_result rc = tf_provision_resolve(&s->plans[i], &lines);
	int ret = TF_EXIT_OK;

	if (rc) {
		ret = rc == TF_PLAN_TOOLCHAIN ? TF_EXIT_BUILD : TF_EXIT_RECIPE;
	} else {
		tf_plan_release(&s->plans[i]);
		s->plan_opts.packages = &lines;
		probes_open(s);
		ret = make_plan(s, i);
		tf_probe_close(ret == TF_EXIT_OK);
		s->plan_opts.packages = NULL;
	}
	tf_strvec_release(&lines);
	return ret;
}

int tf_session_provision(struct tf_session *s)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nr_plans; i++)
		if (s->plans[i].would_provision &&
		    (ret = resolve_and_replan(s, i)))
			return ret;
	for (i = 0; i < s->nr_plans; i++) {
		ret = tf_provision_make(&s->plans[i], &s->fetch,
					&s->provisions[i]);
		if (ret)
			return ret == TF_PROVISION_FETCH ? TF_EXIT_FETCH
							 : TF_EXIT_BUILD;
	}
	return TF_EXIT_OK;
}

void tf_session_release(struct tf_session *s)
{
	size_t i;

	tf_digest_cache_close(s->nr_plans > 0 && !s->read_only);
	for (i = 0; i < s->nr_plans; i++) {
		tf_plan_release(&s->plans[i]);
		tf_provision_release(&s->provisions[i]);
	}
	free(s->plans);
	free(s->provisions);
	free(s->cache_abs);
	tf_strvec_release(&s->targets);
	free(s->plan_ptrs);
	tf_recipe_release(&s->recipe);
	free((char *)s->opt.cache_dir);
	free((char *)s->opt.build_dir);
	tf_strvec_release(&s->opt.targets);
	tf_strvec_release(&s->opt.sets);
	tf_strvec_release(&s->opt.cache_keep);
	tf_cache_close(s->cache);
	/* Last: the build tree and output folder are done with. */
	tf_lock_release(&s->out_lock);
	tf_lock_release(&s->build_lock);
	memset(s, 0, sizeof(*s));
	s->build_lock = (struct tf_lock)TF_LOCK_INIT;
	s->out_lock = (struct tf_lock)TF_LOCK_INIT;
}
