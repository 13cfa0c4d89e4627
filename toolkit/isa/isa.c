#include "isa.h"

#include <capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "isa_guard.h"
#include "base/base.h"

static const struct feature {
	const char *name; /* as GCC's -m or +ext spells it */
	enum tf_isa_family family;
	int level; /* the level that guarantees it */
} features[TF_ISA_NR] = {
	[TF_ISA_SSE3] = { "sse3", TF_ISA_X86_64, 2 },
	[TF_ISA_SSSE3] = { "ssse3", TF_ISA_X86_64, 2 },
	[TF_ISA_SSE41] = { "sse4.1", TF_ISA_X86_64, 2 },
	[TF_ISA_SSE42] = { "sse4.2", TF_ISA_X86_64, 2 },
	[TF_ISA_POPCNT] = { "popcnt", TF_ISA_X86_64, 2 },
	[TF_ISA_CX16] = { "cx16", TF_ISA_X86_64, 2 },
	[TF_ISA_AVX] = { "avx", TF_ISA_X86_64, 3 },
	[TF_ISA_AVX2] = { "avx2", TF_ISA_X86_64, 3 },
	[TF_ISA_BMI1] = { "bmi", TF_ISA_X86_64, 3 },
	[TF_ISA_BMI2] = { "bmi2", TF_ISA_X86_64, 3 },
	[TF_ISA_FMA] = { "fma", TF_ISA_X86_64, 3 },
	[TF_ISA_F16C] = { "f16c", TF_ISA_X86_64, 3 },
	[TF_ISA_LZCNT] = { "lzcnt", TF_ISA_X86_64, 3 },
	[TF_ISA_MOVBE] = { "movbe", TF_ISA_X86_64, 3 },
	[TF_ISA_AVX512F] = { "avx512f", TF_ISA_X86_64, 4 },
	[TF_ISA_AVX512BW] = { "avx512bw", TF_ISA_X86_64, 4 },
	[TF_ISA_AVX512CD] = { "avx512cd", TF_ISA_X86_64, 4 },
	[TF_ISA_AVX512DQ] = { "avx512dq", TF_ISA_X86_64, 4 },
	[TF_ISA_AVX512VL] = { "avx512vl", TF_ISA_X86_64, 4 },
	[TF_ISA_AVX512X] = { "avx512er/pf", TF_ISA_X86_64, 5 },
	[TF_ISA_AES] = { "aes", TF_ISA_X86_64, 5 },
	[TF_ISA_PCLMUL] = { "pclmul", TF_ISA_X86_64, 5 },
	[TF_ISA_SHA] = { "sha", TF_ISA_X86_64, 5 },
	[TF_ISA_ADX] = { "adx", TF_ISA_X86_64, 5 },
	[TF_ISA_RTM] = { "rtm", TF_ISA_X86_64, 5 },
	[TF_ISA_AMD] = { "sse4a/xop/fma4/tbm/3dnow", TF_ISA_X86_64, 5 },
	[TF_ISA_FSGSBASE] = { "fsgsbase", TF_ISA_X86_64, 5 },
	[TF_ISA_CRC] = { "crc", TF_ISA_AARCH64, 1 },
	[TF_ISA_LSE] = { "lse", TF_ISA_AARCH64, 1 },
	[TF_ISA_RDM] = { "rdm", TF_ISA_AARCH64, 1 },
	[TF_ISA_RCPC] = { "rcpc", TF_ISA_AARCH64, 3 },
	[TF_ISA_JSCVT] = { "jscvt", TF_ISA_AARCH64, 3 },
	[TF_ISA_FCMA] = { "fcma", TF_ISA_AARCH64, 3 },
	[TF_ISA_DOTPROD] = { "dotprod", TF_ISA_AARCH64, 4 },
	[TF_ISA_RCPC2] = { "rcpc2", TF_ISA_AARCH64, 4 },
	[TF_ISA_FP16] = { "fp16", TF_ISA_AARCH64, 9 },
	[TF_ISA_SVE] = { "sve", TF_ISA_AARCH64, 9 },
	[TF_ISA_I8MM] = { "i8mm", TF_ISA_AARCH64, 9 },
	[TF_ISA_BF16] = { "bf16", TF_ISA_AARCH64, 9 },
};

const char *tf_isa_feature_name(int f)
{
	return features[f].name;
}

int tf_isa_feature_level(int f)
{
	return features[f].level;
}

enum tf_isa_family tf_isa_feature_family(int f)
{
	return features[f].family;
}

int tf_isa_baseline(enum tf_isa_family family)
{
	return family == TF_ISA_X86_64 ? 1 : 0;
}

const char *tf_isa_level_name(enum tf_isa_family family, int level)
{
	static const char *const x86[] = { "x86-64-v1", "x86-64-v1",
					   "x86-64-v2", "x86-64-v3",
					   "x86-64-v4" };
	static const char *const a64[] = { "armv8.0-a", "armv8.1-a",
					   "armv8.2-a", "armv8.3-a",
					   "armv8.4-a" };

	if (family == TF_ISA_X86_64)
		return level >= 0 && level <= 4 ? x86[level]
						: "x86-64 extensions";
	if (family == TF_ISA_AARCH64)
		return level >= 0 && level <= 4 ? a64[level]
						: "aarch64 optional extensions";
	return "none";
}

int tf_isa_level_parse(const char *s, enum tf_isa_family *family, int *level)
{
	int i;

	if (!strcmp(s, "x86-64")) {
		*family = TF_ISA_X86_64;
		*level = 1;
		return 0;
	}
	if (!strcmp(s, "armv8-a")) {
		*family = TF_ISA_AARCH64;
		*level = 0;
		return 0;
	}
	for (i = 1; i <= 4; i++) {
		if (!strcmp(s, tf_isa_level_name(TF_ISA_X86_64, i))) {
			*family = TF_ISA_X86_64;
			*level = i;
			return 0;
		}
	}
	for (i = 0; i <= 4; i++) {
		if (!strcmp(s, tf_isa_level_name(TF_ISA_AARCH64, i))) {
			*family = TF_ISA_AARCH64;
			*level = i;
			return 0;
		}
	}
	return -1;
}

const char *tf_isa_cpu_model(enum tf_isa_family family, int level)
{
	static const char *const x86[] = { "qemu64", "qemu64", "Nehalem",
					   "Haswell", "Skylake-Server" };

	if (family == TF_ISA_X86_64)
		return level >= 0 && level <= 4 ? x86[level] : "max";
	if (level <= 0)
		return "cortex-a53";
	/* Cortex-A76: armv8.2-a with dotprod, fp16 and RCpc. */
	return level <= 2 ? "cortex-a76" : "max";
}

/* ---- aarch64: capstone 4 does not decode these, so by encoding ---- */

struct a64_enc {
	unsigned mask, value;
	int feature;
	const char *name;
};

/*
 * From the Arm ARM's encoding index; first match wins (LDAPR sits in
 * the atomic-memory-operation space). Each was checked against what
 * GCC 12 emits for the extension (tests/unit/isa_test.c).
 */
static const struct a64_enc a64_table[] = {
	{ 0x3ffffc00, 0x38bfc000, TF_ISA_RCPC, "ldapr" },
	{ 0x3f200c00, 0x38200000, TF_ISA_LSE, NULL /* named by opc */ },
	{ 0x3fa07c00, 0x08a07c00, TF_ISA_LSE, "cas" },
	{ 0xbfa07c00, 0x08207c00, TF_ISA_LSE, "casp" },
	{ 0x3f200c00, 0x19000000, TF_ISA_RCPC2, "ldapur/stlur" },
	{ 0x7fe0f000, 0x1ac04000, TF_ISA_CRC, "crc32" },
	{ 0xbf20f400, 0x2e008400, TF_ISA_RDM, "sqrdmlah/sqrdmlsh" },
	{ 0xff20f400, 0x7e008400, TF_ISA_RDM, "sqrdmlah/sqrdmlsh" },
	{ 0xbf00d400, 0x2f00d000, TF_ISA_RDM, "sqrdmlah/sqrdmlsh" },
	{ 0xff00d400, 0x7f00d000, TF_ISA_RDM, "sqrdmlah/sqrdmlsh" },
	{ 0xffe0fc00, 0x4e80a400, TF_ISA_I8MM, "smmla" },
	{ 0xffe0fc00, 0x6e80a400, TF_ISA_I8MM, "ummla" },
	{ 0xffe0fc00, 0x4e80ac00, TF_ISA_I8MM, "usmmla" },
	{ 0xbfe0fc00, 0x0e809c00, TF_ISA_I8MM, "usdot" },
	{ 0xbfe0fc00, 0x2e40fc00, TF_ISA_BF16, "bfdot" },
	{ 0xffe0fc00, 0x6e40ec00, TF_ISA_BF16, "bfmmla" },
	{ 0xfffffc00, 0x1e634000, TF_ISA_BF16, "bfcvt" },
	{ 0x9fe0fc00, 0x0e809400, TF_ISA_DOTPROD, NULL /* sdot/udot */ },
	{ 0x9fc0f400, 0x0f80e000, TF_ISA_DOTPROD, NULL /* sdot/udot */ },
	{ 0xfffffc00, 0x1e7e0000, TF_ISA_JSCVT, "fjcvtzs" },
	{ 0xbf20e400, 0x2e00c400, TF_ISA_FCMA, "fcmla" },
	{ 0xbf20ec00, 0x2e00e400, TF_ISA_FCMA, "fcadd" },
	/* FCVT from or to half precision is armv8.0-a: before fp16. */
	{ 0xfffe7c00, 0x1ee24000, -1, NULL },
	{ 0x9f60c400, 0x0e400400, TF_ISA_FP16, "half-precision simd" },
	{ 0x9f7e0c00, 0x0e780800, TF_ISA_FP16, "half-precision simd" },
	{ 0xffe00000, 0x1ee00000, TF_ISA_FP16, "half-precision fp" },
	{ 0xffc00000, 0x1fc00000, TF_ISA_FP16, "half-precision fmadd" },
	{ 0x1e000000, 0x04000000, TF_ISA_SVE, "sve" },
};

/* LDADD, LDCLR, ... SWP with their acquire/release and size suffixes. */
static void lse_name(unsigned w, char name[32])
{
	static const char *const ops[] = { "ldadd",  "ldclr",  "ldeor",
					   "ldset",  "ldsmax", "ldsmin",
					   "ldumax", "ldumin" };
	static const char *const sizes[] = { "b", "h", "", "" };
	unsigned o3 = (w >> 15) & 1, opc = (w >> 12) & 7;
	unsigned a = (w >> 23) & 1, r = (w >> 22) & 1, size = w >> 30;

	snprintf(name, 32, "%s%s%s%s", o3 ? "swp" : ops[opc], a ? "a" : "",
		 r ? "l" : "", sizes[size]);
}

int tf_isa_a64_classify(unsigned w, char name[32])
{
	size_t i;

	for (i = 0; i < sizeof(a64_table) / sizeof(*a64_table); i++) {
		const struct a64_enc *e = &a64_table[i];

		if ((w & e->mask) != e->value)
			continue;
		if (e->feature < 0)
			return -1;
		if (e->feature == TF_ISA_LSE && !e->name)
			lse_name(w, name);
		else if (e->feature == TF_ISA_DOTPROD)
			snprintf(name, 32, "%s",
				 (w >> 29) & 1 ? "udot" : "sdot");
		else
			snprintf(name, 32, "%s", e->name);
		return e->feature;
	}
	return -1;
}

/* ---- x86-64: capstone's groups, and ids where it has no group ---- */

static int x86_by_id(unsigned id)
{
	switch (id) {
	case X86_INS_POPCNT:
		return TF_ISA_POPCNT;
	case X86_INS_CMPXCHG16B:
		return TF_ISA_CX16;
	case X86_INS_LZCNT:
		return TF_ISA_LZCNT;
	case X86_INS_MOVBE:
		return TF_ISA_MOVBE;
	/* `rep bsf`, which GCC emits for __builtin_ctz at any level: it runs
	   as BSF before BMI1, so it needs nothing. */
	case X86_INS_TZCNT:
		return -2;
	}
	return -1;
}

static int x86_by_group(unsigned g)
{
	switch (g) {
	case X86_GRP_SSE3:
		return TF_ISA_SSE3;
	case X86_GRP_SSSE3:
		return TF_ISA_SSSE3;
	case X86_GRP_SSE41:
		return TF_ISA_SSE41;
	case X86_GRP_SSE42:
		return TF_ISA_SSE42;
	case X86_GRP_AVX:
		return TF_ISA_AVX;
	case X86_GRP_AVX2:
		return TF_ISA_AVX2;
	case X86_GRP_BMI:
		return TF_ISA_BMI1;
	case X86_GRP_BMI2:
		return TF_ISA_BMI2;
	case X86_GRP_FMA:
		return TF_ISA_FMA;
	case X86_GRP_F16C:
		return TF_ISA_F16C;
	case X86_GRP_AVX512:
		return TF_ISA_AVX512F;
	case X86_GRP_BWI:
		return TF_ISA_AVX512BW;
	case X86_GRP_CDI:
		return TF_ISA_AVX512CD;
	case X86_GRP_DQI:
		return TF_ISA_AVX512DQ;
	case X86_GRP_VLX:
		return TF_ISA_AVX512VL;
	case X86_GRP_ERI:
	case X86_GRP_PFI:
		return TF_ISA_AVX512X;
	case X86_GRP_AES:
		return TF_ISA_AES;
	case X86_GRP_PCLMUL:
		return TF_ISA_PCLMUL;
	case X86_GRP_SHA:
		return TF_ISA_SHA;
	case X86_GRP_ADX:
		return TF_ISA_ADX;
	case X86_GRP_RTM:
		return TF_ISA_RTM;
	case X86_GRP_FSGSBASE:
		return TF_ISA_FSGSBASE;
	case X86_GRP_SSE4A:
	case X86_GRP_XOP:
	case X86_GRP_FMA4:
	case X86_GRP_TBM:
	case X86_GRP_3DNOW:
		return TF_ISA_AMD;
	}
	return -1;
}

/* The feature an instruction needs (the highest of its groups), or -1. */
static int x86_classify(const cs_insn *insn)
{
	int f = x86_by_id(insn->id), g;
	uint8_t i;

	if (f != -1)
		return f < 0 ? -1 : f;
	for (i = 0; i < insn->detail->groups_count; i++) {
		g = x86_by_group(insn->detail->groups[i]);
		if (g >= 0 && (f < 0 || features[g].level > features[f].level))
			f = g;
	}
	return f;
}

/* ---- scanning ---- */

/*
 * Capstone is loaded on first use, not linked: its 77,000 relocations
 * cost every tfbuild process ~10 ms at start-up (a third of a no-op
 * rebuild), and only the ISA audit disassembles. Same library, same
 * API; the Makefile passes the SONAME it was compiled against.
 */
#ifndef TF_CAPSTONE_SONAME
#define TF_CAPSTONE_SONAME "libcapstone.so.4"
#endif

static struct capstone {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	const char *(*strerror)(cs_err);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *,
			    cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	char why[256]; /* dlopen/dlsym's error, or "" */
} capstone;

static pthread_once_t capstone_once = PTHREAD_ONCE_INIT;

static void *capstone_sym(void *lib, const char *name)
{
	void *f = dlsym(lib, name);

	if (!f && !capstone.why[0])
		snprintf(capstone.why, sizeof(capstone.why), "%s: no symbol %s",
			 TF_CAPSTONE_SONAME, name);
	return f;
}

/*
 * Capstone writes every instruction's text (mnemonic, operands) through
 * the vsnprintf it is given: a seventh of a scan's time, for text the
 * scan reads only for the instructions it reports. While cs_quiet is
 * set in a thread, nothing is written there (the details, groups and
 * operands, are the same: checked over 5 million instructions of
 * jaxlib); the reported ones are decoded again to be named.
 */
static _Thread_local int cs_quiet;

static int cs_format(char *buf, size_t n, const char *fmt, va_list ap)
{
	if (!cs_quiet)
		return vsnprintf(buf, n, fmt, ap);
	if (n)
		buf[0] = '\0';
	return 0;
}

static void capstone_load(void)
{
	struct capstone *c = &capstone;
	cs_opt_mem mem = { malloc, calloc, realloc, free, cs_format };
	void *lib = dlopen(TF_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(c->why, sizeof(c->why), "%s", dlerror());
		return;
	}
	/* POSIX: a data pointer from dlsym converts to a function pointer. */
	*(void **)&c->open = capstone_sym(lib, "cs_open");
	*(void **)&c->option = capstone_sym(lib, "cs_option");
	*(void **)&c->strerror = capstone_sym(lib, "cs_strerror");
	*(void **)&c->malloc = capstone_sym(lib, "cs_malloc");
	*(void **)&c->disasm_iter = capstone_sym(lib, "cs_disasm_iter");
	*(void **)&c->free = capstone_sym(lib, "cs_free");
	*(void **)&c->close = capstone_sym(lib, "cs_close");
	/* Never dlclose'd: it stays for the process, as if linked. */
	if (c->option && c->option(0, CS_OPT_MEM, (size_t)&mem) != CS_ERR_OK)
		snprintf(c->why, sizeof(c->why),
			 "%s: cannot set its memory functions",
			 TF_CAPSTONE_SONAME);
}

/* One thread's scan of a part of the code. */
struct scan {
	struct tf_isa_report *rep;
	const struct tf_elf_code *code;
	csh cs;
	cs_insn *insn;               /* the instruction at hand, unformatted */
	cs_insn *text;               /* a reported one, decoded again */
	struct tf_isa_guards guards; /* run-time dispatch recognised */
	struct tf_isa_dispatch disp; /* and shown, without a declaration */
};

/* The mnemonic of the x86 instruction at hand (s->insn), formatted. */
static void x86_mnemonic(struct scan *s, char *out, size_t n)
{
	const uint8_t *p = s->insn->bytes;
	size_t left = s->insn->size;
	uint64_t addr = s->insn->address;

	cs_quiet = 0;
	if (capstone.disasm_iter(s->cs, &p, &left, &addr, s->text))
		snprintf(out, n, "%s", s->text->mnemonic);
	cs_quiet = 1;
}

/* Count one instruction of a feature in count, keeping the first;
   mnemonic NULL: the x86 instruction at hand, formatted if kept. */
static void note(struct scan *s, size_t *count, struct tf_isa_hit *h,
		 unsigned long long addr, const char *mnemonic)
{
	const struct tf_elf_func *fn;

	/* Sections are scanned in address order, so the first stays first. */
	if ((*count)++ && addr >= h->addr)
		return;
	free(h->function);
	fn = tf_elf_code_func(s->code, addr);
	h->addr = addr;
	h->function = fn ? tf_strdup(fn->name) : NULL;
	h->offset = fn ? addr - fn->addr : 0;
	if (mnemonic)
		snprintf(h->mnemonic, sizeof(h->mnemonic), "%s", mnemonic);
	else
		x86_mnemonic(s, h->mnemonic, sizeof(h->mnemonic));
}

static void hit(struct scan *s, int f, unsigned long long addr,
		const char *mnemonic)
{
	enum tf_isa_in in = tf_isa_dispatch_in(&s->disp, addr, f);
	struct tf_isa_report *rep = s->rep;

	note(s, &rep->count[f], &rep->first[f], addr, mnemonic);
	if (in == TF_ISA_OUTSIDE) {
		note(s, &rep->outside[f], &rep->first_outside[f], addr,
		     mnemonic);
		return;
	}
	if (!rep->chosen[f] || addr < rep->first_chosen[f].addr)
		rep->chosen_by[f] = tf_isa_dispatch_kind_name(in);
	note(s, &rep->chosen[f], &rep->first_chosen[f], addr, mnemonic);
}

/* A baseline vector instruction (SSE, SSE2 and no more), counted to
   tell code built for a level from kernels beside baseline code. */
static void x86_legacy(struct scan *s, const cs_insn *insn)
{
	uint8_t i;

	for (i = 0; i < insn->detail->groups_count; i++) {
		unsigned g = insn->detail->groups[i];

		if (g == X86_GRP_SSE1 || g == X86_GRP_SSE2) {
			s->rep->nr_legacy++;
			return;
		}
	}
}

/* The addresses an x86-64 ifunc resolver loads (lea of rip-relative
   addresses, mov of immediates): the functions it can return. */
static void x86_resolver(struct scan *s, const struct tf_elf_code_section *sec,
			 const struct tf_elf_func *fn)
{
	unsigned long long size = fn->size ? fn->size : 256;
	const uint8_t *p;
	size_t left;
	uint64_t addr = fn->addr;
	uint8_t i;

	if (fn->addr < sec->addr || fn->addr >= sec->addr + sec->size)
		return;
	if (size > 1024)
		size = 1024;
	p = sec->bytes + (fn->addr - sec->addr);
	left = sec->addr + sec->size - fn->addr;
	if (left > size)
		left = (size_t)size;
	while (left && capstone.disasm_iter(s->cs, &p, &left, &addr, s->insn)) {
		const cs_x86 *x = &s->insn->detail->x86;

		for (i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (s->insn->id == X86_INS_LEA &&
			    op->type == X86_OP_MEM &&
			    op->mem.base == X86_REG_RIP)
				tf_isa_dispatch_target(
					&s->disp,
					s->insn->address + s->insn->size +
						(long long)op->mem.disp);
			else if (s->insn->id == X86_INS_MOV &&
				 op->type == X86_OP_IMM && op->imm > 0)
				tf_isa_dispatch_target(
					&s->disp, (unsigned long long)op->imm);
		}
	}
}

/* What every ifunc's resolver can return. */
static void resolvers(struct scan *s, enum tf_isa_family family)
{
	const struct tf_elf_code *c = s->code;
	size_t i, j;

	for (i = 0; i < c->nr_funcs; i++) {
		if (!c->funcs[i].ifunc)
			continue;
		for (j = 0; j < c->nr_sections; j++) {
			const struct tf_elf_code_section *sec = &c->sections[j];

			if (c->funcs[i].addr < sec->addr ||
			    c->funcs[i].addr >= sec->addr + sec->size)
				continue;
			if (family == TF_ISA_X86_64)
				x86_resolver(s, sec, &c->funcs[i]);
			else
				tf_isa_dispatch_a64_resolver(&s->disp, sec,
							     &c->funcs[i]);
		}
	}
}

/* Every DROP_STEP bytes a scan gives back the pages behind it (and the
   names it read: each fault maps the 64 KB around it). */
#define DROP_STEP (1u << 20)

static void drop_behind(struct scan *s, const uint8_t **done, const uint8_t *p)
{
	if ((size_t)(p - *done) < DROP_STEP)
		return;
	/* All of it: the names the scan read are in .strtab, not behind. */
	tf_elf_code_drop(s->code, NULL, 0);
	*done = p;
}

/* Scan sec from offset `from` to the first instruction at `to` or after. */
static void scan_x86(struct scan *s, const struct tf_elf_code_section *sec,
		     size_t from, size_t to)
{
	const uint8_t *p = sec->bytes + from, *done = p, *end = sec->bytes + to;
	size_t left = sec->size - from;
	uint64_t addr = sec->addr + from;
	int f;

	while (p < end) {
		drop_behind(s, &done, p);
		if (!capstone.disasm_iter(s->cs, &p, &left, &addr, s->insn)) {
			/* Data in code, or newer than capstone 4: skip a byte. */
			s->rep->nr_unknown++;
			p++;
			left--;
			addr++;
			continue;
		}
		s->rep->nr_insns++;
		if (s->insn->id == X86_INS_CPUID ||
		    s->insn->id == X86_INS_XGETBV)
			tf_isa_dispatch_cpuid(&s->disp,
					      s->insn->id == X86_INS_CPUID
						      ? "cpuid"
						      : "xgetbv",
					      s->insn->address);
		f = x86_classify(s->insn);
		if (f >= 0)
			hit(s, f, s->insn->address, NULL);
		else
			x86_legacy(s, s->insn);
	}
}

static int a64_is_lse(unsigned w)
{
	char name[32];

	return tf_isa_a64_classify(w, name) == TF_ISA_LSE;
}

/* An aarch64 instruction of feature f: accepted where a recognised
   run-time check guards it (isa_guard.h), else counted against the file. */
static void hit_a64(struct scan *s, const struct tf_elf_code_section *sec,
		    int f, unsigned long long addr, const char *mnemonic)
{
	const char *by = NULL;

	if (f == TF_ISA_LSE)
		by = tf_isa_outline_atomic(&s->guards, sec, addr);
	if (!by) {
		hit(s, f, addr, mnemonic);
		return;
	}
	note(s, &s->rep->accepted[f], &s->rep->first_accepted[f], addr,
	     mnemonic);
	s->rep->accepted_by[f] = by;
}

static void scan_a64(struct scan *s, const struct tf_elf_code_section *sec,
		     size_t from, size_t to)
{
	const uint8_t *p = sec->bytes + from, *done = p;
	size_t left = (to & ~(size_t)3) - from;
	uint64_t addr = sec->addr + from;
	char name[32];
	unsigned w;
	int f;

	while (left) {
		drop_behind(s, &done, p);
		w = (unsigned)p[0] | (unsigned)p[1] << 8 |
		    (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
		f = tf_isa_a64_classify(w, name);
		/* MRS Xt, an ID register (op0 3, op1 0, CRn 0): Linux
		   emulates them for user space, to read the CPU's features. */
		if ((w & 0xfffff000) == 0xd5380000)
			tf_isa_dispatch_cpuid(&s->disp, "mrs of an ID register",
					      addr);
		if (f >= 0) {
			s->rep->nr_insns++;
			hit_a64(s, sec, f, addr, name);
		} else {
			const uint8_t *q = p;
			size_t n = 4;
			uint64_t a = addr;

			/* Everything else capstone 4 decodes is armv8.0-a. */
			if (capstone.disasm_iter(s->cs, &q, &n, &a, s->insn))
				s->rep->nr_insns++;
			else
				s->rep->nr_unknown++;
		}
		p += 4;
		left -= 4;
		addr += 4;
	}
}

static int open_cs(struct scan *s, enum tf_isa_family family)
{
	cs_err err;

	pthread_once(&capstone_once, capstone_load);
	if (capstone.why[0])
		return error("cannot load the disassembler (capstone): %s",
			     capstone.why);
	if (family == TF_ISA_X86_64)
		err = capstone.open(CS_ARCH_X86, CS_MODE_64, &s->cs);
	else
		err = capstone.open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN,
				    &s->cs);
	if (err == CS_ERR_OK && family == TF_ISA_X86_64)
		err = capstone.option(s->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (err != CS_ERR_OK)
		return error("capstone: %s", capstone.strerror(err));
	s->insn = capstone.malloc(s->cs);
	s->text = capstone.malloc(s->cs);
	return 0;
}

static void close_cs(struct scan *s)
{
	capstone.free(s->insn, 1);
	capstone.free(s->text, 1);
	capstone.close(&s->cs);
}

/* ---- threads: each scans a part of the code ---- */

/* A place in the code: a section's index and an offset in it. */
struct place {
	size_t sec, off;
};

struct worker {
	struct scan s;
	struct tf_isa_report rep; /* what its part holds */
	struct place from, to;    /* its part: from up to to */
	int x86;
	pthread_t thread;
	int started; /* 1: a thread of its own runs it */
};

/* At least this much code for each thread. */
#define PART_MIN (8u << 20)
#define MAX_THREADS 4

/* How many threads scan code of `total` bytes: the online CPUs (at most
   MAX_THREADS), one per PART_MIN; TFBUILD_ISA_THREADS sets it (tests). */
static size_t nr_threads(size_t total)
{
	const char *env = getenv("TFBUILD_ISA_THREADS");
	long n;

	if (env && *env >= '1' && *env <= '9') {
		n = strtol(env, NULL, 10);
		return n > 64 ? 64 : (size_t)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (n > (long)(total / PART_MIN))
		n = (long)(total / PART_MIN);
	return n < 1 ? 1 : (size_t)n;
}

/* The first function starting at addr or after it, or NULL. */
static const struct tf_elf_func *func_from(const struct tf_elf_code *c,
					   unsigned long long addr)
{
	size_t lo = 0, hi = c->nr_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->funcs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nr_funcs ? &c->funcs[lo] : NULL;
}

/*
 * Where a part starting `want` bytes into the code (its sections one
 * after the other) starts: on an instruction, which on x86-64 only a
 * function's start is known to be (else the next section's start).
 */
static struct place place_at(const struct tf_elf_code *c, int x86, size_t want)
{
	struct place at = { c->nr_sections, 0 };
	const struct tf_elf_func *fn;
	size_t i;

	for (i = 0; i < c->nr_sections; i++) {
		const struct tf_elf_code_section *sec = &c->sections[i];

		if (want >= sec->size) {
			want -= sec->size;
			continue;
		}
		at.sec = i;
		if (!x86) {
			at.off = want & ~(size_t)3;
			return at;
		}
		fn = func_from(c, sec->addr + want);
		if (fn && fn->addr < sec->addr + sec->size) {
			at.off = (size_t)(fn->addr - sec->addr);
			return at;
		}
		at.sec = i + 1;
		return at;
	}
	return at;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct tf_elf_code *c = w->s.code;
	size_t i;

	cs_quiet = 1;
	for (i = w->from.sec; i < c->nr_sections && i <= w->to.sec; i++) {
		size_t from = i == w->from.sec ? w->from.off : 0,
		       to = i == w->to.sec ? w->to.off : c->sections[i].size;

		if (from >= to)
			continue;
		if (w->x86)
			scan_x86(&w->s, &c->sections[i], from, to);
		else
			scan_a64(&w->s, &c->sections[i], from, to);
	}
	cs_quiet = 0;
	return NULL;
}

/* Add a part's count and first hit of a feature to the whole's. */
static void merge_hit(size_t *count, struct tf_isa_hit *h, size_t add,
		      struct tf_isa_hit *from)
{
	if (!add)
		return;
	if (!*count || from->addr < h->addr) {
		free(h->function);
		*h = *from;
		from->function = NULL;
	}
	*count += add;
}

static void merge(struct scan *s, struct worker *w)
{
	struct tf_isa_report *out = s->rep, *p = &w->rep;
	int f;

	for (f = 0; f < TF_ISA_NR; f++) {
		merge_hit(&out->count[f], &out->first[f], p->count[f],
			  &p->first[f]);
		if (p->accepted[f])
			out->accepted_by[f] = p->accepted_by[f];
		merge_hit(&out->accepted[f], &out->first_accepted[f],
			  p->accepted[f], &p->first_accepted[f]);
		if (p->chosen[f] &&
		    (!out->chosen[f] ||
		     p->first_chosen[f].addr < out->first_chosen[f].addr))
			out->chosen_by[f] = p->chosen_by[f];
		merge_hit(&out->chosen[f], &out->first_chosen[f], p->chosen[f],
			  &p->first_chosen[f]);
		merge_hit(&out->outside[f], &out->first_outside[f],
			  p->outside[f], &p->first_outside[f]);
	}
	out->nr_insns += p->nr_insns;
	out->nr_unknown += p->nr_unknown;
	out->nr_legacy += p->nr_legacy;
	tf_isa_guards_join(&s->guards, &w->s.guards);
	tf_isa_dispatch_join(&s->disp, &w->s.disp);
	tf_isa_report_release(&w->rep);
}

/*
 * Scan the code in parts, one thread each (the calling thread takes the
 * first), and merge what they found in address order: the same report
 * as one scan from start to end, where the parts start on function
 * starts (x86-64) or words (aarch64).
 */
static int scan_parts(struct scan *s, enum tf_isa_family family)
{
	const struct tf_elf_code *c = s->code;
	size_t i, n, total = 0;
	struct worker *w;
	int ret = 0;

	for (i = 0; i < c->nr_sections; i++)
		total += c->sections[i].size;
	n = nr_threads(total);
	w = tf_calloc(n, sizeof(*w));
	for (i = 0; i < n; i++) {
		struct tf_isa_report empty = TF_ISA_REPORT_INIT;
		struct tf_isa_guards guards = TF_ISA_GUARDS_INIT(c, a64_is_lse);

		w[i].rep = empty;
		w[i].s.rep = &w[i].rep;
		w[i].s.code = c;
		w[i].s.guards = guards;
		w[i].x86 = family == TF_ISA_X86_64;
		w[i].from = place_at(c, w[i].x86, total / n * i);
		w[i].to = i + 1 < n ? place_at(c, w[i].x86, total / n * (i + 1))
				    : (struct place){ c->nr_sections, 0 };
		if (!ret && open_cs(&w[i].s, family))
			ret = -1;
		else if (!ret)
			tf_isa_dispatch_fork(&s->disp, &w[i].s.disp);
	}
	for (i = 1; !ret && i < n; i++)
		w[i].started = !pthread_create(&w[i].thread, NULL, work, &w[i]);
	for (i = 0; !ret && i < n; i++) {
		if (i == 0 || !w[i].started)
			work(&w[i]);
		else
			pthread_join(w[i].thread, NULL);
		merge(s, &w[i]);
	}
	for (i = 0; i < n; i++)
		if (w[i].s.cs)
			close_cs(&w[i].s);
	free(w);
	return ret;
}

static int note_level(const char *path, const char *shown)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	int level = 0;

	/* No exports kept: libtensorflow_cc.so has 400,000. */
	if (tf_elf_read_exports(path, shown, &info, NULL, 0) == TF_ELF_READ_OK)
		level = tf_elf_x86_isa_level(info.x86_isa_needed);
	tf_elf_info_release(&info);
	return level;
}

enum tf_isa_scan_result tf_isa_scan(const char *path, const char *shown,
				    struct tf_isa_report *out)
{
	struct tf_elf_code code = TF_ELF_CODE_INIT;
	struct scan s = { out,  &code, 0,
			  NULL, NULL,  TF_ISA_GUARDS_INIT(&code, a64_is_lse),
			  { 0 } };
	struct tf_buf evidence = TF_BUF_INIT;
	enum tf_elf_read_result res;
	enum tf_isa_family family;
	int f;

	tf_isa_report_release(out);
	res = tf_elf_code_read(path, shown, &code);
	if (res == TF_ELF_READ_NOT_ELF)
		return TF_ISA_SCAN_NOTHING;
	if (res == TF_ELF_READ_ERROR)
		return TF_ISA_SCAN_ERROR;
	family = code.machine == EM_X86_64    ? TF_ISA_X86_64
		 : code.machine == EM_AARCH64 ? TF_ISA_AARCH64
					      : TF_ISA_NONE;
	if (family == TF_ISA_NONE ||
	    (code.type != ET_DYN && code.type != ET_EXEC)) {
		tf_elf_code_release(&code);
		return TF_ISA_SCAN_NOTHING;
	}
	if (open_cs(&s, family)) {
		tf_elf_code_release(&code);
		return TF_ISA_SCAN_ERROR;
	}
	out->family = family;
	out->level = tf_isa_baseline(family);
	out->from_symtab = code.from_symtab;
	tf_isa_dispatch_init(&s.disp, &code, family == TF_ISA_X86_64);
	resolvers(&s, family);
	if (scan_parts(&s, family)) {
		tf_isa_guards_release(&s.guards);
		tf_isa_dispatch_release(&s.disp);
		close_cs(&s);
		tf_elf_code_release(&code);
		return TF_ISA_SCAN_ERROR;
	}
	for (f = 0; f < TF_ISA_NR; f++)
		if (out->count[f] && features[f].level > out->level)
			out->level = features[f].level;
	if (family == TF_ISA_X86_64)
		out->note_level = note_level(path, shown);
	out->lse_unconfirmed = s.guards.lse_unconfirmed;
	out->lse_unnamed = s.guards.nr_sites;
	if (s.guards.nr_sites)
		out->lse_sites = tf_buf_detach(&s.guards.sites);
	tf_isa_guards_release(&s.guards);
	if (tf_isa_dispatch_evidence(&s.disp)) {
		tf_isa_dispatch_describe(&s.disp, &evidence);
		out->evidence = tf_buf_detach(&evidence);
	}
	tf_isa_dispatch_release(&s.disp);
	close_cs(&s);
	tf_elf_code_release(&code);
	return TF_ISA_SCAN_OK;
}

void tf_isa_report_release(struct tf_isa_report *out)
{
	struct tf_isa_report empty = TF_ISA_REPORT_INIT;
	int f;

	if (!out)
		return;
	for (f = 0; f < TF_ISA_NR; f++) {
		free(out->first[f].function);
		free(out->first_accepted[f].function);
		free(out->first_chosen[f].function);
		free(out->first_outside[f].function);
	}
	free(out->evidence);
	free(out->lse_sites);
	*out = empty;
}
