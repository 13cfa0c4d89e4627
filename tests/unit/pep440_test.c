#include "unit.h"

#include "buf.h"
#include "pep440.h"

static int cmp(const char *a, const char *b)
{
	struct tf_version va, vb;
	struct tf_buf why = TF_BUF_INIT;
	int c;

	CHECK(!tf_version_parse(a, &va, &why) &&
	      !tf_version_parse(b, &vb, &why));
	c = tf_version_cmp(&va, &vb);
	tf_buf_release(&why);
	return c < 0 ? -1 : c > 0;
}

/* PEP 440's examples of ordering, each less than the next. */
static void test_order(void)
{
	static const char *const sorted[] = {
		"1.0.dev456",    "1.0a1",
		"1.0a2.dev456",  "1.0a12.dev456",
		"1.0a12",        "1.0b1.dev456",
		"1.0b2",         "1.0b2.post345.dev456",
		"1.0b2.post345", "1.0rc1.dev456",
		"1.0rc1",        "1.0",
		"1.0+abc.5",     "1.0.post456.dev34",
		"1.0.post456",   "1.0.15",
		"1.1.dev1",      "2.21.99.post3",
		"2.22.dev0",     "2.22a1",
		"2.22",          "1!0.1",
	};
	size_t i;

	for (i = 0; i + 1 < sizeof(sorted) / sizeof(*sorted); i++) {
		int want = !strcmp(sorted[i], "1.0") ? 0 : -1;

		CHECK_INT(cmp(sorted[i], sorted[i + 1]), want);
		CHECK_INT(cmp(sorted[i + 1], sorted[i]), -want);
	}
	CHECK_INT(cmp("2.21", "2.21.0"), 0);
	CHECK_INT(cmp("2.21.0", "v2.21.0.0"), 0);
	CHECK_INT(cmp("1.0-1", "1.0.post1"), 0);
}

/* has(spec, version): 1 if the interval of spec holds version. */
static int has(const char *spec, const char *version)
{
	struct tf_version_range r;
	struct tf_version v;
	struct tf_buf why = TF_BUF_INIT;
	int ok = !tf_specifiers_range(spec, &r, &why) &&
		 !tf_version_parse(version, &v, &why);

	if (!ok)
		printf("# %s\n", why.buf);
	tf_buf_release(&why);
	return ok ? tf_version_range_has(&r, &v) : -1;
}

static void test_ranges(void)
{
	static const struct {
		const char *spec, *version;
		int has;
	} cases[] = {
		{ "<2.22,>=2.21.0", "2.21.0", 1 },
		{ "<2.22,>=2.21.0", "2.21.0rc1", 0 },
		{ "<2.22,>=2.21.0", "2.21.7.post2", 1 },
		{ "<2.22,>=2.21.0", "2.22.0rc1", 0 },
		{ "<2.22,>=2.21.0", "2.22.dev0", 0 },
		{ "<2.22,>=2.21.0", "2.22", 0 },
		{ "<2.22rc1", "2.22a3", 1 },
		{ "==2.21.*", "2.21.0rc1", 1 },
		{ "==2.21.*", "2.22.dev0", 0 },
		{ "~=2.21.0", "2.21.9", 1 },
		{ "~=2.21.0", "2.22.0", 0 },
		{ "~=2.21", "2.99", 1 },
		{ "==0.10.2", "0.10.2", 1 },
		{ "==0.10.2", "0.10.3", 0 },
		{ "  >= 0.10.2 , <= 0.10.2 ", "0.10.2", 1 },
		{ ">0.10.2", "0.10.2", 0 },
		{ "!=0.10.2", "0.10.2", 1 }, /* the interval: != only narrows */
		{ ">=1!1.0", "2.0", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int got = has(cases[i].spec, cases[i].version);

		CHECK_INT(got, cases[i].has);
		if (got != cases[i].has)
			printf("#   %s has %s\n", cases[i].spec,
			       cases[i].version);
	}
}

static int within(const char *inner, const char *outer)
{
	struct tf_version_range a, b;
	struct tf_buf why = TF_BUF_INIT;
	int ok = !tf_specifiers_range(inner, &a, &why) &&
		 !tf_specifiers_range(outer, &b, &why);

	tf_buf_release(&why);
	return ok ? tf_version_range_within(&a, &b) : -1;
}

static void test_within(void)
{
	static const char tf[] = "<2.22,>=2.21.0";

	CHECK_INT(within(tf, tf), 1);
	CHECK_INT(within(">=2.21,<2.22", tf), 1);
	CHECK_INT(within("==2.21.0", tf), 1);
	CHECK_INT(within("~=2.21.0", tf), 1);
	CHECK_INT(within("<2.22.0,>=2.21.1", tf), 1);
	CHECK_INT(within("<=2.22,>=2.21.0", tf), 0);
	CHECK_INT(within("<2.22.1,>=2.21.0", tf), 0);
	CHECK_INT(within("==2.21.*", tf), 0); /* admits 2.21.0rc1 */
	CHECK_INT(within(">=2.21.0", tf), 0);
	CHECK_INT(within("<2.22", tf), 0);
	CHECK_INT(within("~=2.21", tf), 0);
	CHECK_INT(within(">=2.20,<2.22", tf), 0);
	CHECK_INT(within("==0.10.2", "==0.10.2"), 1);
	CHECK_INT(within("<=0.10.2,>=0.10.2", "==0.10.2"), 1);
	CHECK_INT(within("==0.10.*", "==0.10.2"), 0);
	CHECK_INT(within(">=0.10.2,<0.10.3", "==0.10.2"), 0);
}

static void test_refused(void)
{
	struct tf_version_range r;
	struct tf_buf why = TF_BUF_INIT;

	CHECK_INT(tf_specifiers_range("===2.21.0", &r, &why), -1);
	CHECK(strstr(why.buf, "cannot be judged") != NULL);
	tf_buf_reset(&why);
	CHECK_INT(tf_specifiers_range("==2.21rc1.*", &r, &why), -1);
	tf_buf_reset(&why);
	CHECK_INT(tf_specifiers_range(">=banana", &r, &why), -1);
	CHECK(strstr(why.buf, "not a PEP 440 version") != NULL);
	tf_buf_release(&why);
}

static void test_split(void)
{
	static const struct {
		const char *req, *name, *spec, *marker;
	} cases[] = {
		{ "tensorflow<2.22,>=2.21.0", "tensorflow", "<2.22,>=2.21.0",
		  "" },
		{ "TensorFlow_CPU (>=2.21, <2.22)", "tensorflow-cpu",
		  ">=2.21, <2.22", "" },
		{ "jaxlib==0.10.2 ; python_version >= '3.11'", "jaxlib",
		  "==0.10.2", "python_version >= '3.11'" },
		{ "jax[cuda12]>=0.10", "jax", ">=0.10", "" },
		{ "jax", "jax", "", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tf_buf n = TF_BUF_INIT, s = TF_BUF_INIT, m = TF_BUF_INIT;

		CHECK_INT(tf_requirement_split(cases[i].req, &n, &s, &m), 0);
		CHECK_STR(n.buf, cases[i].name);
		CHECK_STR(s.buf, cases[i].spec);
		CHECK_STR(m.buf, cases[i].marker);
		tf_buf_release(&n);
		tf_buf_release(&s);
		tf_buf_release(&m);
	}
	{
		struct tf_buf n = TF_BUF_INIT, s = TF_BUF_INIT, m = TF_BUF_INIT;

		CHECK_INT(tf_requirement_split("jax @ https://x/jax.whl", &n,
					       &s, &m),
			  -1);
		tf_buf_release(&n);
		tf_buf_release(&s);
		tf_buf_release(&m);
	}
}

int main(void)
{
	test_order();
	test_ranges();
	test_within();
	test_refused();
	test_split();
	return unit_done();
}
