#include "unit.h"

#include "buf.h"
#include "compat.h"

static const struct tf_compat_target x86 = {
	.arch = "x86_64", .glibc_minor = 36, .py_major = 3, .py_minor = 11
};
static const struct tf_compat_target arm = {
	.arch = "aarch64", .glibc_minor = 36, .py_major = 3, .py_minor = 11
};
static const struct tf_compat_target mac = {
	.arch = "macos-arm64", .macos_major = 12, .py_major = 3, .py_minor = 11
};

/* The platforms, most specific first, legacy aliases in their places. */
static void test_platforms(void)
{
	struct tf_strvec v = TF_STRVEC_INIT;

	tf_compat_platforms(&arm, &v);
	CHECK_INT(v.nr, 36 - 17 + 1 + 1);
	CHECK_STR(v.v[0], "manylinux_2_36_aarch64");
	CHECK_STR(v.v[v.nr - 2], "manylinux_2_17_aarch64");
	CHECK_STR(v.v[v.nr - 1], "manylinux2014_aarch64");
	tf_strvec_release(&v);
	tf_compat_platforms(&x86, &v);
	CHECK_INT(v.nr, 36 - 5 + 1 + 3);
	CHECK_STR(v.v[0], "manylinux_2_36_x86_64");
	CHECK_STR(v.v[v.nr - 1], "manylinux1_x86_64");
	CHECK_STR(v.v[v.nr - 2], "manylinux_2_5_x86_64");
	tf_strvec_release(&v);
	/* packaging.tags.mac_platforms((12, 0), "arm64") */
	tf_compat_platforms(&mac, &v);
	CHECK_INT(v.nr, 2 * 2 + 13);
	CHECK_STR(v.v[0], "macosx_12_0_arm64");
	CHECK_STR(v.v[1], "macosx_12_0_universal2");
	CHECK_STR(v.v[2], "macosx_11_0_arm64");
	CHECK_STR(v.v[4], "macosx_10_16_universal2");
	CHECK_STR(v.v[v.nr - 1], "macosx_10_4_universal2");
	tf_strvec_release(&v);
	tf_compat_abis(&x86, &v);
	CHECK_INT(v.nr, 3);
	CHECK_STR(v.v[0], "cp311");
	CHECK_STR(v.v[1], "abi3");
	CHECK_STR(v.v[2], "none");
	tf_strvec_release(&v);
}

/* Which wheels fit which target, and how well (lower is better). */
static void test_rank(void)
{
	static const struct {
		const struct tf_compat_target *t;
		const char *file;
		int fits;
	} cases[] = {
		{ &x86, "tf-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl", 1 },
		{ &mac, "tf-2.21.0-cp311-cp311-macosx_12_0_arm64.whl", 1 },
		{ &mac, "tf-2.21.0-cp311-cp311-macosx_13_0_arm64.whl", 0 },
		{ &mac, "tf-2.21.0-cp311-cp311-macosx_10_9_universal2.whl", 1 },
		{ &mac, "tf-2.21.0-cp311-cp311-macosx_10_9_x86_64.whl", 0 },
		{ &mac, "tf-2.21.0-cp311-cp311-manylinux_2_27_aarch64.whl", 0 },
		{ &mac, "tf-2.21.0-py3-none-any.whl", 1 },
		{ &x86, "tf-2.21.0-cp311-cp311-manylinux_2_38_x86_64.whl", 0 },
		{ &x86, "tf-2.21.0-cp311-cp311-manylinux2014_x86_64.whl", 1 },
		{ &x86, "tf-2.21.0-cp311-cp311-manylinux1_x86_64.whl", 1 },
		{ &x86, "tf-2.21.0-cp311-cp311-manylinux_2_27_aarch64.whl", 0 },
		{ &x86, "tf-2.21.0-cp311-cp311-linux_x86_64.whl", 0 },
		{ &x86, "tf-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl", 0 },
		{ &x86, "tf-2.21.0-cp38-abi3-manylinux_2_17_x86_64.whl", 1 },
		{ &x86, "tf-2.21.0-cp312-abi3-manylinux_2_17_x86_64.whl", 0 },
		{ &x86, "tf-2.21.0-py3-none-any.whl", 1 },
		{ &x86, "tf-2.21.0-py2.py3-none-any.whl", 1 },
		{ &x86, "tf-2.21.0-1-py3-none-any.whl", 1 },
		{ &x86, "tf-2.21.0-cp311-cp311-win_amd64.whl", 0 },
		{ &x86, "tf-2.21.0-cp311-cp311-musllinux_1_2_x86_64.whl", 0 },
		{ &arm, "tf-2.21.0-cp311-cp311-manylinux2014_aarch64.whl", 1 },
		{ &arm, "tf-2.21.0-cp311-cp311-manylinux2010_aarch64.whl", 0 },
		{ &arm, "tf-2.21.0-cp311-cp311-manylinux_2_17_x86_64.whl", 0 },
		{ &arm,
		  "tf-2.21.0-cp311-cp311-manylinux_2_17_aarch64.manylinux2014_aarch64.whl",
		  1 },
		{ &arm, "tf-2.21.0.tar.gz", 0 },
		{ &arm, "tf-2.21.0-py3-none.whl", 0 },
	};
	struct tf_buf why = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&why);
		CHECK_INT(tf_compat_rank(cases[i].t, cases[i].file, &why) >= 0,
			  cases[i].fits);
		CHECK_INT(why.len > 0, !cases[i].fits);
	}
	tf_buf_release(&why);
}

/* Several candidates: the most specific wins, as pip picks. */
static void test_best(void)
{
	static const char *const files[] = {
		"tf-1.0-py3-none-any.whl",
		"tf-1.0-cp311-abi3-manylinux_2_28_x86_64.whl",
		"tf-1.0-cp311-cp311-manylinux2014_x86_64.whl",
		"tf-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
		"tf-1.0-cp311-cp311-manylinux_2_28_aarch64.whl",
		"tf-1.0-cp311-cp311-manylinux_2_39_x86_64.whl",
	};
	static const char *const pure[] = {
		"tf-1.0-py3-none-any.whl",
		"tf-1.0-py311-none-any.whl",
		"tf-1.0-cp311-cp311-manylinux_2_39_aarch64.whl",
	};
	static const char *const none[] = {
		"tf-1.0-cp311-cp311-manylinux_2_39_x86_64.whl",
	};

	CHECK_INT(tf_compat_best(&x86, files, 6), 3);
	CHECK_INT(tf_compat_best(&arm, files, 6), 4);
	CHECK_INT(tf_compat_best(&x86, files, 3), 2);
	CHECK_INT(tf_compat_best(&x86, files, 2), 1);
	CHECK_INT(tf_compat_best(&x86, files, 1), 0);
	CHECK_INT(tf_compat_best(&arm, pure, 3), 1);
	CHECK_INT(tf_compat_best(&x86, none, 1), -1);
	CHECK_INT(tf_compat_best(&x86, none, 0), -1);
}

static void test_split(void)
{
	struct tf_buf name = TF_BUF_INIT, version = TF_BUF_INIT,
		      why = TF_BUF_INIT;
	struct tf_strvec tags = TF_STRVEC_INIT;

	CHECK_INT(tf_compat_split("tensorflow_cpu-2.21.0-cp311-cp311-"
				  "manylinux_2_27_x86_64.whl",
				  &name, &version, &tags, &why),
		  0);
	CHECK_STR(name.buf, "tensorflow_cpu");
	CHECK_STR(version.buf, "2.21.0");
	CHECK_INT(tags.nr, 1);
	CHECK_INT(tf_compat_split("a/b-1-py3-none-any.whl", &name, &version,
				  &tags, &why),
		  -1);
	tf_buf_release(&name);
	tf_buf_release(&version);
	tf_buf_release(&why);
	tf_strvec_release(&tags);
}

int main(void)
{
	test_platforms();
	test_rank();
	test_best();
	test_split();
	return unit_done();
}
