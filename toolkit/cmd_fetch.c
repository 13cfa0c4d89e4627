/* tfbuild fetch: the fetch stage of a recipe, alone. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "session.h"
#include "source.h"

const char tf_usage_fetch[] =
	"usage: tfbuild fetch [OPTIONS] RECIPE.yaml\n"
	"\n"
	"Check a recipe, then download every remote source into the cache and\n"
	"verify its sha256, trying mirrors in order. Nothing is built. Prints\n"
	"the cached path of each source.\n"
	"\n"
	"options:\n"
	"      --cache DIR       download cache (default: $XDG_CACHE_HOME/tfbuild)\n"
	"  -t, --target NAME     expand the recipe for NAME (default: the host's)\n"
	"  -D, --set NAME=VALUE  override a recipe variable\n"
	"      --offline         only check that every source is in the cache\n"
	"      --recheck         re-hash cached downloads\n"
	"  -v, --verbose / -q, --quiet\n"
	"\n"
	"exit codes: 0 ok, 2 usage, 3 recipe, 4 fetch.\n";

int cmd_fetch(int argc, char **argv)
{
	struct tf_session s;
	size_t i, j;
	int ret;

	memset(&s, 0, sizeof(s));
	s.opt.targets = (struct tf_strvec)TF_STRVEC_INIT;
	s.opt.sets = (struct tf_strvec)TF_STRVEC_INIT;
	ret = tf_session_parse(&s, argc, argv, tf_usage_fetch, 0);
	if (ret) {
		tf_session_release(&s);
		return ret < 0 ? TF_EXIT_OK : ret;
	}
	ret = tf_session_open(&s, 0);
	for (i = 0; !ret && i < s.nr_plans; i++) {
		const struct tf_plan *p = &s.plans[i];

		if (tf_sources_fetch(&s.plans[i], &s.fetch)) {
			ret = TF_EXIT_FETCH;
			break;
		}
		for (j = 0; tf_verbosity && j < s.recipe.nr_sources; j++)
			if (p->sources[j].archive)
				printf("%s  %s\n", p->sources[j].def->name.s,
				       p->sources[j].archive);
	}
	tf_session_release(&s);
	return ret;
}
