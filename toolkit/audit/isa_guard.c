/*
 * Run-time dispatch the ISA audit recognises in aarch64 code (isa_guard.h):
 * libgcc's outline atomics. GCC 10 and later default to
 * -moutline-atomics on aarch64: each atomic becomes a call to a helper
 * from libgcc.a (lse.S), linked into the file, that runs the LSE
 * instruction where the CPU has it and an armv8.0-a LL/SC loop elsewhere,
 * testing the byte __aarch64_have_lse_atomics, which a constructor
 * (init_have_lse_atomics, lse-init.c) sets from getauxval(AT_HWCAP) &
 * HWCAP_ATOMICS. compiler-rt's helpers have the same names and guard.
 */
#include "isa_guard.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

/* The 32-bit word at addr in sec, or 0 (a permanently undefined
   encoding, matching nothing below) outside it. */
static unsigned a64_word(const struct tf_elf_code_section *sec,
			 unsigned long long addr)
{
	const uint8_t *p;

	if (addr < sec->addr || addr + 4 > sec->addr + sec->size)
		return 0;
	p = sec->bytes + (addr - sec->addr);
	return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 |
	       (unsigned)p[3] << 24;
}

/* ADRP Xd, page at pc: 1 and the page's address if w is one. */
static int a64_adrp(unsigned w, unsigned long long pc, unsigned long long *page)
{
	unsigned long long imm = ((w >> 29) & 3) | ((w >> 5) & 0x7ffff) << 2;

	if ((w & 0x9f000000) != 0x90000000)
		return 0;
	if (imm & 0x100000) /* 21-bit signed */
		imm |= ~0x1fffffULL;
	*page = (pc & ~0xfffULL) + (imm << 12);
	return 1;
}

/* LDRB/STRB Wt, [Xn, #imm] (load 1, store 0): offset the byte's. */
static int a64_byte_access(unsigned w, int load, unsigned *n,
			   unsigned long long *offset)
{
	if ((w & 0xffc00000) != (load ? 0x39400000u : 0x39000000u))
		return 0;
	*n = (w >> 5) & 31;
	*offset = (w >> 10) & 0xfff;
	return 1;
}

/* LDXR, LDAXR, LDXP, LDAXP of any size: an armv8.0-a atomic loop. */
static int a64_load_exclusive(unsigned w)
{
	return (w & 0x3fc00000) == 0x08400000;
}

/*
 * libgcc's (and compiler-rt's) guard, JUMP_IF_NOT_LSE in lse.S, right
 * before the LSE instruction at addr:
 *     adrp  x16, __aarch64_have_lse_atomics
 *     ldrb  w16, [x16, :lo12:__aarch64_have_lse_atomics]
 *     cbz   w16, 8f           // to the LL/SC loop below, armv8.0-a
 *     ldaddal x0, x0, [x1]    // addr
 *     ret
 * 8:  ... ldaxr ... stlxr ...
 * Returns 1 with the flag's address if the words around addr are so,
 * the branch going past addr, within end, to a load-exclusive.
 */
static int lse_guard(const struct tf_elf_code_section *sec,
		     unsigned long long addr, unsigned long long end,
		     unsigned long long *flag)
{
	unsigned adrp = a64_word(sec, addr - 12),
		 ldrb = a64_word(sec, addr - 8), cbz = a64_word(sec, addr - 4),
		 n;
	unsigned long long page, offset, target, imm, a;

	if (addr < sec->addr + 12 || !a64_adrp(adrp, addr - 12, &page) ||
	    !a64_byte_access(ldrb, 1, &n, &offset) || n != (adrp & 31) ||
	    (cbz & 0xff00001f) != (0x34000000 | (ldrb & 31)))
		return 0;
	imm = (cbz >> 5) & 0x7ffff;
	if (imm & 0x40000) /* 19-bit signed, in words */
		imm |= ~0x7ffffULL;
	target = addr - 4 + (imm << 2);
	if (target <= addr || target >= end)
		return 0;
	for (a = target; a < end && a < target + 64; a += 4)
		if (a64_load_exclusive(a64_word(sec, a)))
			break;
	if (a >= end || a >= target + 64)
		return 0;
	*flag = page + offset;
	return 1;
}

/* 1 if some code stores a byte to flag: ADRP Xn of its page, then within
   16 words STRB Wt, [Xn, #its offset] (libgcc's init_have_lse_atomics).
   The answer for the last flag asked about is kept: a stripped file's
   helpers all ask about the same one. */
static int flag_written(struct tf_isa_guards *g, unsigned long long flag)
{
	const struct tf_elf_code_section *sec;
	unsigned long long a, b, page, offset;
	unsigned n, k;
	size_t i;

	if (g->written_known && g->written_flag == flag)
		return g->written;
	g->written_known = 1;
	g->written_flag = flag;
	g->written = 0;
	for (i = 0; i < g->code->nr_sections && !g->written; i++) {
		sec = &g->code->sections[i];
		for (a = sec->addr; a + 4 <= sec->addr + sec->size; a += 4) {
			if (!a64_byte_access(a64_word(sec, a), 0, &n, &offset))
				continue;
			for (k = 1; k <= 16 && a >= sec->addr + 4 * k; k++) {
				b = a - 4 * k;
				if (a64_adrp(a64_word(sec, b), b, &page) &&
				    (a64_word(sec, b) & 31) == n &&
				    page + offset == flag)
					g->written = 1;
			}
		}
	}
	return g->written;
}

/* __aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)N[_relax|_acq|_rel|_acq_rel|
   _sync]: the helpers libgcc.a links in for -moutline-atomics. */
int tf_isa_lse_helper_name(const char *name)
{
	static const char *const ops[] = { "cas",   "swp",   "ldadd",
					   "ldclr", "ldeor", "ldset" };
	static const char *const models[] = { "",     "_relax",   "_acq",
					      "_rel", "_acq_rel", "_sync" };
	size_t i, len;

	if (strncmp(name, "__aarch64_", 10))
		return 0;
	name += 10;
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
		len = strlen(ops[i]);
		if (!strncmp(name, ops[i], len))
			break;
	}
	if (i == sizeof(ops) / sizeof(*ops))
		return 0;
	name += len;
	if (!strspn(name, "0123456789"))
		return 0;
	name += strspn(name, "0123456789");
	for (i = 0; i < sizeof(models) / sizeof(*models); i++)
		if (!strcmp(name, models[i]))
			return 1;
	return 0;
}

/* The flag's address, from .symtab: a data object the file defines,
   set from getauxval (which the file links), and stored to by code. */
static int lse_flag(struct tf_isa_guards *g, unsigned long long *flag)
{
	struct tf_elf_sym sym;

	if (!g->lse_flag_known) {
		g->lse_flag_known = -1;
		if (tf_elf_code_symbol(g->code, "__aarch64_have_lse_atomics",
				       &sym) &&
		    sym.defined && sym.type == STT_OBJECT &&
		    flag_written(g, sym.value)) {
			g->lse_flag = sym.value;
			g->lse_flag_known = 1;
		}
	}
	*flag = g->lse_flag;
	return g->lse_flag_known == 1;
}

static int hwcap_read(struct tf_isa_guards *g)
{
	struct tf_elf_sym sym;

	if (g->hwcap_read < 0)
		g->hwcap_read =
			tf_elf_code_symbol(g->code, "__getauxval", &sym) ||
			tf_elf_code_symbol(g->code, "getauxval", &sym);
	return g->hwcap_read;
}

static const char outline_atomics[] =
	"libgcc's outline atomics, chosen at run time by "
	"__aarch64_have_lse_atomics";

/*
 * An LSE instruction in one of libgcc's outline-atomic helpers: named so
 * in .symtab, behind the guard above (nothing but hints, such as
 * `bti c`, before it in the helper), testing the flag the file defines
 * and sets from getauxval(AT_HWCAP). The guard in a file without those
 * names (stripped) is counted in lse_unconfirmed instead.
 */
const char *tf_isa_outline_atomic(struct tf_isa_guards *g,
				  const struct tf_elf_code_section *sec,
				  unsigned long long addr)
{
	const struct tf_elf_func *fn = tf_elf_code_func(g->code, addr);
	unsigned long long end = sec->addr + sec->size, guard, flag, a;

	if (!hwcap_read(g))
		return NULL;
	if (fn && fn->size && fn->addr + fn->size < end)
		end = fn->addr + fn->size;
	if (!lse_guard(sec, addr, end, &guard))
		return NULL;
	if (!fn || !g->code->from_symtab || !tf_isa_lse_helper_name(fn->name)) {
		if (!g->code->from_symtab && flag_written(g, guard))
			g->lse_unconfirmed++;
		return NULL;
	}
	if (!lse_flag(g, &flag) || flag != guard || fn->addr > addr - 12)
		return NULL;
	for (a = fn->addr; a < addr - 12; a += 4)
		if ((a64_word(sec, a) & 0xfffff01f) != 0xd503201f) /* HINT */
			return NULL;
	return outline_atomics;
}
