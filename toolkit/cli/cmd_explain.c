/* tfbuild explain: what a run would rebuild, and why. */
#include <stdio.h>
#include <string.h>

#include "build/build.h"
#include "cli.h"
#include "base/base.h"
#include "session.h"
#include "source/source.h"
#include "opt.h"
#include "env/env.h"
#include "plan/plan.h"

const char tf_usage_explain[] =
	"Say, for each step and target, whether `tfbuild recipe` would run it\n"
	"and which input changed: the script, its environment, the toolchain,\n"
	"a source tree it reads, or the output of a step it needs. Runs,\n"
	"fetches, provisions and writes nothing. Output lines read:\n"
	"  TARGET STEP: will run (REASON) | up to date (nothing changed)\n"
	"  TARGET: would provision PACKAGES (what no run resolved yet)\n";

const struct tf_opt tf_opts_explain[] = {
	TF_OPT_BUILD_DIR,
	{ 't', "target", TF_OPT_CHOICES, TF_ARG(targets), "NAME",
	  "explain for NAME; default: the host's", tf_target_choices, 0, 0 },
	TF_OPT_SET,
	TF_OPT_TOOLCHAIN,
	{ 'j', "jobs", TF_OPT_INT, TF_ARG(jobs), "N",
	  "as the run would use (it is part of $JOBS)", NULL, 1, 1024 },
	TF_OPT_END,
};

/*
 * What only provisioning can know: the versions of target packages no
 * run has resolved under this state of apt (dpkg). Their steps' keys
 * then lack them, so those steps are said to run.
 */
static void would_provision(const struct tf_plan *p)
{
	size_t i;

	if (!p->would_provision)
		return;
	printf("%s: would provision its target packages (", p->target.name);
	for (i = 0; i < p->package_roots.nr; i++)
		printf("%s%s", i ? " " : "", p->package_roots.v[i]);
	printf("): their versions are not known until then\n");
}

int cmd_explain(struct tf_args *a)
{
	struct tf_build_opts bo = { .jobs = 1 };
	struct tf_session s;
	size_t i;
	int ret;

	ret = tf_session_setup(&s, a, tf_cmd_find("explain"));
	s.read_only = 1;
	if (!ret)
		ret = tf_session_open(&s, 1);
	for (i = 0; !ret && i < s.nr_plans; i++)
		would_provision(&s.plans[i]);
	for (i = 0; !ret && i < s.nr_plans; i++)
		if (tf_sources_stamp(&s.plans[i]))
			ret = TF_EXIT_BUILD;
	if (!ret)
		tf_build_explain(s.plan_ptrs, s.nr_plans, &bo);
	tf_session_release(&s);
	return ret;
}
