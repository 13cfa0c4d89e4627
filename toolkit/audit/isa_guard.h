#ifndef TF_ISA_GUARD_H
#define TF_ISA_GUARD_H

/*
 * Run-time dispatch the ISA audit recognises in the code (isa_guard.c,
 * docs/isa.md): an instruction above the baseline is accepted where the
 * code shows that it runs only on CPUs that have it. Each recogniser is
 * given one such instruction and must see the check, not trust a name
 * alone. Only libgcc's outline atomics so far; glibc's ifuncs and other
 * getauxval(AT_HWCAP) guards would be recognisers beside it.
 */

#include <stddef.h>

#include "elf.h"

/* What the recognisers learnt of one file, looked up once. */
struct tf_isa_guards {
	const struct tf_elf_code *code; /* borrowed */
	int lse_flag_known; /* 1: lse_flag is __aarch64_have_lse_atomics'
			       address; -1: no such flag; 0: not looked */
	unsigned long long lse_flag;
	int hwcap_read;    /* 1/0: getauxval is linked; -1: unknown */
	int written_known; /* 1: written is known for written_flag */
	int written;       /* 1: code stores to written_flag */
	unsigned long long written_flag;
	size_t lse_unconfirmed; /* LSE guards seen in a stripped file */
};

#define TF_ISA_GUARDS_INIT(code)             \
	{                                    \
		(code), 0, 0, -1, 0, 0, 0, 0 \
	}

/*
 * Recognisers: each is given an instruction above the baseline at addr
 * in sec and returns what chooses it at run time, a static sentence for
 * the report, or NULL when no check it knows guards it.
 *
 * tf_isa_outline_atomic(), for an LSE instruction: "libgcc's outline
 * atomics, chosen at run time by __aarch64_have_lse_atomics" if it sits
 * in one of libgcc's helpers (named so by .symtab) behind the helper's
 * test of that flag, which the file defines, sets from getauxval and
 * stores to. Behind such a guard in a file without .symtab (stripped),
 * it counts in g->lse_unconfirmed and gives NULL.
 */
const char *tf_isa_outline_atomic(struct tf_isa_guards *g,
				  const struct tf_elf_code_section *sec,
				  unsigned long long addr);

/* 1 if name is one of libgcc's outline-atomic helpers,
   __aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)N[_relax|_acq|_rel|_acq_rel
   |_sync]. */
int tf_isa_lse_helper_name(const char *name);

#endif
