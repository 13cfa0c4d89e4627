/*
 * tfbuild recipe: the whole pipeline. Each stage reports its own errors;
 * this file only sequences them and maps a failing stage to its exit code.
 */
#include <stdio.h>
#include <string.h>

#include "attest.h"
#include "build.h"
#include "cmd.h"
#include "hash.h"
#include "log.h"
#include "pack.h"
#include "path.h"
#include "session.h"
#include "source.h"

const char tf_usage_recipe[] =
	"usage: tfbuild recipe [OPTIONS] RECIPE.yaml\n"
	"\n"
	"Run a recipe: check it, fetch every source and verify its sha256,\n"
	"extract and patch, run the build steps in dependency order, pack the\n"
	"wheels into the output directory, verify each wheel and write\n"
	"SHA256SUMS beside them.\n"
	"\n"
	"options:\n"
	"  -o, --out DIR         where wheels go (default: wheels)\n"
	"      --build-dir DIR   build tree (default: build/ beside the recipe)\n"
	"      --cache DIR       download cache (default: $XDG_CACHE_HOME/tfbuild)\n"
	"  -j, --jobs N          steps to run at once (default: number of CPUs)\n"
	"  -t, --target NAME     build for NAME (x86_64, aarch64, or all);\n"
	"                        repeatable; default: the host's\n"
	"  -D, --set NAME=VALUE  override a recipe variable\n"
	"      --toolchain FILE  toolchain overrides (YAML: toolchains: TARGET: ...)\n"
	"      --offline         use only the download cache\n"
	"      --recheck         re-hash cached downloads before using them\n"
	"  -k, --keep-going      after a failing step, go on with the others\n"
	"  -f, --force           rebuild every step, even if up to date\n"
	"      --timeout TIME    time limit of every step and test (90s, 30m, 2h),\n"
	"                        over the recipe's; default: the recipe's, or 1h\n"
	"  -v, --verbose         show commands and build output\n"
	"  -q, --quiet           show only errors\n"
	"\n"
	"exit codes: 0 ok, 2 usage, 3 recipe, 4 fetch, 5 build, 6 wheel;\n"
	"128+N when signal N (SIGINT, SIGTERM, SIGHUP) stopped the build.\n";

/* Write SHA256SUMS and the provenance beside the wheels; list the wheels. */
static int attest(struct tf_session *s, const struct tf_strvec *written)
{
	struct tf_sums sums = TF_SUMS_INIT;
	struct tf_provenance_run run = { &s->opt.sets, &sums };
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int ret = tf_sums_of_files(written, &sums);

	tf_path_join(&path, s->opt.out_dir, "SHA256SUMS");
	if (!ret)
		ret = tf_sums_write(path.buf, &sums);
	tf_buf_setf(&path, "%s/%s.intoto.json", s->opt.out_dir, s->recipe.name.s);
	if (!ret)
		ret = tf_provenance_write(path.buf, s->plan_ptrs, s->nr_plans, &run);
	for (i = 0; !ret && tf_verbosity && i < written->nr; i++)
		printf("%s  %s\n", sums.digests.v[i], written->v[i]);
	tf_sums_release(&sums);
	tf_buf_release(&path);
	return ret;
}

static int run_pipeline(struct tf_session *s)
{
	struct tf_build_opts bo = { s->opt.jobs, s->opt.keep_going, s->opt.force,
				    s->opt.timeout };
	struct tf_strvec written = TF_STRVEC_INIT;
	size_t i;
	int ret = TF_EXIT_OK;

	for (i = 0; i < s->nr_plans; i++)
		if (tf_sources_fetch(&s->plans[i], &s->fetch))
			return TF_EXIT_FETCH;
	for (i = 0; i < s->nr_plans; i++)
		if (tf_sources_stamp(&s->plans[i]) ||
		    tf_sources_prepare(&s->plans[i], s->opt.force))
			return TF_EXIT_BUILD;
	if (tf_build_run(s->plan_ptrs, s->nr_plans, &bo, NULL))
		return tf_build_signal ? 128 + tf_build_signal : TF_EXIT_BUILD;
	if (tf_pack_wheels(s->plan_ptrs, s->nr_plans, s->opt.out_dir, &written) ||
	    attest(s, &written))
		ret = TF_EXIT_WHEEL;
	tf_strvec_release(&written);
	return ret;
}

int cmd_recipe(int argc, char **argv)
{
	struct tf_session s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.opt.targets = (struct tf_strvec)TF_STRVEC_INIT;
	s.opt.sets = (struct tf_strvec)TF_STRVEC_INIT;
	ret = tf_session_parse(&s, argc, argv, tf_usage_recipe, TF_OPT_BUILD);
	if (ret) {
		tf_session_release(&s);
		return ret < 0 ? TF_EXIT_OK : ret;
	}
	ret = tf_session_open(&s, 1);
	if (!ret)
		ret = run_pipeline(&s);
	tf_session_release(&s);
	return ret;
}
