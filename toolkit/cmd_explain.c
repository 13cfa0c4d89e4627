/* tfbuild explain: what a run would rebuild, and why. */
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "cmd.h"
#include "log.h"
#include "session.h"
#include "source.h"

const char tf_usage_explain[] =
	"usage: tfbuild explain [OPTIONS] RECIPE.yaml\n"
	"\n"
	"Say, for each step and target, whether `tfbuild recipe` would run it\n"
	"and which input changed: the script, its environment, the toolchain,\n"
	"a source tree it reads, or the output of a step it needs. Runs and\n"
	"fetches nothing. Output lines read:\n"
	"  TARGET STEP: will run (REASON) | up to date (nothing changed)\n"
	"\n"
	"options:\n"
	"      --build-dir DIR   build tree (default: build/ beside the recipe)\n"
	"  -t, --target NAME     explain for NAME (x86_64, aarch64, all)\n"
	"  -D, --set NAME=VALUE  override a recipe variable\n"
	"  -j, --jobs N          as the run would use (it is part of $JOBS)\n"
	"\n"
	"exit codes: 0 ok, 2 usage, 3 recipe, 5 toolchain missing.\n";

int cmd_explain(int argc, char **argv)
{
	struct tf_build_opts bo = { 1, 0, 0, 0 };
	struct tf_session s;
	size_t i;
	int ret;

	memset(&s, 0, sizeof(s));
	s.opt.targets = (struct tf_strvec)TF_STRVEC_INIT;
	s.opt.sets = (struct tf_strvec)TF_STRVEC_INIT;
	ret = tf_session_parse(&s, argc, argv, tf_usage_explain, TF_OPT_BUILD);
	if (!ret)
		ret = tf_session_open(&s, 1);
	for (i = 0; !ret && i < s.nr_plans; i++)
		if (tf_sources_stamp(&s.plans[i]))
			ret = TF_EXIT_BUILD;
	if (!ret)
		tf_build_explain(s.plan_ptrs, s.nr_plans, &bo);
	tf_session_release(&s);
	return ret < 0 ? TF_EXIT_OK : ret;
}
