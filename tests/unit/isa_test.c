/*
 * The ISA tables: aarch64 encodings (words taken from what GCC 12 emits
 * for each extension: aarch64-linux-gnu-gcc -march=armv8.1-a+crc,
 * armv8.2-a+dotprod+fp16, armv8.3-a+rcpc, armv8.2-a+sve), level names,
 * CPU models and the record in the wheel.
 */
#include "unit.h"

#include <stdlib.h>

#include "buf.h"
#include "isa.h"
#include "isa_guard.h"

static const struct {
	unsigned word;
	int feature; /* -1: armv8.0-a */
	const char *name;
} a64[] = {
	{ 0xf8e20000, TF_ISA_LSE, "ldaddal" },  /* ldaddal x2, x0, [x0] */
	{ 0xb8a08020, TF_ISA_LSE, "swpa" },     /* swpa w0, w0, [x1] */
	{ 0xc8e0fc41, TF_ISA_LSE, "cas" },      /* casal x0, x1, [x2] */
	{ 0x1ac14000, TF_ISA_CRC, "crc32" },    /* crc32b w0, w0, w1 */
	{ 0x6e829420, TF_ISA_DOTPROD, "udot" }, /* udot v0.4s, v1.16b, v2.16b */
	{ 0x4e829420, TF_ISA_DOTPROD, "sdot" },
	{ 0x4e411400, TF_ISA_FP16, "half-precision simd" }, /* fadd v0.8h */
	{ 0x1ee22800, TF_ISA_FP16, "half-precision fp" }, /* fadd h0, h0, h2 */
	{ 0xf8bfc000, TF_ISA_RCPC, "ldapr" },             /* ldapr x0, [x0] */
	{ 0xa5434001, TF_ISA_SVE, "sve" }, /* ld1w {z1.s}, p0/z, ... */
	{ 0x2518e3e1, TF_ISA_SVE, "sve" }, /* ptrue p1.b */
	{ 0x0420e3e4, TF_ISA_SVE, "sve" }, /* cntb x4 */
	{ 0xd65f03c0, -1, NULL },          /* ret */
	{ 0xc8dffc00, -1, NULL },          /* ldar x0, [x0] */
	{ 0x1ee24000, -1, NULL },          /* fcvt s0, h0: armv8.0-a */
	{ 0x4e20d400, -1, NULL },          /* fadd v0.4s, v0.4s, v0.4s */
	{ 0x1f020020, -1, NULL },          /* fmadd s0, s1, s2, s0 */
	{ 0xc85f7c20, -1, NULL },          /* ldxr x0, [x1] */
};

static void test_a64(void)
{
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(a64) / sizeof(*a64); i++) {
		name[0] = '\0';
		CHECK_INT(tf_isa_a64_classify(a64[i].word, name),
			  a64[i].feature);
		if (a64[i].name)
			CHECK_STR(name, a64[i].name);
	}
}

/* libgcc's outline-atomic helpers, by name (the guard is t1103's). */
static void test_lse_helper_names(void)
{
	static const char *const yes[] = {
		"__aarch64_ldadd8_acq_rel", "__aarch64_cas16_sync",
		"__aarch64_swp1_relax",     "__aarch64_ldclr2_rel",
		"__aarch64_ldeor4_acq",     "__aarch64_ldset8",
	};
	static const char *const no[] = {
		"__aarch64_ldadd_acq",        "__aarch64_ldadd8_acq_relx",
		"__aarch64_ldsmax4_acq",      "__aarch64_have_lse_atomics",
		"aarch64_ldadd8_acq",         "__aarch64_cas16_acq.cold",
		"__aarch64_ldadd8_acq_rel_2", "",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		CHECK(tf_isa_lse_helper_name(yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		CHECK(!tf_isa_lse_helper_name(no[i]));
}

static void test_levels(void)
{
	enum tf_isa_family fam;
	int level;

	CHECK_INT(tf_isa_level_parse("x86-64-v3", &fam, &level), 0);
	CHECK_INT(fam, TF_ISA_X86_64);
	CHECK_INT(level, 3);
	CHECK_INT(tf_isa_level_parse("armv8.2-a", &fam, &level), 0);
	CHECK_INT(fam, TF_ISA_AARCH64);
	CHECK_INT(level, 2);
	CHECK_INT(tf_isa_level_parse("x86-64-v5", &fam, &level), -1);
	CHECK_INT(tf_isa_level_parse("", &fam, &level), -1);
	CHECK_STR(tf_isa_level_name(TF_ISA_X86_64, 1), "x86-64-v1");
	CHECK_STR(tf_isa_level_name(TF_ISA_AARCH64, 9),
		  "aarch64 optional extensions");
	CHECK_STR(tf_isa_cpu_model(TF_ISA_X86_64, 1), "qemu64");
	CHECK_STR(tf_isa_cpu_model(TF_ISA_X86_64, 3), "Haswell");
	CHECK_STR(tf_isa_cpu_model(TF_ISA_AARCH64, 0), "cortex-a53");
	/* Every feature belongs to a level above its family's baseline. */
	for (level = 0; level < TF_ISA_NR; level++)
		CHECK(tf_isa_feature_level(level) >
		      tf_isa_baseline(tf_isa_feature_family(level)));
	CHECK_INT(tf_isa_feature_level(TF_ISA_AVX2), 3);
	CHECK_INT(tf_isa_feature_level(TF_ISA_POPCNT), 2);
	CHECK_INT(tf_isa_feature_level(TF_ISA_AVX512F), 4);
	CHECK_INT(tf_isa_feature_level(TF_ISA_LSE), 1);
}

static void test_record(void)
{
	const char *globs[] = { "pkg/*.so", "pkg/lib/libm1.so" };
	struct tf_isa_policy p = { .dispatch = globs,
				   .nr_dispatch = 2,
				   .minimum = "x86-64-v2" },
			     q = TF_ISA_POLICY_INIT;
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT;
	const char **store = NULL;
	char bad[] = "Minimum: pentium\n", junk[] = "Speed: fast\n";

	tf_isa_policy_format(&p, &text);
	CHECK_STR(text.buf, "Record-Version: 1\nMinimum: x86-64-v2\n"
			    "Dispatch: pkg/*.so\nDispatch: pkg/lib/libm1.so\n");
	CHECK_INT(tf_isa_policy_parse(text.buf, &q, &store, &why), 0);
	CHECK_STR(q.minimum, "x86-64-v2");
	CHECK_INT(q.nr_dispatch, 2);
	CHECK_STR(q.dispatch[1], "pkg/lib/libm1.so");
	CHECK(tf_isa_dispatches(&q, "pkg/a.so"));
	CHECK(!tf_isa_dispatches(&q, "pkg/sub/a.so"));
	CHECK(!tf_isa_dispatches(&q, "other/a.so"));
	free(store);
	CHECK_INT(tf_isa_policy_parse(bad, &q, &store, &why), -1);
	CHECK_STR(why.buf, "line 1: unknown level 'pentium'");
	free(store);
	tf_buf_reset(&why);
	CHECK_INT(tf_isa_policy_parse(junk, &q, &store, &why), -1);
	CHECK_STR(why.buf, "line 1: not 'Minimum: LEVEL' or 'Dispatch: GLOB'");
	free(store);
	tf_buf_release(&text);
	tf_buf_release(&why);
}

/* Functions named for an extension (isa_dispatch.c): a token as a word. */
static void test_kernel_names(void)
{
	static const char *const x86_yes[] = {
		"vsum_avx2",
		"sum.avx2",
		"_ZN2at6native4AVX212add_kernelEv",
		"HasAvx2",
		"gemm_AVX512F_x",
		"xnn_f32_gemm_ukernel_4x8__fma3_broadcast",
		"haswell_dot",
		"copy_sse41",
		"x86_64_v3_impl",
		"avx",
	};
	static const char *const x86_no[] = {
		"false",       "savx2", "avxe",   "bmix",
		"information", "skxp",  "Avxfoo", "",
	};
	static const char *const a64_yes[] = {
		"add_lse",        "dot_dotprod", "sve_kernel", "kernelSve2",
		"neon_i8mm_gemm", "crc32_arm",   "LSE",
	};
	static const char *const a64_no[] = {
		"false", "else", "pulse", "crcx", "sves", "add_avx2", "",
	};
	size_t i;

	for (i = 0; i < sizeof(x86_yes) / sizeof(*x86_yes); i++)
		CHECK(tf_isa_kernel_name(1, x86_yes[i]));
	for (i = 0; i < sizeof(x86_no) / sizeof(*x86_no); i++)
		CHECK(!tf_isa_kernel_name(1, x86_no[i]));
	for (i = 0; i < sizeof(a64_yes) / sizeof(*a64_yes); i++)
		CHECK(tf_isa_kernel_name(0, a64_yes[i]));
	for (i = 0; i < sizeof(a64_no) / sizeof(*a64_no); i++)
		CHECK(!tf_isa_kernel_name(0, a64_no[i]));
}

#define BIT(x) (1ULL << TF_ISA_##x)

/* A CPU's name allows GCC's -march set for it, no more (isa_dispatch.c). */
static void test_cpu_names(void)
{
	unsigned long long m;

	/* simdjson's kernels: simdjson::westmere::..., ::haswell::... */
	m = tf_isa_kernel_name(
		1, "_ZN8simdjson8westmere14implementation6minifyEv");
	CHECK(m & BIT(SSE42) && m & BIT(PCLMUL) && m & BIT(POPCNT));
	CHECK(!(m & BIT(AVX)) && !(m & BIT(AVX2)) && !(m & BIT(AES)));
	m = tf_isa_kernel_name(1, "sum_nehalem");
	CHECK(m & BIT(SSE41) && !(m & BIT(PCLMUL)));
	m = tf_isa_kernel_name(1, "SandyBridgeKernel");
	CHECK(m & BIT(AVX) && !(m & BIT(AVX2)) && !(m & BIT(F16C)));
	m = tf_isa_kernel_name(1, "ivybridge_copy");
	CHECK(m & BIT(F16C) && !(m & BIT(FMA)));
	m = tf_isa_kernel_name(1, "haswell_dot");
	CHECK(m & BIT(AVX2) && m & BIT(FMA) && !(m & BIT(ADX)) &&
	      !(m & BIT(AVX512F)));
	m = tf_isa_kernel_name(1, "broadwell_add");
	CHECK(m & BIT(ADX) && !(m & BIT(AES)));
	CHECK(!(tf_isa_kernel_name(1, "core2_x") & BIT(SSE41)));
	CHECK(tf_isa_kernel_name(1, "icelake_x") & BIT(AVX512BW));
	CHECK(!(tf_isa_kernel_name(1, "silvermont_x") & BIT(AVX)));
	CHECK(tf_isa_kernel_name(1, "goldmont_plus_x") & BIT(SHA));
	CHECK(!(tf_isa_kernel_name(1, "znver3_x") & BIT(AVX512F)));
	/* The union: "zen" and "zen4" both match "zen4". */
	CHECK(tf_isa_kernel_name(1, "sum_zen4") & BIT(AVX512F));
	CHECK(!(tf_isa_kernel_name(1, "sum_zen2") & BIT(AVX512F)));
	/* An extension's name allows any feature, as before. */
	CHECK(tf_isa_kernel_name(1, "skylake_avx512_x") == ~0ULL);
	CHECK(tf_isa_kernel_name(1, "sum.arch_westmere") ==
	      tf_isa_kernel_name(1, "westmere"));
	CHECK(!tf_isa_kernel_name(1, "westmerex") &&
	      !tf_isa_kernel_name(1, "sandybridges"));
}

int main(void)
{
	test_a64();
	test_lse_helper_names();
	test_kernel_names();
	test_cpu_names();
	test_levels();
	test_record();
	return unit_done();
}
