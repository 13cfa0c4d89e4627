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
#include "audit/audit.h"
#include "base/base.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
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

#define A64_RET 0xd65f03c0u

/* 1 if w is a hint (NOP, BTI, PACIASP...): what may stand before the
   guard in a helper. */
static int a64_hint(unsigned w)
{
	return (w & 0xfffff01f) == 0xd503201f;
}

/* The word at addr in any of the file's code sections, or 0. */
static unsigned code_word(const struct tf_isa_guards *g,
			  unsigned long long addr)
{
	const struct tf_elf_code_section *sec;
	size_t i;

	for (i = 0; i < g->code->nr_sections; i++) {
		sec = &g->code->sections[i];
		if (addr >= sec->addr && addr + 4 <= sec->addr + sec->size)
			return a64_word(sec, addr);
	}
	return 0;
}

/* B, or CBZ Wt (t: the register) at pc: 1 and where it goes. */
static int a64_b(unsigned w, unsigned long long pc, unsigned long long *to)
{
	unsigned long long imm = w & 0x3ffffff;

	if ((w & 0xfc000000) != 0x14000000)
		return 0;
	if (imm & 0x2000000) /* 26-bit signed, in words */
		imm |= ~0x3ffffffULL;
	*to = pc + (imm << 2);
	return 1;
}

/* CBZ (nz 0) or CBNZ (nz 1) Wt at pc: 1 and where it goes. */
static int a64_cbz(unsigned w, int nz, unsigned t, unsigned long long pc,
		   unsigned long long *to)
{
	unsigned long long imm = (w >> 5) & 0x7ffff;

	if ((w & 0xff00001f) != ((nz ? 0x35000000u : 0x34000000u) | t))
		return 0;
	if (imm & 0x40000) /* 19-bit signed, in words */
		imm |= ~0x7ffffULL;
	*to = pc + (imm << 2);
	return 1;
}

/*
 * libgcc's (and compiler-rt's) guard, JUMP_IF_NOT_LSE in lse.S, at p:
 *     adrp  x16, __aarch64_have_lse_atomics
 *     ldrb  w16, [x16, :lo12:__aarch64_have_lse_atomics]
 *     cbz   w16, 8f           // to the LL/SC loop, armv8.0-a
 *     ldaddal x0, x0, [x1]    // p + 12: *next
 *     ret
 * 8:  ... ldaxr ... stlxr ... ret
 * or, as BOLT lays it out, `cbnz w16, 1f; b 8f; 1:`. Returns 1 with the
 * flag's address, where the fallback is (*to) and where the code goes
 * when the flag is set (*next).
 */
static int guard_at(const struct tf_isa_guards *g, unsigned long long p,
		    unsigned long long *flag, unsigned long long *to,
		    unsigned long long *next)
{
	unsigned adrp = code_word(g, p), ldrb = code_word(g, p + 4), n;
	unsigned long long page, offset;

	if (!a64_adrp(adrp, p, &page) ||
	    !a64_byte_access(ldrb, 1, &n, &offset) || n != (adrp & 31))
		return 0;
	*next = p + 12;
	if (!a64_cbz(code_word(g, p + 8), 0, ldrb & 31, p + 8, to) &&
	    !(a64_cbz(code_word(g, p + 8), 1, ldrb & 31, p + 8, next) &&
	      a64_b(code_word(g, p + 12), p + 12, to)))
		return 0;
	*flag = page + offset;
	return 1;
}

/*
 * The LL/SC fallback at `at`: a load-exclusive before the first `ret`,
 * within 16 words, and no LSE (a "helper" whose fallback needs LSE too
 * guards nothing). Anywhere in the code, behind one `b`: BOLT moves it
 * to .text.cold. Returns the address after its `ret`, or 0.
 */
static unsigned long long fallback_end(const struct tf_isa_guards *g,
				       unsigned long long at)
{
	unsigned long long a;
	int ldx = 0;
	unsigned w;

	if (a64_b(code_word(g, at), at, &a))
		at = a;
	for (a = at; a < at + 64; a += 4) {
		w = code_word(g, a);
		if (!w || g->is_lse(w))
			return 0;
		ldx |= a64_load_exclusive(w);
		if (w == A64_RET)
			return ldx ? a + 4 : 0;
	}
	return 0;
}

/* The guard on flag right before the LSE instruction at addr (its cbz
   right before it, or its cbnz over `b` to the fallback), with its
   fallback: returns where the fallback ends, or 0. */
static unsigned long long guarded(const struct tf_isa_guards *g,
				  unsigned long long addr,
				  unsigned long long flag)
{
	unsigned long long f, to, next;

	if ((!guard_at(g, addr - 12, &f, &to, &next) || next != addr) &&
	    (!guard_at(g, addr - 16, &f, &to, &next) || next != addr))
		return 0;
	return f == flag ? fallback_end(g, to) : 0;
}

/* The search below reads all the code at once: every DROP_STEP bytes it
   gives the pages it read back, as the scan does (isa.c), or a 145 MB
   .bolt.org.text would stay resident until the scan's next drop. */
#define DROP_STEP (1ull << 20)

/* 1 if some code stores a byte to flag: ADRP Xn of its page, then within
   16 words STRB Wt, [Xn, #its offset] (libgcc's init_have_lse_atomics).
   The answer for the last flag asked about is kept: a stripped file's
   helpers all ask about the same one. */
static int flag_written(struct tf_isa_guards *g, unsigned long long flag)
{
	const struct tf_elf_code_section *sec;
	unsigned long long a, b, page, offset, read = 0;
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
			if ((read += 4) % DROP_STEP == 0)
				tf_elf_code_drop(g->code, NULL, 0);
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
 * Where the LSE instruction of a helper starting at a is, 0 if none
 * does: hints, the guard on flag, then the LSE instruction, or a `b` to
 * it (BOLT's split: the rest is in HELPER.cold.0), then `ret`; the
 * fallback without LSE.
 */
static unsigned long long helper_lse(const struct tf_isa_guards *g,
				     unsigned long long a,
				     unsigned long long flag)
{
	unsigned long long f, to, lse = 0;
	int k;

	for (k = 0; k < 4 && a64_hint(code_word(g, a)); k++)
		a += 4;
	if (!guard_at(g, a, &f, &to, &a) || f != flag)
		return 0;
	if (!g->is_lse(code_word(g, a)) && !a64_b(code_word(g, a), a, &lse))
		return 0;
	if (!lse)
		lse = a;
	if (!g->is_lse(code_word(g, lse)) || code_word(g, lse + 4) != A64_RET ||
	    !fallback_end(g, to))
		return 0;
	return lse;
}

/* The functions .symtab names as helpers, in address order. */
static void find_helpers(struct tf_isa_guards *g)
{
	const struct tf_elf_func *fn;
	size_t i, alloc = 0;

	if (g->helpers_known)
		return;
	g->helpers_known = 1;
	for (i = 0; i < g->code->nr_funcs; i++) {
		/* Their names are read in address order, not the order of
		   .strtab: each fault maps the 64 KB around it, and 800,000
		   names would keep a 70 MB .strtab resident. */
		if (!(i & 0xff))
			tf_elf_code_drop(g->code, NULL, 0);
		fn = &g->code->funcs[i];
		if (fn->name[0] != '_' || !tf_isa_lse_helper_name(fn->name))
			continue;
		if (g->nr_helpers == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			g->helpers = tf_realloc(g->helpers,
						alloc * sizeof(*g->helpers));
		}
		g->helpers[g->nr_helpers++] = fn;
	}
}

/* The first named helper whose guard is on flag ("same guard as"), or
   NULL. */
static const char *same_guard(struct tf_isa_guards *g, unsigned long long flag)
{
	size_t i;

	find_helpers(g);
	for (i = 0; i < g->nr_helpers; i++)
		if (helper_lse(g, g->helpers[i]->addr, flag))
			return g->helpers[i]->name;
	return NULL;
}

/* Note an LSE site accepted without a helper's name covering it: the
   first few are listed for -v. */
#define MAX_SITES 6

static void site(struct tf_isa_guards *g, unsigned long long from,
		 unsigned long long to, const char *what, const char *name)
{
	if (g->nr_sites++ >= MAX_SITES)
		return;
	tf_buf_addf(&g->sites, "%s0x%llx-0x%llx ", g->sites.len ? "; " : "",
		    from, to);
	tf_buf_addf(&g->sites, what, name);
}

/* An unnamed helper: the guard on flag right before the LSE instruction
   at addr, `ret` after it, the fallback without LSE. */
static int unnamed(struct tf_isa_guards *g, unsigned long long addr,
		   unsigned long long flag)
{
	unsigned long long start = addr - 12, end;
	const char *ref;

	if (code_word(g, addr + 4) != A64_RET ||
	    !(end = guarded(g, addr, flag)))
		return 0;
	if (a64_hint(code_word(g, start - 4)))
		start -= 4;
	if (end < addr + 8 || end > addr + 64)
		end = addr + 8;
	ref = same_guard(g, flag);
	site(g, start, end,
	     ref ? "unnamed, same guard as %s" : "unnamed, guarded by %s",
	     ref ? ref : "__aarch64_have_lse_atomics");
	return 1;
}

/* HELPER.cold.N starting at addr (fn), where HELPER's guard on flag
   branches to: BOLT split the helper, its LSE instruction went cold. */
static int cold_part(struct tf_isa_guards *g, const struct tf_elf_func *fn,
		     unsigned long long addr, unsigned long long flag)
{
	const char *cold = strstr(fn->name, ".cold.");
	size_t i, len;

	if (!cold || fn->addr != addr || !cold[6] ||
	    cold[6 + strspn(cold + 6, "0123456789")])
		return 0;
	len = (size_t)(cold - fn->name);
	find_helpers(g);
	for (i = 0; i < g->nr_helpers; i++) {
		const struct tf_elf_func *h = g->helpers[i];

		if (strlen(h->name) != len || strncmp(h->name, fn->name, len) ||
		    helper_lse(g, h->addr, flag) != addr)
			continue;
		site(g, addr, addr + 8, "the cold part of %s, past its guard",
		     h->name);
		return 1;
	}
	return 0;
}

/*
 * BOLT's patch of a helper it moved: the old entry's first words
 *     adrp x16, NEW; add x16, x16, :lo12:NEW; br x16
 * and the rest of the old helper behind them (the LSE instruction at
 * addr, right after, or after the old guard's cbz), which no call
 * reaches. Taken as such only if NEW is a helper on flag with the same
 * LSE instruction, and the old code is a helper's.
 */
static int bolt_patched(struct tf_isa_guards *g, unsigned long long addr,
			unsigned long long flag)
{
	unsigned long long p = addr - 12, page, to = addr + 8, lse, end;
	const struct tf_elf_func *fn;
	unsigned w;

	/* The old guard's cbz survived a patch over `bti c; adrp; ldrb`. */
	if (a64_cbz(code_word(g, addr - 4), 0, 16, addr - 4, &to))
		p = addr - 16;
	w = code_word(g, p + 4);
	if (!a64_adrp(code_word(g, p), p, &page) ||
	    (code_word(g, p) & 31) != 16 ||
	    (w & 0xffc003ff) != 0x91000210 ||  /* add x16, x16, #imm */
	    code_word(g, p + 8) != 0xd61f0200) /* br x16 */
		return 0;
	page += (w >> 10) & 0xfff;
	lse = helper_lse(g, page, flag);
	if (!lse || code_word(g, lse) != code_word(g, addr) ||
	    code_word(g, addr + 4) != A64_RET || !(end = fallback_end(g, to)))
		return 0;
	fn = tf_elf_code_func(g->code, page);
	if (end > addr + 64)
		end = addr + 8;
	site(g, p, end,
	     "unreached: BOLT's patched entry jumps to its new copy, %s",
	     fn && fn->addr == page && tf_isa_lse_helper_name(fn->name)
		     ? fn->name
		     : "a helper");
	return 1;
}

/*
 * An LSE instruction in one of libgcc's outline-atomic helpers: named so
 * in .symtab, behind the guard above (nothing but hints, such as
 * `bti c`, before it in the helper), testing the flag the file defines
 * and sets from getauxval(AT_HWCAP); or where no helper's name covers
 * it, code that shows a helper on that flag all the same. The guard in
 * a file without .symtab (stripped) is counted in lse_unconfirmed
 * instead.
 */
const char *tf_isa_outline_atomic(struct tf_isa_guards *g,
				  const struct tf_elf_code_section *sec,
				  unsigned long long addr)
{
	const struct tf_elf_func *fn = tf_elf_code_func(g->code, addr);
	unsigned long long guard, to, next, flag, a;

	(void)sec;
	if (!hwcap_read(g))
		return NULL;
	if (!g->code->from_symtab) {
		if (guard_at(g, addr - 12, &guard, &to, &next) &&
		    next == addr && fallback_end(g, to) &&
		    flag_written(g, guard))
			g->lse_unconfirmed++;
		return NULL;
	}
	if (!lse_flag(g, &flag))
		return NULL;
	if (fn && tf_isa_lse_helper_name(fn->name)) {
		if (fn->addr > addr - 12 || !guarded(g, addr, flag))
			return NULL;
		for (a = fn->addr; a < addr - 12; a += 4)
			if (!a64_hint(code_word(g, a)))
				return NULL;
		return outline_atomics;
	}
	if ((!fn && (unnamed(g, addr, flag) || bolt_patched(g, addr, flag))) ||
	    (fn && cold_part(g, fn, addr, flag)))
		return outline_atomics;
	return NULL;
}

void tf_isa_guards_release(struct tf_isa_guards *g)
{
	free(g->helpers);
	g->helpers = NULL;
	g->nr_helpers = 0;
	g->helpers_known = 0;
	tf_buf_release(&g->sites);
}

void tf_isa_guards_join(struct tf_isa_guards *g, struct tf_isa_guards *part)
{
	size_t listed = g->nr_sites < MAX_SITES ? g->nr_sites : MAX_SITES;
	const char *p = part->sites.buf;

	g->lse_unconfirmed += part->lse_unconfirmed;
	/* part's listed sites, "; "-separated, up to MAX_SITES in all */
	for (; *p && listed < MAX_SITES; listed++) {
		const char *end = strstr(p, "; ");
		size_t n = end ? (size_t)(end - p) : strlen(p);

		tf_buf_addf(&g->sites, "%s%.*s", g->sites.len ? "; " : "",
			    (int)n, p);
		p += end ? n + 2 : n;
	}
	g->nr_sites += part->nr_sites;
	tf_isa_guards_release(part);
}
