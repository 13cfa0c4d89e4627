#include "unit.h"

#include "buf.h"
#include "pyname.h"

static void test_normalize(void)
{
	static const struct {
		const char *name, *pep503, *wheel;
	} cases[] = {
		{ "Foo.Bar_baz", "foo-bar-baz", "foo_bar_baz" },
		{ "friendly-bard", "friendly-bard", "friendly_bard" },
		{ "Friendly-Bard", "friendly-bard", "friendly_bard" },
		{ "FRIENDLY-BARD", "friendly-bard", "friendly_bard" },
		{ "friendly.bard", "friendly-bard", "friendly_bard" },
		{ "friendly_bard", "friendly-bard", "friendly_bard" },
		{ "friendly--bard", "friendly-bard", "friendly_bard" },
		{ "FrIeNdLy-._.-bArD", "friendly-bard", "friendly_bard" },
		{ "tfmini", "tfmini", "tfmini" },
		{ "A1", "a1", "a1" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_pyname_normalize(cases[i].name, &b);
		CHECK_STR(b.buf, cases[i].pep503);
		tf_buf_reset(&b);
		tf_pyname_wheel_escape(cases[i].name, &b);
		CHECK_STR(b.buf, cases[i].wheel);
	}
	tf_buf_release(&b);
}

static void test_valid_names(void)
{
	static const struct {
		const char *name;
		int valid;
	} cases[] = {
		{ "demo", 1 },        { "Demo_Pkg", 1 }, { "a", 1 },
		{ "A.b-c_d", 1 },     { "9lives", 1 },   { "", 0 },
		{ "-a", 0 },          { "a-", 0 },       { "_a", 0 },
		{ "a.", 0 },          { "a b", 0 },      { "a+b", 0 },
		{ "caf\xc3\xa9", 0 }, { "a/b", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		CHECK_INT(tf_pyname_is_valid(cases[i].name), cases[i].valid);
}

/* Each version with its normal form, or NULL when it is not PEP 440. */
static void test_pep440(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "1.0", "1.0" },
		{ "1.0.0+m1", "1.0.0+m1" },
		{ "1.0.0-rc.1", "1.0.0rc1" },
		{ "1.0.0-RC1", "1.0.0rc1" },
		{ "1!2.0", "1!2.0" },
		{ "0!2.0", "2.0" },
		{ "01!02.003", "1!2.3" },
		{ "1.0.post", "1.0.post0" },
		{ "1.0-1", "1.0.post1" },
		{ "1.0-r2", "1.0.post2" },
		{ "1.0rev3", "1.0.post3" },
		{ "1.0_post_4", "1.0.post4" },
		{ "1.0.dev", "1.0.dev0" },
		{ "1.0-DEV-5", "1.0.dev5" },
		{ "v1.0", "1.0" },
		{ "V1.0", "1.0" },
		{ "1.0a", "1.0a0" },
		{ "1.0alpha1", "1.0a1" },
		{ "1.0.beta.2", "1.0b2" },
		{ "1.0c3", "1.0rc3" },
		{ "1.0pre4", "1.0rc4" },
		{ "1.0preview5", "1.0rc5" },
		{ "1.0a1.post2.dev3", "1.0a1.post2.dev3" },
		{ "1.0a1-1", "1.0a1.post1" },
		{ "1.0+M1", "1.0+m1" },
		{ "1.0+ubuntu-1_Foo.01", "1.0+ubuntu.1.foo.1" },
		{ "  1.0\t\n", "1.0" },
		{ "1.0a.", "1.0a0" },
		{ "2024.01.15", "2024.1.15" },
		{ "00", "0" },
		{ "1.0+", NULL },
		{ "1..0", NULL },
		{ "abc", NULL },
		{ "", NULL },
		{ " ", NULL },
		{ "1.0.", NULL },
		{ ".1", NULL },
		{ "1.0+m1+m2", NULL },
		{ "1.0+m1.", NULL },
		{ "1.0-", NULL },
		{ "1!", NULL },
		{ "1!2!3", NULL },
		{ "1.0 1", NULL },
		{ "1.0rc1rc2", NULL },
		{ "vv1.0", NULL },
		{ "1.0dev1a1", NULL },
		{ "1.0-+m1", NULL },
		{ "1.0\xc3\xa9", NULL },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int ret;

		tf_buf_reset(&b);
		tf_buf_addstr(&b, "x");
		ret = tf_pep440_normalize(cases[i].in, &b);
		CHECK_INT(ret, cases[i].want ? 0 : -1);
		/* Appended after what was there; untouched on failure. */
		if (cases[i].want)
			CHECK_STR(b.buf + 1, cases[i].want);
		else
			CHECK_STR(b.buf, "x");
		if (ret != (cases[i].want ? 0 : -1))
			printf("#   version '%s'\n", cases[i].in);
	}
	tf_buf_release(&b);
}

static void test_tags(void)
{
	static const struct {
		const char *tag;
		int valid;
	} cases[] = {
		{ "py3", 1 },
		{ "py2.py3", 1 },
		{ "none", 1 },
		{ "any", 1 },
		{ "manylinux_2_17_x86_64", 1 },
		{ "", 0 },
		{ ".py3", 0 },
		{ "py3.", 0 },
		{ "py2..py3", 0 },
		{ "py-3", 0 },
		{ "linux x86", 0 },
	};
	struct tf_strvec sv = TF_STRVEC_INIT;
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		CHECK_INT(tf_wheel_tag_is_valid(cases[i].tag), cases[i].valid);
	CHECK_INT(tf_wheel_tags_expand("py2.py3", "none", "any", &sv), 0);
	tf_strvec_join(&sv, " ", &b);
	CHECK_STR(b.buf, "py2-none-any py3-none-any");
	tf_strvec_release(&sv);
	tf_buf_reset(&b);
	CHECK_INT(tf_wheel_tags_expand("cp38.cp39", "abi3",
				       "linux_x86_64."
				       "manylinux_2_17_x86_64",
				       &sv),
		  0);
	tf_strvec_join(&sv, " ", &b);
	CHECK_STR(b.buf,
		  "cp38-abi3-linux_x86_64 cp38-abi3-manylinux_2_17_x86_64 "
		  "cp39-abi3-linux_x86_64 cp39-abi3-manylinux_2_17_x86_64");
	tf_strvec_release(&sv);
	CHECK_INT(tf_wheel_tags_expand("py3", "", "any", &sv), -1);
	CHECK_INT(sv.nr, 0);
	tf_buf_release(&b);
}

int main(void)
{
	test_normalize();
	test_valid_names();
	test_pep440();
	test_tags();
	return unit_done();
}
