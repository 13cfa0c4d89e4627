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

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Names of extensions and CPUs that kernels are named for. */
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
	"haswell",
	"skylake",
	"skx",
	"icelake",
	"icx",
	"spr",
	"knl",
	"cascadelake",
	"zen",
	"zen2",
	"zen3",
	"zen4",
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

static const char *const a64_tokens[] = {
	"lse",   "sve",      "sve2",  "sve128",  "sve256", "sve512",  "dotprod",
	"i8mm",  "bf16",     "fp16",  "fp16fml", "crc",    "crc32",   "rdm",
	"rcpc",  "sha3",     "sm4",   "armv8_2", "armv82", "armv8_4", "armv84",
	"v8_2a", "neoverse", "a64fx", "sme",
};

/*
 * 1 if a function's name says which extension it is for: it holds a
 * token, case aside, as a word: before it no letter (or a camel-case
 * boundary, "HasAvx2"), after it no lowercase letter ("avx2E", "_avx2_",
 * "4AVX2" all count; "false" is not "lse"). Names are walked once, the
 * tokens tried only where a word starts: a file has 700,000 of them.
 */
int tf_isa_kernel_name(int x86, const char *name)
{
	const char *const *t = x86 ? x86_tokens : a64_tokens;
	size_t i, len,
		n = x86 ? sizeof(x86_tokens) / sizeof(*x86_tokens)
			: sizeof(a64_tokens) / sizeof(*a64_tokens);
	const char *p;

	for (p = name; *p; p++) {
		if (!isalpha((unsigned char)*p) ||
		    (p > name && isalpha((unsigned char)p[-1]) &&
		     !(islower((unsigned char)p[-1]) &&
		       isupper((unsigned char)p[0]))))
			continue;
		for (i = 0; i < n; i++) {
			for (len = 0;
			     t[i][len] &&
			     tolower((unsigned char)p[len]) == t[i][len];
			     len++)
				;
			if (!t[i][len] && !islower((unsigned char)p[len]))
				return 1;
		}
	}
	return 0;
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
	d->known = NULL;
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
	copy->have_last = 0;
	copy->check[0] = '\0';
}

void tf_isa_dispatch_join(struct tf_isa_dispatch *d,
			  struct tf_isa_dispatch *copy)
{
	if (!d->check[0])
		memcpy(d->check, copy->check, sizeof(d->check));
	free(copy->known);
	copy->known = NULL;
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

static enum tf_isa_in classify(struct tf_isa_dispatch *d,
			       const struct tf_elf_func *fn)
{
	const char *dot;

	if (d->nr_targets && bsearch(&fn->addr, d->targets, d->nr_targets,
				     sizeof(*d->targets), cmp_addr))
		return TF_ISA_IN_IFUNC;
	dot = strchr(fn->name, '.');
	if (dot && d->nr_ifuncs && tf_isa_kernel_name(d->x86, dot))
		return TF_ISA_IN_CLONE;
	if (tf_isa_kernel_name(d->x86, fn->name))
		return TF_ISA_IN_NAMED;
	return TF_ISA_OUTSIDE;
}

enum tf_isa_in tf_isa_dispatch_in(struct tf_isa_dispatch *d,
				  unsigned long long addr)
{
	const struct tf_elf_func *fn;

	if (d->have_last && addr >= d->last_lo && addr < d->last_hi)
		return d->last;
	sort_targets(d);
	fn = tf_elf_code_func(d->code, addr);
	if (!fn)
		return TF_ISA_OUTSIDE;
	if (!d->known)
		d->known = tf_calloc(d->code->nr_funcs + 1, 1);
	/* Each function's name is read once: 1 + its kind. */
	if (!d->known[fn - d->code->funcs])
		d->known[fn - d->code->funcs] =
			(unsigned char)(1 + classify(d, fn));
	d->last = (enum tf_isa_in)(d->known[fn - d->code->funcs] - 1);
	d->have_last = fn->size != 0;
	d->last_lo = fn->addr;
	d->last_hi = fn->addr + fn->size;
	return d->last;
}
