/* tfbuild fetch: the fetch stage of a recipe, alone. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "provision/provision.h"
#include "session.h"
#include "source/source.h"
#include "ui/ui.h"
#include "opt.h"
#include "env/env.h"
#include "plan/plan.h"

const char tf_usage_fetch[] =
	"Check a recipe, then download every remote source into the cache and\n"
	"verify its sha256, trying mirrors in order. Nothing is built. Prints\n"
	"the cached path of each source.\n";

const struct tf_opt tf_opts_fetch[] = {
	TF_OPT_CACHE,
	{ 't', "target", TF_OPT_CHOICES, TF_ARG(targets), "NAME",
	  "expand the recipe for NAME; default: the host's", tf_target_choices,
	  0, 0 },
	TF_OPT_SET,
	{ 0, "offline", TF_OPT_FLAG, TF_ARG(offline), NULL,
	  "only check that every source is in the cache", NULL, 0, 0 },
	TF_OPT_RECHECK,
	TF_OPT_END,
};

int cmd_fetch(struct tf_args *a)
{
	struct tf_session s;
	size_t i, j;
	int ret;

	ret = tf_session_setup(&s, a, tf_cmd_find("fetch"));
	if (!ret)
		ret = tf_session_open(&s, 0);
	for (i = 0; !ret && i < s.nr_plans; i++) {
		const struct tf_plan *p = &s.plans[i];
		int bad = tf_sources_fetch(&s.plans[i], &s.fetch) != 0;

		/* The target's wheels from the package index too. */
		bad |= tf_provision_wheels_fetch(&s.plans[i], &s.fetch,
						 &s.provisions[i]) != 0;
		if (bad) {
			ret = TF_EXIT_FETCH;
			break;
		}
		for (j = 0;
		     tf_verbosity && !tf_ui_json() && j < s.recipe.nr_sources;
		     j++)
			if (p->sources[j].archive)
				printf("%s  %s\n", p->sources[j].def->name.s,
				       p->sources[j].archive);
	}
	tf_session_release(&s);
	return ret;
}
