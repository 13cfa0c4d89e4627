/* The compiler launchers this tool knows (target.h); how they are put in
 * front of a step's compilers is plan/launcher.c's. */
#include "target.h"

#include <string.h>

static const struct tf_launcher_kind launchers[] = {
	{ "ccache", "CCACHE_", "install Debian's ccache" },
	{ "sccache", "SCCACHE_",
	  "sccache is not packaged in Debian 12: install its release binary or "
	  "'cargo install sccache' into /usr/local/bin" },
	{ "distcc", "DISTCC_", "install Debian's distcc" },
};

#define NR_LAUNCHERS (sizeof(launchers) / sizeof(*launchers))

const char *const *tf_launcher_choices(void)
{
	static const char *choices[NR_LAUNCHERS + 2];
	size_t i;

	for (i = 0; i < NR_LAUNCHERS; i++)
		choices[i] = launchers[i].name;
	choices[i] = "none";
	return choices;
}

int tf_launcher_is_known(const char *name)
{
	const char *const *c;

	for (c = tf_launcher_choices(); *c; c++)
		if (!strcmp(*c, name))
			return 1;
	return 0;
}

const struct tf_launcher_kind *tf_launcher_kind(const char *name)
{
	size_t i;

	for (i = 0; i < NR_LAUNCHERS; i++)
		if (!strcmp(launchers[i].name, name))
			return &launchers[i];
	return NULL;
}
