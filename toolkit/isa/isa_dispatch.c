/*
 * Run-time dispatch in a file that declares none (isa_guard.h,
 * docs/isa.md): what shows that the file chooses code by the CPU it runs
 * on, and which functions are the choices. Evidence: an x86 `cpuid` or
 * `xgetbv`, libgcc's __cpu_model (what __builtin_cpu_supports reads) or
 * __cpu_indicator_init, an aarch64 `mrs` of an ID register or a linked
 * getauxval (AT_HWCAP), and STT_GNU_IFUNC symbols. Choices: the
 * functions an ifunc's resolver returns (the addresses it loads), GCC's
 * target_clones versions (`foo.avx2`), and functions named for an
 * extension (`vsum_avx2`, ATen's `at::native::AVX2::`), which count only
 * in a file with evidence.
 */
#include "isa_guard.h"
#include "isa.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "audit/audit.h"

/* Names of extensions that kernels are named for: any feature. */
static const char *const x86_tokens[] = {
	"avx",
	"avx2",
	"avx512",
	"avx512f",
	"avx512bw",
	"avx512vl",
	"avx10",
	"amx",
	"vnni",
	"fma",
	"fma3",
	"f16c",
	"sse3",
	"ssse3",
	"sse4",
	"sse41",
	"sse42",
	"sse4_1",
	"sse4_2",
	"bmi",
	"bmi2",
	"aesni",
	"pclmul",
	"shani",
	"clmul",
	"x86_64_v2",
	"x86_64_v3",
	"x86_64_v4",
	"arch_x86_64_v2",
	"arch_x86_64_v3",
	"arch_x86_64_v4",
};

#define F(x) (1ULL << TF_ISA_##x)
#define CORE2 (F(SSE3) | F(SSSE3) | F(CX16))
#define NEHALEM (CORE2 | F(SSE41) | F(SSE42) | F(POPCNT))
#define WESTMERE (NEHALEM | F(PCLMUL))
#define SANDYBRIDGE (WESTMERE | F(AVX))
#define IVYBRIDGE (SANDYBRIDGE | F(F16C) | F(FSGSBASE))
#define HASWELL \
	(IVYBRIDGE | F(AVX2) | F(BMI1) | F(BMI2) | F(FMA) | F(LZCNT) | F(MOVBE))
#define BROADWELL (HASWELL | F(ADX))
#define SKYLAKE (BROADWELL | F(AES))
#define AVX512 \
	(F(AVX512F) | F(AVX512BW) | F(AVX512CD) | F(AVX512DQ) | F(AVX512VL))
#define SKX (SKYLAKE | AVX512)
#define ICELAKE (SKX | F(SHA))
#define SILVERMONT (NEHALEM | F(PCLMUL) | F(MOVBE))
#define GOLDMONT (SILVERMONT | F(AES) | F(SHA) | F(FSGSBASE))
#define ZNVER1 (SKYLAKE | F(SHA))
#define KNL (HASWELL | F(ADX) | F(AVX512F) | F(AVX512CD) | F(AVX512X))

/*
 * CPUs that kernels are named for (simdjson's westmere, haswell and
 * icelake), with the features GCC 12's -march=NAME enables (`gcc
 * -march=NAME -Q --help=target`; GCC 12 dropped AES from westmere to
 * broadwell). Beyond their features a CPU's name is no choice. AMD's
 * SSE4a (TF_ISA_AMD, counted with XOP and FMA4) is left out of zen's.
 */
static const struct cpu_name {
	const char *name;
	unsigned long long features;
} x86_cpus[] = {
	{ "core2", CORE2 },
	{ "nehalem", NEHALEM },
	{ "westmere", WESTMERE },
	{ "sandybridge", SANDYBRIDGE },
	{ "ivybridge", IVYBRIDGE },
	{ "haswell", HASWELL },
	{ "broadwell", BROADWELL },
	{ "skylake", SKYLAKE },
	{ "skx", SKX },
	{ "cascadelake", SKX },
	{ "cooperlake", SKX },
	{ "cannonlake", ICELAKE },
	{ "icelake", ICELAKE },
	{ "icx", ICELAKE },
	{ "tigerlake", ICELAKE },
	{ "sapphirerapids", ICELAKE },
	{ "spr", ICELAKE },
	{ "alderlake", SKYLAKE | F(SHA) },
	{ "bonnell", CORE2 | F(MOVBE) },
	{ "silvermont", SILVERMONT },
	{ "goldmont", GOLDMONT },
	{ "tremont", GOLDMONT },
	{ "knl", KNL },
	{ "zen", ZNVER1 },
	{ "zen2", ZNVER1 },
	{ "zen3", ZNVER1 },
	{ "zen4", ZNVER1 | AVX512 },
	{ "znver1", ZNVER1 },
	{ "znver2", ZNVER1 },
	{ "znver3", ZNVER1 },
	{ "znver4", ZNVER1 | AVX512 },
};

static const char *const a64_tokens[] = {
	"lse",   "sve",      "sve2",  "sve128",  "sve256", "sve512",  "dotprod",
	"i8mm",  "bf16",     "fp16",  "fp16fml", "crc",    "crc32",   "rdm",
	"rcpc",  "sha3",     "sm4",   "armv8_2", "armv82", "armv8_4", "armv84",
	"v8_2a", "neoverse", "a64fx", "sme",
};

/* The length of token t if it is at p as a word's start: after it no
   lowercase letter ("avx2E", "_avx2_", "4AVX2" all count; "false" is
   not "lse"); 0 if not. */
static size_t token_at(const char *p, const char *t)
{
	size_t len;

	for (len = 0; t[len] && tolower((unsigned char)p[len]) == t[len]; len++)
		;
	return !t[len] && !islower((unsigned char)p[len]) ? len : 0;
}

/* What the tokens at p allow, 0 if none is there. */
static unsigned long long tokens_at(int x86, const char *p)
{
	const char *const *t = x86 ? x86_tokens : a64_tokens;
	size_t i, n = x86 ? sizeof(x86_tokens) / sizeof(*x86_tokens)
			  : sizeof(a64_tokens) / sizeof(*a64_tokens);
	unsigned long long mask = 0;

	for (i = 0; i < n; i++)
		if (token_at(p, t[i]))
			return ~0ULL;
	for (i = 0; x86 && i < sizeof(x86_cpus) / sizeof(*x86_cpus); i++)
		if (token_at(p, x86_cpus[i].name))
			mask |= x86_cpus[i].features;
	return mask;
}

/*
 * What a function's name says it is for: the union of what the tokens
 * it holds, case aside, as words allow: before a token no letter (or a
 * camel-case boundary, "HasAvx2"). Names are walked once, the tokens
 * tried only where a word starts: a file has 700,000 of them.
 */
unsigned long long tf_isa_kernel_name(int x86, const char *name)
{
	unsigned long long mask = 0;
	const char *p;

	for (p = name; *p && mask != ~0ULL; p++) {
		if (!isalpha((unsigned char)*p) ||
		    (p > name && isalpha((unsigned char)p[-1]) &&
		     !(islower((unsigned char)p[-1]) &&
		       isupper((unsigned char)p[0]))))
			continue;
		mask |= tokens_at(x86, p);
	}
	return mask;
}

static int cmp_addr(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a,
			   y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

void tf_isa_dispatch_init(struct tf_isa_dispatch *d,
			  const struct tf_elf_code *code, int x86)
{
	struct tf_elf_sym sym;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->code = code;
	d->x86 = x86;
	for (i = 0; i < code->nr_funcs; i++) {
		if (!code->funcs[i].ifunc)
			continue;
		if (!d->nr_ifuncs++)
			d->ifunc = code->funcs[i].name;
	}
	if (x86) {
		if (tf_elf_code_symbol(code, "__cpu_model", &sym))
			d->symbol = "__cpu_model";
		else if (tf_elf_code_symbol(code, "__cpu_indicator_init", &sym))
			d->symbol = "__cpu_indicator_init";
	} else if ((tf_elf_code_symbol(code, "getauxval", &sym) ||
		    tf_elf_code_symbol(code, "__getauxval", &sym)) &&
		   !(tf_elf_code_symbol(code, "__aarch64_have_lse_atomics",
					&sym) &&
		     sym.defined)) {
		/* Not when libgcc's outline atomics alone link it
		   (isa_guard.c judges their LSE code on its own). */
		d->symbol = "getauxval";
	}
	tf_elf_code_drop(code, NULL, 0);
}

void tf_isa_dispatch_release(struct tf_isa_dispatch *d)
{
	free(d->targets);
	free(d->known);
	free(d->masks);
	d->known = NULL;
	d->masks = NULL;
	d->nr_masks = 0;
	d->targets = NULL;
	d->nr_targets = 0;
}

static void sort_targets(struct tf_isa_dispatch *d)
{
	/* qsort's array may not be NULL, even with no element. */
	if (!d->sorted && d->nr_targets)
		qsort(d->targets, d->nr_targets, sizeof(*d->targets), cmp_addr);
	d->sorted = 1;
}

void tf_isa_dispatch_fork(struct tf_isa_dispatch *d,
			  struct tf_isa_dispatch *copy)
{
	sort_targets(d);
	*copy = *d;
	copy->known = NULL;
	copy->masks = NULL;
	copy->nr_masks = 0;
	copy->have_last = 0;
	copy->check[0] = '\0';
}

void tf_isa_dispatch_join(struct tf_isa_dispatch *d,
			  struct tf_isa_dispatch *copy)
{
	if (!d->check[0])
		memcpy(d->check, copy->check, sizeof(d->check));
	free(copy->known);
	free(copy->masks);
	copy->known = NULL;
	copy->masks = NULL;
	copy->targets = NULL;
}

void tf_isa_dispatch_target(struct tf_isa_dispatch *d, unsigned long long addr)
{
	const struct tf_elf_func *fn = tf_elf_code_func(d->code, addr);

	/* Only the start of a function the file defines is a choice. */
	if (!fn || fn->addr != addr || fn->ifunc)
		return;
	if (!(d->nr_targets & (d->nr_targets + 1)))
		d->targets = tf_realloc(d->targets, (2 * d->nr_targets +
						     1) * sizeof(*d->targets));
	d->targets[d->nr_targets++] = addr;
	d->sorted = 0;
}

/* ADRP Xd, page; ADD Xd, Xd, #lo12: the addresses an aarch64 resolver
   loads, within its first 64 words. */
void tf_isa_dispatch_a64_resolver(struct tf_isa_dispatch *d,
				  const struct tf_elf_code_section *sec,
				  const struct tf_elf_func *fn)
{
	unsigned long long a, end = fn->addr + (fn->size ? fn->size : 256),
			      page[32] = { 0 };
	unsigned have = 0, w, rd, rn, imm;
	const unsigned char *p;

	if (end > fn->addr + 256)
		end = fn->addr + 256;
	for (a = fn->addr; a + 4 <= end; a += 4) {
		if (a < sec->addr || a + 4 > sec->addr + sec->size)
			return;
		p = sec->bytes + (a - sec->addr);
		w = (unsigned)p[0] | (unsigned)p[1] << 8 |
		    (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
		rd = w & 31;
		if ((w & 0x9f000000) == 0x90000000) { /* ADRP */
			unsigned long long imm21 =
				((w >> 29) & 3) | ((w >> 5) & 0x7ffff) << 2;

			if (imm21 & 0x100000)
				imm21 |= ~0x1fffffULL;
			page[rd] = (a & ~0xfffULL) + (imm21 << 12);
			have |= 1u << rd;
		} else if ((w & 0xffc00000) == 0x91000000) { /* ADD #imm */
			rn = (w >> 5) & 31;
			imm = (w >> 10) & 0xfff;
			if (have & (1u << rn))
				tf_isa_dispatch_target(d, page[rn] + imm);
		}
	}
}

void tf_isa_dispatch_cpuid(struct tf_isa_dispatch *d, const char *what,
			   unsigned long long addr)
{
	const struct tf_elf_func *fn;

	if (d->check[0])
		return;
	fn = tf_elf_code_func(d->code, addr);
	if (fn)
		snprintf(d->check, sizeof(d->check), "%s in %.100s+0x%llx",
			 what, fn->name, addr - fn->addr);
	else
		snprintf(d->check, sizeof(d->check), "%s at 0x%llx", what,
			 addr);
}

int tf_isa_dispatch_evidence(const struct tf_isa_dispatch *d)
{
	return d->check[0] || d->symbol || d->nr_ifuncs;
}

void tf_isa_dispatch_describe(const struct tf_isa_dispatch *d,
			      struct tf_buf *out)
{
	int n = 0;

	if (d->check[0])
		tf_buf_addf(out, "%s", d->check), n++;
	if (d->symbol)
		tf_buf_addf(out, "%s%s%s", n++ ? ", " : "",
			    d->x86 ? "uses " : "links ", d->symbol);
	if (d->nr_ifuncs)
		tf_buf_addf(out, "%s%zu ifunc%s (%s)", n++ ? ", " : "",
			    d->nr_ifuncs, d->nr_ifuncs == 1 ? "" : "s",
			    d->ifunc);
}

static const char *const kinds[] = {
	[TF_ISA_IN_IFUNC] = "an ifunc's candidate",
	[TF_ISA_IN_CLONE] = "a target_clones version",
	[TF_ISA_IN_NAMED] = "a function named for its extension",
};

const char *tf_isa_dispatch_kind_name(enum tf_isa_in kind)
{
	return kind > TF_ISA_OUTSIDE ? kinds[kind] : "outside";
}

/* The kind of choice fn is; *mask: the features its name allows. */
static enum tf_isa_in classify(struct tf_isa_dispatch *d,
			       const struct tf_elf_func *fn,
			       unsigned long long *mask)
{
	const char *dot;

	*mask = ~0ULL;
	if (d->nr_targets && bsearch(&fn->addr, d->targets, d->nr_targets,
				     sizeof(*d->targets), cmp_addr))
		return TF_ISA_IN_IFUNC;
	dot = strchr(fn->name, '.');
	if (dot && d->nr_ifuncs && (*mask = tf_isa_kernel_name(d->x86, dot)))
		return TF_ISA_IN_CLONE;
	if ((*mask = tf_isa_kernel_name(d->x86, fn->name)))
		return TF_ISA_IN_NAMED;
	*mask = ~0ULL;
	return TF_ISA_OUTSIDE;
}

/* Where mask is kept in d->masks, added if new; 0 (every feature) once
   the index would not fit beside the kind. */
static unsigned mask_index(struct tf_isa_dispatch *d, unsigned long long mask)
{
	size_t i;

	if (mask == ~0ULL)
		return 0;
	for (i = 1; i < d->nr_masks; i++)
		if (d->masks[i] == mask)
			return (unsigned)i;
	if (d->nr_masks >= 0xffff / 8)
		return 0;
	if (!d->nr_masks)
		d->nr_masks = 1;
	d->masks = tf_realloc(d->masks, (d->nr_masks + 1) * sizeof(*d->masks));
	d->masks[0] = ~0ULL;
	d->masks[d->nr_masks] = mask;
	return (unsigned)d->nr_masks++;
}

static enum tf_isa_in in_function(struct tf_isa_dispatch *d,
				  unsigned long long addr)
{
	const struct tf_elf_func *fn;
	unsigned short *k;

	if (d->have_last && addr >= d->last_lo && addr < d->last_hi)
		return d->last;
	sort_targets(d);
	fn = tf_elf_code_func(d->code, addr);
	if (!fn)
		return TF_ISA_OUTSIDE;
	if (!d->known)
		d->known = tf_calloc(d->code->nr_funcs + 1, sizeof(*d->known));
	/* Each function's name is read once. */
	k = &d->known[fn - d->code->funcs];
	if (!*k) {
		unsigned long long mask;
		enum tf_isa_in kind = classify(d, fn, &mask);

		*k = (unsigned short)(1 + kind + 8 * mask_index(d, mask));
	}
	d->last = (enum tf_isa_in)((*k & 7) - 1);
	d->last_mask = *k >> 3 ? d->masks[*k >> 3] : ~0ULL;
	d->have_last = fn->size != 0;
	d->last_lo = fn->addr;
	d->last_hi = fn->addr + fn->size;
	return d->last;
}

enum tf_isa_in tf_isa_dispatch_in(struct tf_isa_dispatch *d,
				  unsigned long long addr, int feature)
{
	enum tf_isa_in in = in_function(d, addr);

	if (in == TF_ISA_OUTSIDE)
		return in;
	return d->last_mask & (1ULL << feature) ? in : TF_ISA_OUTSIDE;
}
