#include "session.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "path.h"
#include "target.h"

static int parse_jobs(const char *arg, int *jobs)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || end == arg || n < 1 || n > 1024)
		return -1;
	*jobs = (int)n;
	return 0;
}

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

int tf_session_parse(struct tf_session *s, int argc, char **argv,
		     const char *usage, int flags)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "cache", required_argument, NULL, 'C' },
		{ "build-dir", required_argument, NULL, 'B' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "offline", no_argument, NULL, 'O' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "recheck", no_argument, NULL, 'R' },
		{ "force", no_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 'W' },
		{ "toolchain", required_argument, NULL, 'T' },
		{ "target", required_argument, NULL, 't' },
		{ "set", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tf_options *o = &s->opt;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:j:kft:D:vqh", longopts, NULL)) != -1) {
		int build_only = strchr("oBjkfW", c) != NULL;

		if (build_only && !(flags & TF_OPT_BUILD))
			return tf_usage_error(usage, "option '%s' does not apply here",
					   argv[optind - 1]);
		switch (c) {
		case 'o': o->out_dir = optarg; break;
		case 'C': free((char *)o->cache_dir); o->cache_dir = tf_strdup(optarg); break;
		case 'B': free((char *)o->build_dir); o->build_dir = tf_strdup(optarg); break;
		case 'j':
			if (parse_jobs(optarg, &o->jobs))
				return tf_usage_error(usage, "--jobs wants a number from 1 to 1024, not '%s'",
						   optarg);
			break;
		case 'O': o->offline = 1; break;
		case 'k': o->keep_going = 1; break;
		case 'R': o->recheck = 1; break;
		case 'f': o->force = 1; break;
		case 'W':
			o->timeout = tf_parse_duration(optarg);
			if (o->timeout <= 0)
				return tf_usage_error(usage, "--timeout wants a duration such as 90s, 30m or 2h, not '%s'",
						   optarg);
			break;
		case 'T': o->toolchain = optarg; break;
		case 't': tf_strvec_push(&o->targets, optarg); break;
		case 'D': tf_strvec_push(&o->sets, optarg); break;
		case 'v': tf_verbosity++; break;
		case 'q': tf_verbosity = 0; break;
		case 'h': fputs(usage, stdout); return -1;
		default:
			return tf_usage_error(usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc) {
		return tf_usage_error(usage, "%s", optind == argc ?
				      "missing the recipe file" : "too many arguments");
	}
	o->recipe = argv[optind];
	set_defaults(o);
	return 0;
}

/* Turn --target values (or the recipe's default) into a list of names. */
static int choose_targets(struct tf_session *s, struct tf_strvec *out)
{
	const struct tf_recipe *r = &s->recipe;
	const char *host = tf_target_host();
	size_t i, j;

	if (!s->opt.targets.nr) {
		for (i = 0; i < r->nr_targets && strcmp(r->targets[i].s, host); i++)
			;
		if (r->nr_targets && i == r->nr_targets)
			return error("%s: the recipe does not list the host target '%s'; choose one with --target",
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
		for (j = 0; j < r->nr_targets && strcmp(r->targets[j].s, t); j++)
			;
		if (!tf_target_is_known(t) || (r->nr_targets && j == r->nr_targets))
			return error("--target '%s': the recipe supports %s", t,
				     r->nr_targets ? "only the targets it lists" :
				     "only the host target");
		tf_strvec_push(out, t);
	}
	return 0;
}

int tf_session_open(struct tf_session *s, int check_tools)
{
	struct tf_strvec targets = TF_STRVEC_INIT;
	struct tf_plan_opts po;
	struct tf_buf dir = TF_BUF_INIT;
	size_t i;
	int ret = TF_EXIT_OK;

	if (tf_recipe_load(s->opt.recipe, &s->recipe) ||
	    (s->opt.toolchain &&
	     tf_recipe_load_toolchains(&s->recipe, s->opt.toolchain)))
		return TF_EXIT_RECIPE;
	if (!tf_target_host())
		return error("this host's architecture is not supported"), TF_EXIT_BUILD;
	if (choose_targets(s, &targets))
		return TF_EXIT_USAGE;
	if (!s->opt.build_dir) {
		tf_path_join(&dir, s->recipe.dir, "build");
		s->opt.build_dir = tf_buf_detach(&dir);
	} else if (s->opt.build_dir[0] != '/') {
		tf_path_absolute(&dir, s->opt.build_dir);
		free((char *)s->opt.build_dir);
		s->opt.build_dir = tf_buf_detach(&dir);
	}
	po.build_dir = s->opt.build_dir;
	po.jobs = s->opt.jobs;
	po.sets = &s->opt.sets;
	po.check_tools = check_tools;
	po.cache_dir = s->opt.cache_dir;
	s->plans = tf_calloc(targets.nr, sizeof(*s->plans));
	s->plan_ptrs = tf_calloc(targets.nr, sizeof(*s->plan_ptrs));
	for (i = 0; i < targets.nr; i++) {
		s->plan_ptrs[i] = &s->plans[i];
		s->nr_plans++;
		int rc = tf_plan_make(&s->recipe, targets.v[i], &po, &s->plans[i]);

		if (rc && !ret)
			ret = rc == TF_PLAN_TOOLCHAIN ? TF_EXIT_BUILD : TF_EXIT_RECIPE;
	}
	s->fetch = (struct tf_fetch_opts)TF_FETCH_OPTS_INIT;
	s->fetch.cache_dir = s->opt.cache_dir;
	s->fetch.offline = s->opt.offline;
	s->fetch.recheck = s->opt.recheck;
	tf_strvec_release(&targets);
	return ret;
}

void tf_session_release(struct tf_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_plans; i++)
		tf_plan_release(&s->plans[i]);
	free(s->plans);
	free(s->plan_ptrs);
	tf_recipe_release(&s->recipe);
	free((char *)s->opt.cache_dir);
	free((char *)s->opt.build_dir);
	tf_strvec_release(&s->opt.targets);
	tf_strvec_release(&s->opt.sets);
	memset(s, 0, sizeof(*s));
}
