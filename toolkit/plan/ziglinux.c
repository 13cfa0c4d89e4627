/*
 * The launchers of a Linux target with an older glibc (ziglinux.h):
 * shell scripts ending in zig's own driver by its full path, as
 * macos-arm64's are (zigtools.c), with -target ARCH-linux-gnu.2.X.
 */
#include "ziglinux.h"
#include "zigtools.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "internal.h"
#include "plan.h"
#include "recipe/recipe.h"

/* What cannot mix with zig's glibc, at its place. */
static int refuse(const struct tf_plan *p)
{
	const struct tf_toolchain_def *d =
		tf_recipe_toolchain(p->recipe, p->target.name);
	const struct tf_str *const fields[] = { &d->cc, &d->ar, &d->sysroot };
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		if (fields[i]->s)
			ret = tf_error_at(
				&fields[i]->pos,
				"toolchain of target '%s': with 'glibc' its compiler and archiver are zig's launchers, linking against glibc %s (docs/cross.md#older-glibc); this entry cannot replace them",
				p->target.name, d->glibc.s);
	if (p->recipe->nr_target_packages)
		ret = tf_error_at(
			&p->recipe->target_packages[0].pos,
			"target '%s' takes no target packages with its toolchain's 'glibc' (%s:%d:%d): Debian's libraries link against Debian's own glibc, not %s; build what it needs in a step",
			p->target.name, d->glibc.pos.file, d->glibc.pos.line,
			d->glibc.pos.col, d->glibc.s);
	return ret;
}

int tf_ziglinux_plan(struct tf_plan *p, const struct tf_plan_opts *o)
{
	struct tf_target *t = &p->target;
	const char *dir = tf_plan_keepf(p, "%s/toolchain/zig", p->dir);
	int ret = refuse(p);

	/* The same cache as macos-arm64's: the glibc stubs zig builds
	 * once are kept across trees. */
	tf_zig_cache_pick(p, o);
	free(t->cc);
	free(t->cxx);
	free(t->ar);
	free(t->ranlib);
	t->cc = tf_xstrfmt("%s/cc", dir);
	t->cxx = tf_xstrfmt("%s/c++", dir);
	t->ar = tf_xstrfmt("%s/ar", dir);
	t->ranlib = tf_xstrfmt("%s/ranlib", dir);
	/* No Fortran: zig has none, and gfortran would link the build
	 * machine's glibc. */
	free(t->fc);
	t->fc = NULL;
	return ret;
}

static void head(const struct tf_plan *p, struct tf_buf *out, const char *what,
		 const char *cache)
{
	tf_buf_addf(out,
		    "#!/bin/sh\n# %s for target %s (glibc 2.%u's symbols), by "
		    "zig; written by tfbuild.\n# Regenerated from the recipe; "
		    "do not edit.\nZIG_GLOBAL_CACHE_DIR=",
		    what, p->target.name, p->target.glibc_minor);
	tf_run_quote_word(out, cache);
	tf_buf_addstr(out, "\nZIG_LOCAL_CACHE_DIR=$ZIG_GLOBAL_CACHE_DIR\n"
			   "export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR\n");
}

/*
 * cc and c++: the glibc in -target; no debug information unless asked
 * (-g0 first, so a caller's -g wins), as gcc does and zig does not;
 * standard input read as C (C++) when no -x says, since zig hands a
 * language it cannot tell to clang with a triple clang refuses (Meson
 * asks `cc -E -dM -`); a failed run removes its output.
 */
static void compiler(const struct tf_plan *p, struct tf_buf *out,
		     const char *what, const char *driver, const char *cache)
{
	const char *id = p->target.identity ? p->target.identity : "",
		   *version = strrchr(id, ' ');

	head(p, out, what, cache);
	tf_buf_addstr(out, "out= prev= stdin= lang= ldv=\n"
			   "for a do\n"
			   "\tcase $prev in -o) out=$a ;; esac\n"
			   "\tcase $a in\n"
			   "\t-o?*) out=${a#-o} ;;\n"
			   "\t-) stdin=1 ;;\n"
			   "\t-x*) lang=1 ;;\n"
			   "\t-Wl,--version) ldv=1 ;;\n"
			   "\tesac\n"
			   "\tprev=$a\n"
			   "done\n");
	/* Meson knows a linker by its --version line, and not zig's own
	 * ("zig ld"): it answers as LLD, whose GNU options it takes. */
	tf_buf_addf(out,
		    "if [ -n \"$ldv\" ]; then\n"
		    "\techo 'LLD %s (zig ld, compatible with GNU linkers)'\n"
		    "\texit 0\nfi\n",
		    version && version[1] ? version + 1 : "0");
	tf_buf_addf(out,
		    "if [ -n \"$stdin\" ] && [ -z \"$lang\" ]; then\n"
		    "\tset -- -x %s \"$@\"\n"
		    "fi\n",
		    strcmp(driver, "c++") ? "c" : "c++");
	tf_run_quote_word(out, p->target.zig ? p->target.zig : "zig");
	tf_buf_addf(out,
		    " %s -target %s.2.%u -g0 \"$@\" && exit 0\n"
		    "rc=$?\n"
		    "# zig leaves a 0-byte output behind a failure.\n"
		    "if [ -n \"$out\" ]; then rm -f -- \"$out\"; fi\n"
		    "exit $rc\n",
		    driver, p->target.triplet, p->target.glibc_minor);
}

/* ar and ranlib: zig's own (LLVM's), deterministic by default. */
static void archiver(const struct tf_plan *p, struct tf_buf *out,
		     const char *what, const char *sub, const char *cache)
{
	head(p, out, what, cache);
	tf_buf_addstr(out, "exec ");
	tf_run_quote_word(out, p->target.zig ? p->target.zig : "zig");
	tf_buf_addf(out, " %s \"$@\"\n", sub);
}

void tf_ziglinux_list(struct tf_plan *p, int write)
{
	const struct tf_target *t = &p->target;
	struct tf_buf s = TF_BUF_INIT, r = TF_BUF_INIT;
	const char *none = "(zig's cache)";

	compiler(p, &s, "C compiler", "cc", none);
	compiler(p, &r, "C compiler", "cc", p->zig_cache);
	tf_zig_add_tool(p, t->cc, &s, &r, write);
	compiler(p, &s, "C++ compiler", "c++", none);
	compiler(p, &r, "C++ compiler", "c++", p->zig_cache);
	tf_zig_add_tool(p, t->cxx, &s, &r, write);
	archiver(p, &s, "archiver", "ar", none);
	archiver(p, &r, "archiver", "ar", p->zig_cache);
	tf_zig_add_tool(p, t->ar, &s, &r, write);
	archiver(p, &s, "ranlib", "ranlib", none);
	archiver(p, &r, "ranlib", "ranlib", p->zig_cache);
	tf_zig_add_tool(p, t->ranlib, &s, &r, write);
	tf_buf_release(&s);
	tf_buf_release(&r);
}
