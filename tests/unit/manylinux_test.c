#include "unit.h"

#include "manylinux.h"
#include "buf.h"

#define X86 TF_ARCH_X86_64
#define ARM TF_ARCH_AARCH64

static void test_platform_parse(void)
{
	static const struct {
		const char *tag;
		int ret;
		enum tf_platform_kind kind;
		enum tf_arch arch;
		unsigned minor;
	} cases[] = {
		{ "any", 0, TF_PLATFORM_ANY, TF_ARCH_NONE, 0 },
		{ "linux_x86_64", 0, TF_PLATFORM_LINUX, X86, 0 },
		{ "linux_aarch64", 0, TF_PLATFORM_LINUX, ARM, 0 },
		{ "manylinux_2_17_x86_64", 0, TF_PLATFORM_MANYLINUX, X86, 17 },
		{ "manylinux_2_39_aarch64", 0, TF_PLATFORM_MANYLINUX, ARM, 39 },
		{ "manylinux_2_29_x86_64", 0, TF_PLATFORM_MANYLINUX, X86, 29 },
		{ "manylinux1_x86_64", 0, TF_PLATFORM_MANYLINUX, X86, 5 },
		{ "manylinux2010_x86_64", 0, TF_PLATFORM_MANYLINUX, X86, 12 },
		{ "manylinux2014_aarch64", 0, TF_PLATFORM_MANYLINUX, ARM, 17 },
		/* A compressed set is held to its lowest glibc. */
		{ "manylinux_2_17_x86_64.manylinux2014_x86_64", 0,
		  TF_PLATFORM_MANYLINUX, X86, 17 },
		{ "manylinux_2_28_x86_64.manylinux_2_17_x86_64", 0,
		  TF_PLATFORM_MANYLINUX, X86, 17 },
		{ "linux_x86_64.manylinux_2_34_x86_64", 0,
		  TF_PLATFORM_MANYLINUX, X86, 34 },
		/* Platforms without a policy here are left unchecked. */
		{ "win_amd64", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE, 0 },
		{ "macosx_11_0_arm64", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE, 0 },
		{ "manylinux_2_17_i686", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE,
		  0 },
		{ "musllinux_1_2_x86_64", 0, TF_PLATFORM_MUSLLINUX, X86, 0 },
		{ "musllinux_2_2_x86_64", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE,
		  0 },
		{ "manylinux_3_1_x86_64", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE,
		  0 },
		{ "manylinux_2_x86_64", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE, 0 },
		{ "linux_x86_64x", 0, TF_PLATFORM_OTHER, TF_ARCH_NONE, 0 },
		{ "musllinux_1_2_x86_64.linux_aarch64", -1, 0, 0, 0 },
		{ "win_amd64.linux_aarch64", 0, TF_PLATFORM_LINUX, ARM, 0 },
		/* Sets that cannot all hold. */
		{ "manylinux_2_17_x86_64.manylinux_2_17_aarch64", -1, 0, 0, 0 },
		{ "any.linux_x86_64", -1, 0, 0, 0 },
		{ "", -1, 0, 0, 0 },
		{ "any..any", -1, 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tf_platform p = TF_PLATFORM_INIT;
		struct tf_buf why = TF_BUF_INIT;
		int ret = tf_platform_parse(cases[i].tag, &p, &why);
		int failed = unit_failed;

		CHECK_INT(ret, cases[i].ret);
		CHECK(!ret == !why.len); /* a reason exactly on failure */
		if (!ret) {
			CHECK_INT(p.kind, cases[i].kind);
			CHECK_INT(p.arch, cases[i].arch);
			CHECK_INT(p.glibc_minor, cases[i].minor);
		}
		if (unit_failed != failed)
			printf("#   case: '%s'\n", cases[i].tag);
		tf_buf_release(&why);
	}
}

static void test_parse_why(void)
{
	struct tf_platform p = TF_PLATFORM_INIT;
	struct tf_buf why = TF_BUF_INIT;

	tf_platform_parse("linux_aarch64.linux_x86_64", &p, &why);
	CHECK_STR(why.buf, "mixes architectures aarch64 and x86_64");
	tf_buf_release(&why);
}

/* Facts from auditwheel's manylinux-policy.json, by policy and arch. */
static void test_version_since(void)
{
	static const struct {
		enum tf_arch arch;
		const char *version;
		int since;
	} cases[] = {
		{ X86, "GLIBC_2.2.5", 5 },
		{ X86, "GLIBC_2.5", 5 },
		{ X86, "GLIBC_2.12", 12 },
		{ X86, "GLIBC_2.14", 17 },
		{ X86, "GLIBC_2.17", 17 },
		{ X86, "GLIBC_2.18", 24 },
		{ X86, "GLIBC_2.28", 28 },
		{ X86, "GLIBC_2.29", 31 },
		{ X86, "GLIBC_2.34", 34 },
		{ X86, "GLIBC_2.36", 36 },
		{ X86, "GLIBC_ABI_DT_RELR", 36 },
		{ X86, "GLIBC_2.38", 38 },
		{ X86, "GLIBC_2.39", 39 },
		{ X86, "GLIBC_2.37", -1 },
		{ X86, "GLIBC_2.42", -1 },
		{ X86, "GLIBC_2.40", 40 },
		{ ARM, "GLIBC_2.41", 41 },
		{ X86, "GLIBC_2.19", -1 },
		{ X86, "GLIBC_PRIVATE", -1 },
		{ X86, "GLIBC_2.0", -1 },
		{ X86, "GLIBCXX_3.4.8", 5 },
		{ X86, "GLIBCXX_3.4.19", 17 },
		{ X86, "GLIBCXX_3.4.21", 24 },
		{ X86, "GLIBCXX_3.4.23", 27 },
		{ X86, "GLIBCXX_3.4.30", 35 },
		{ X86, "GLIBCXX_3.4.33", 39 },
		{ X86, "GLIBCXX_3.4.34", -1 },
		{ X86, "CXXABI_1.3.7", 17 },
		{ X86, "CXXABI_TM_1", 17 },
		{ X86, "CXXABI_FLOAT128", 24 },
		{ X86, "CXXABI_1.3.11", 27 },
		{ X86, "CXXABI_1.3.15", 39 },
		{ X86, "GCC_4.2.0", 5 },
		{ X86, "GCC_4.8.0", 17 },
		{ X86, "GCC_7.0.0", 27 },
		{ X86, "GCC_12.0.0", 35 },
		{ X86, "GCC_14.0.0", 39 },
		{ X86, "GCC_4.5.0", -1 },
		{ X86, "LIBATOMIC_1.0", 24 },
		{ X86, "ZLIB_1.2.0", 12 },
		{ X86, "ZLIB_1.2.9", 27 },
		{ X86, "ZLIB_1.2.12", 37 },
		{ ARM, "GLIBC_2.17", 17 },
		{ ARM, "GLIBC_2.18", 17 },
		{ ARM, "GLIBC_2.0", 17 },
		{ ARM, "GLIBC_2.2.5", -1 },
		{ ARM, "GLIBC_2.22", 24 },
		{ ARM, "GLIBC_2.34", 34 },
		{ ARM, "GLIBC_2.36", 36 },
		{ ARM, "GLIBCXX_3.4.19", 17 },
		{ ARM, "GLIBCXX_3.4.24", 26 },
		{ ARM, "CXXABI_1.3.11", 26 },
		{ ARM, "CXXABI_FLOAT128", -1 },
		{ ARM, "GCC_4.5.0", 17 },
		{ ARM, "GCC_7.0.0", 26 },
		{ ARM, "GCC_11.0", 34 },
		{ ARM, "GCC_14.0", 39 },
		{ ARM, "LIBATOMIC_1.0", 17 },
		/* Families manylinux does not govern are not its business. */
		{ X86, "OPENSSL_3.0.0", 0 },
		{ ARM, "FOO_1.0", 0 },
		{ X86, "GLIBCX_1", 0 },
		{ TF_ARCH_NONE, "GLIBC_2.17", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int failed = unit_failed;

		CHECK_INT(tf_manylinux_version_since(cases[i].arch,
						     cases[i].version),
			  cases[i].since);
		if (unit_failed != failed)
			printf("#   case: %s %s\n", tf_arch_name(cases[i].arch),
			       cases[i].version);
	}
}

static void test_family_max(void)
{
	static const struct {
		enum tf_arch arch;
		unsigned minor;
		const char *version;
		const char *max;
	} cases[] = {
		{ X86, 17, "GLIBC_2.34", "GLIBC_2.17" },
		{ X86, 5, "GLIBC_2.34", "GLIBC_2.5" },
		{ X86, 36, "GLIBC_2.38", "GLIBC_2.36" },
		{ X86, 17, "GLIBCXX_3.4.21", "GLIBCXX_3.4.19" },
		{ X86, 17, "CXXABI_1.3.9", "CXXABI_1.3.7" },
		{ X86, 39, "GCC_15.0.0", "GCC_14.0.0" },
		{ X86, 17, "LIBATOMIC_1.0", NULL },
		{ ARM, 17, "GLIBC_2.34", "GLIBC_2.18" },
		{ ARM, 39, "GCC_15", "GCC_14.0.0" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tf_manylinux_policy *p =
			tf_manylinux_find(cases[i].arch, cases[i].minor);
		const char *max =
			p ? tf_manylinux_family_max(p, cases[i].version)
			  : "(no policy)";
		int failed = unit_failed;

		if (cases[i].max)
			CHECK_STR(max, cases[i].max);
		else
			CHECK(max == NULL);
		if (unit_failed != failed)
			printf("#   case: 2_%u %s\n", cases[i].minor,
			       cases[i].version);
	}
}

static void test_policies(void)
{
	static const unsigned x86[] = { 5,  12, 17, 24, 26, 27, 28,
					31, 34, 35, 36, 37, 38, 39 };
	struct tf_buf tag = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(x86) / sizeof(x86[0]); i++)
		CHECK(tf_manylinux_find(X86, x86[i]) != NULL);
	for (i = 2; i < sizeof(x86) / sizeof(x86[0]); i++)
		CHECK(tf_manylinux_find(ARM, x86[i]) != NULL);
	CHECK(tf_manylinux_find(ARM, 12) == NULL);
	CHECK(tf_manylinux_find(X86, 29) == NULL);
	CHECK(tf_manylinux_find(X86, 40) != NULL);
	CHECK(tf_manylinux_find(X86, 42) == NULL);
	CHECK(tf_manylinux_find(TF_ARCH_NONE, 17) == NULL);
	CHECK_INT(tf_manylinux_oldest(X86)->glibc_minor, 5);
	CHECK_INT(tf_manylinux_oldest(ARM)->glibc_minor, 17);
	CHECK_INT(tf_manylinux_newest(ARM)->glibc_minor, 41);
	CHECK_INT(tf_manylinux_newest(X86)->glibc_minor, 41);
	CHECK(tf_manylinux_oldest(TF_ARCH_NONE) == NULL);

	tf_manylinux_tag(tf_manylinux_find(X86, 17), &tag);
	CHECK_STR(tag.buf, "manylinux_2_17_x86_64.manylinux2014_x86_64");
	tf_buf_reset(&tag);
	tf_manylinux_tag(tf_manylinux_find(X86, 5), &tag);
	CHECK_STR(tag.buf, "manylinux_2_5_x86_64.manylinux1_x86_64");
	tf_buf_reset(&tag);
	tf_manylinux_tag(tf_manylinux_find(ARM, 34), &tag);
	CHECK_STR(tag.buf, "manylinux_2_34_aarch64");
	tf_buf_release(&tag);
}

static void test_libraries(void)
{
	CHECK_INT(tf_manylinux_library_since(X86, "libc.so.6"), 5);
	CHECK_INT(tf_manylinux_library_since(X86, "libz.so.1"), 5);
	CHECK_INT(tf_manylinux_library_since(X86, "libexpat.so.1"), 12);
	CHECK_INT(tf_manylinux_library_since(X86, "libmvec.so.1"), 24);
	CHECK_INT(tf_manylinux_library_since(ARM, "libc.so.6"), 17);
	CHECK_INT(tf_manylinux_library_since(ARM, "libexpat.so.1"), 17);
	CHECK_INT(tf_manylinux_library_since(ARM, "libmvec.so.1"), 24);
	CHECK_INT(tf_manylinux_library_since(X86, "libfoo.so.1"), 0);
	CHECK_INT(tf_manylinux_library_since(X86, "libpython3.11.so.1.0"), 0);
	CHECK_INT(tf_manylinux_library_since(X86, "libc.so"), 0);
	CHECK_INT(tf_manylinux_library_since(X86, "ld-linux-x86-64.so.2"), 0);
	CHECK_STR(tf_arch_loader(X86), "ld-linux-x86-64.so.2");
	CHECK_STR(tf_arch_loader(ARM), "ld-linux-aarch64.so.1");
}

static void test_lowest(void)
{
	static const char *const needs[] = {
		"GLIBC_2.2.5", "GLIBC_2.34",     "OPENSSL_3.0.0",
		"GLIBC_2.14",  "GLIBCXX_3.4.30", "GLIBC_PRIVATE",
	};
	const struct tf_manylinux_policy *p;
	size_t driver;

	p = tf_manylinux_lowest(X86, needs, 1, &driver);
	CHECK(p && p->glibc_minor == 5);
	CHECK_INT(driver, 1); /* the oldest policy: nothing drives it */
	p = tf_manylinux_lowest(X86, needs, 4, &driver);
	CHECK(p && p->glibc_minor == 34);
	CHECK_INT(driver, 1);
	p = tf_manylinux_lowest(X86, needs, 5, &driver);
	CHECK(p && p->glibc_minor == 35);
	CHECK_INT(driver, 4);
	p = tf_manylinux_lowest(X86, needs, 6, &driver);
	CHECK(p == NULL);
	CHECK_INT(driver, 5);
	p = tf_manylinux_lowest(X86, needs + 2, 1, &driver);
	CHECK(p && p->glibc_minor == 5);
	CHECK_INT(driver, 1);
	p = tf_manylinux_lowest(ARM, needs, 1, &driver);
	CHECK(p == NULL);
	CHECK_INT(driver, 0);
	p = tf_manylinux_lowest(ARM, needs + 1, 1, &driver);
	CHECK(p && p->glibc_minor == 34);
	CHECK_INT(driver, 0);
	p = tf_manylinux_lowest(ARM, needs, 0, &driver);
	CHECK(p && p->glibc_minor == 17);
	CHECK_INT(driver, 0);
	p = tf_manylinux_lowest(TF_ARCH_NONE, needs, 1, &driver);
	CHECK(p == NULL);
}

static void test_arch_names(void)
{
	CHECK_INT(tf_arch_from_name("x86_64"), X86);
	CHECK_INT(tf_arch_from_name("aarch64"), ARM);
	CHECK_INT(tf_arch_from_name("arm64"), TF_ARCH_NONE);
	CHECK_STR(tf_arch_name(X86), "x86_64");
	CHECK_STR(tf_arch_name(TF_ARCH_NONE), "any");
}

int main(void)
{
	test_platform_parse();
	test_parse_why();
	test_version_since();
	test_family_max();
	test_policies();
	test_libraries();
	test_lowest();
	test_arch_names();
	return unit_done();
}
