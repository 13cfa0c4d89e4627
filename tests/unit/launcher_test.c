#include "unit.h"

#include <stdlib.h>

#include "launcher.h"
#include "target.h"

static void test_base_dir(void)
{
	static const struct {
		const char *a, *b, *want; /* want NULL: no base_dir */
	} cases[] = {
		{ "/w/co/build/r/x86_64", "/w/co", "/w/co" },
		{ "/w/co/recipes/build/r/aarch64", "/w/co/recipes",
		  "/w/co/recipes" },
		{ "/w/co/build/r/x86_64", "/w/co/recipes", "/w/co" },
		{ "/w/co", "/w/co", "/w/co" },
		/* a shared prefix of names is not a shared directory */
		{ "/w/co1/build", "/w/co2", "/w" },
		{ "/w/cob/build", "/w/co", "/w" },
		{ "/tmp/b/r/x86_64", "/home/u/proj", NULL },
		{ "/a", "/b", NULL },
		{ "/", "/", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = tf_launcher_base_dir(cases[i].a, cases[i].b);

		if (cases[i].want)
			CHECK_STR(got, cases[i].want);
		else
			CHECK(got == NULL);
		free(got);
	}
}

static void test_choices(void)
{
	const char *const *c = tf_launcher_choices();

	CHECK_STR(c[0], "ccache");
	CHECK_STR(c[1], "sccache");
	CHECK_STR(c[2], "distcc");
	CHECK_STR(c[3], "none");
	CHECK(c[4] == NULL);
	CHECK(tf_launcher_is_known("distcc"));
	CHECK(tf_launcher_is_known("none"));
	CHECK(!tf_launcher_is_known("icecc"));
	CHECK(!tf_launcher_is_known(""));
	CHECK(!tf_launcher_is_known("ccache "));
}

int main(void)
{
	test_base_dir();
	test_choices();
	return unit_done();
}
