#ifndef TF_ISA_GUARD_H
#define TF_ISA_GUARD_H

/*
 * Run-time dispatch the ISA audit recognises in the code (isa_guard.c,
 * docs/isa.md): an instruction above the baseline is accepted where the
 * code shows that it runs only on CPUs that have it. Each recogniser is
 * given one such instruction and must see the check, not trust a name
 * alone: libgcc's outline atomics (isa_guard.c). In a file that
 * declares no dispatch, isa_dispatch.c finds the evidence that code is
 * chosen by the CPU (cpuid, __cpu_model, getauxval, ifuncs) and which
 * functions are the choices.
 */

#include <stddef.h>

#include "base/base.h"

struct tf_elf_code;
struct tf_elf_code_section;
struct tf_elf_func;

/* What the recognisers learnt of one file, looked up once. */
struct tf_isa_guards {
	const struct tf_elf_code *code; /* borrowed */
	int (*is_lse)(unsigned word);   /* 1 if word is an LSE instruction
					   (isa.c's table) */
	int lse_flag_known; /* 1: lse_flag is __aarch64_have_lse_atomics'
			       address; -1: no such flag; 0: not looked */
	unsigned long long lse_flag;
	int hwcap_read;    /* 1/0: getauxval is linked; -1: unknown */
	int written_known; /* 1: written is known for written_flag */
	int written;       /* 1: code stores to written_flag */
	unsigned long long written_flag;
	size_t lse_unconfirmed; /* LSE guards seen in a stripped file */
	const struct tf_elf_func **helpers; /* owned array of borrowed: the
					       functions named as helpers */
	size_t nr_helpers;
	int helpers_known;   /* 1: helpers were looked up */
	struct tf_buf sites; /* "0x7f0-0x824 unnamed, same guard as
				__aarch64_cas8_acq": LSE accepted where no
				helper's name covers it, the first few */
	size_t nr_sites;     /* all of them, listed or not */
};

#define TF_ISA_GUARDS_INIT(code, is_lse)                            \
	{                                                           \
		(code), (is_lse), 0, 0, -1, 0, 0, 0, 0, NULL, 0, 0, \
			TF_BUF_INIT, 0                              \
	}

/* Free what g owns; safe twice. */
void tf_isa_guards_release(struct tf_isa_guards *g);
/* Add part's counts and sites (which follow g's in address order) to
   g's, and release part. */
void tf_isa_guards_join(struct tf_isa_guards *g, struct tf_isa_guards *part);

/*
 * Recognisers: each is given an instruction above the baseline at addr
 * in sec and returns what chooses it at run time, a static sentence for
 * the report, or NULL when no check it knows guards it.
 *
 * tf_isa_outline_atomic(), for an LSE instruction: "libgcc's outline
 * atomics, chosen at run time by __aarch64_have_lse_atomics" if it sits
 * in one of libgcc's helpers (named so by .symtab) behind the helper's
 * test of that flag, which the file defines, sets from getauxval and
 * stores to. Where no helper's name covers it, the same if the code
 * shows a helper all the same, on that flag (added to g->sites):
 * - unnamed: the guard right before it, `ret` after it, and an LL/SC
 *   fallback without LSE (a helper whose symbol was stripped);
 * - the start of HELPER.cold.N, which HELPER's guard branches to (BOLT
 *   split the helper);
 * - behind BOLT's patch of a helper's entry (adrp, add, br x16 to the
 *   helper's new copy, which has the guard): code no call reaches.
 * Behind such a guard in a file without .symtab (stripped), it counts
 * in g->lse_unconfirmed and gives NULL.
 */
const char *tf_isa_outline_atomic(struct tf_isa_guards *g,
				  const struct tf_elf_code_section *sec,
				  unsigned long long addr);

/* 1 if name is one of libgcc's outline-atomic helpers,
   __aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)N[_relax|_acq|_rel|_acq_rel
   |_sync]. */
int tf_isa_lse_helper_name(const char *name);

/* ---- isa_dispatch.c ---- */

/* Where an instruction above the baseline sits. */
enum tf_isa_in {
	TF_ISA_OUTSIDE = 0, /* in no function tied to a run-time choice */
	TF_ISA_IN_IFUNC,    /* a function an ifunc's resolver returns */
	TF_ISA_IN_CLONE,    /* a target_clones version, "foo.avx2" */
	TF_ISA_IN_NAMED,    /* a function named for an extension,
			       "vsum_avx2": a choice only in a file with
			       evidence */
};

/* What a file shows of run-time dispatch, gathered during its scan. */
struct tf_isa_dispatch {
	const struct tf_elf_code *code; /* borrowed */
	int x86;                        /* 1: x86-64, 0: aarch64 */
	char check[160];             /* "cpuid in f+0x10": the first CPU check
				   executed, "" if none */
	const char *symbol;          /* static: "__cpu_model", "getauxval", or
				   NULL */
	size_t nr_ifuncs;            /* STT_GNU_IFUNC symbols */
	const char *ifunc;           /* borrowed: the first one's name */
	unsigned long long *targets; /* owned: what resolvers return */
	size_t nr_targets;
	int sorted;
	unsigned short *known;     /* owned: per function, 0 before it is
				  classified, then 1 + its kind, plus 8 times
				  the index in masks of what its name allows */
	unsigned long long *masks; /* owned: the distinct feature sets that
				      names allow; masks[0] is every feature */
	size_t nr_masks;
	int have_last; /* the last function classified, cached */
	unsigned long long last_lo, last_hi, last_mask;
	enum tf_isa_in last;
};

/* Look up the symbols that show dispatch; the scan adds the rest. */
void tf_isa_dispatch_init(struct tf_isa_dispatch *d,
			  const struct tf_elf_code *code, int x86);
void tf_isa_dispatch_release(struct tf_isa_dispatch *d);
/*
 * For a scan in parts (one thread each): copy d into copy, which shares
 * d's targets (sorted now, then only read) and has a cache and a check
 * of its own; join each copy back, in the parts' address order, which
 * keeps the first check found and frees the copy's own memory.
 */
void tf_isa_dispatch_fork(struct tf_isa_dispatch *d,
			  struct tf_isa_dispatch *copy);
void tf_isa_dispatch_join(struct tf_isa_dispatch *d,
			  struct tf_isa_dispatch *copy);
/* An address an ifunc's resolver loads: a choice if a function starts
   there. */
void tf_isa_dispatch_target(struct tf_isa_dispatch *d, unsigned long long addr);
/* The addresses an aarch64 resolver (fn) loads with ADRP and ADD. */
void tf_isa_dispatch_a64_resolver(struct tf_isa_dispatch *d,
				  const struct tf_elf_code_section *sec,
				  const struct tf_elf_func *fn);
/* A CPU check (what: "cpuid", "xgetbv", "mrs ID_AA64ISAR0_EL1") at addr;
   the first is kept. */
void tf_isa_dispatch_cpuid(struct tf_isa_dispatch *d, const char *what,
			   unsigned long long addr);
/* 1 if the file shows that it chooses code by the CPU. */
int tf_isa_dispatch_evidence(const struct tf_isa_dispatch *d);
/* Append the evidence: "cpuid in f+0x10, uses __cpu_model, 1 ifunc
   (vsum)". */
void tf_isa_dispatch_describe(const struct tf_isa_dispatch *d,
			      struct tf_buf *out);
/* Where the instruction at addr, of feature (TF_ISA_AVX2, ...), sits
   (the last function is cached): a function named for a CPU (westmere)
   is a choice only for the features that CPU has. */
enum tf_isa_in tf_isa_dispatch_in(struct tf_isa_dispatch *d,
				  unsigned long long addr, int feature);
/* "an ifunc's candidate", "a target_clones version", ... */
const char *tf_isa_dispatch_kind_name(enum tf_isa_in kind);
/* What a function's name says it is for: it holds "avx2", "AVX512",
   "sse41", "westmere", "haswell", "znver3" (x86-64), "sve", "dotprod",
   "lse" (aarch64), ... as a word, case aside. Returns 0 if it holds
   none, else the features (1 << TF_ISA_...) it allows: every one for an
   extension's name, GCC's -march set for a CPU's, the union of all the
   names it holds. */
unsigned long long tf_isa_kernel_name(int x86, const char *name);

#endif
