/*
 * macos-arm64's launchers (zigtools.h): shell scripts, as the pkg-config
 * wrapper and the guards are, each ending in one exec of zig's own
 * driver by its full path, so nothing of the build machine's PATH
 * stands in for it.
 */
#include "zigtools.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "internal.h"
#include "plan.h"
#include "recipe/recipe.h"

/* What a toolchain entry may not set for this target, at its place. */
static int refuse_toolchain(const struct tf_plan *p)
{
	const struct tf_toolchain_def *d =
		tf_recipe_toolchain(p->recipe, p->target.name);
	const struct tf_str *const fields[] = {
		d ? &d->cc : NULL,       d ? &d->ar : NULL,
		d ? &d->strip : NULL,    d ? &d->sysroot : NULL,
		d ? &d->emulator : NULL, d ? &d->python_include : NULL
	};
	size_t i;
	int ret = 0;

	for (i = 0; d && i < sizeof(fields) / sizeof(*fields); i++)
		if (fields[i]->s)
			ret = tf_error_at(
				&fields[i]->pos,
				"toolchain of target '%s': its tools are zig's launchers (docs/cross.md#macos), which this entry cannot replace; only cflags, ldflags and launcher apply",
				p->target.name);
	return ret;
}

void tf_zig_cache_pick(struct tf_plan *p, const struct tf_plan_opts *o)
{
	const char *cache = getenv("ZIG_GLOBAL_CACHE_DIR");

	/* The caller's zig cache (the suite shares one), else tfbuild's:
	 * what zig builds once (compiler-rt, libc++) is kept across trees. */
	if (cache && *cache == '/')
		p->zig_cache = tf_plan_keepf(p, "%s", cache);
	else if (o->cache_dir)
		p->zig_cache = tf_plan_keepf(p, "%s/zig", o->cache_dir);
	else
		p->zig_cache = tf_plan_keepf(p, "%s/zig-cache", p->dir);
}

int tf_macos_plan(struct tf_plan *p, const struct tf_plan_opts *o)
{
	struct tf_target *t = &p->target;
	const char *dir = tf_plan_keepf(p, "%s/toolchain/zig", p->dir);
	char *nm = tf_run_which("llvm-nm-14"),
	     *objdump = tf_run_which("llvm-objdump-14");
	int ret = refuse_toolchain(p);

	if (p->recipe->nr_target_packages)
		ret = tf_error_at(
			&p->recipe->target_packages[0].pos,
			"target '%s' takes no target packages: Debian has none for macOS; build what it needs in a step, or take it from target-wheels",
			t->name);
	tf_zig_cache_pick(p, o);
	free(t->cc);
	free(t->cxx);
	free(t->ar);
	free(t->ranlib);
	free(t->strip);
	t->cc = tf_xstrfmt("%s/cc", dir);
	t->cxx = tf_xstrfmt("%s/c++", dir);
	t->ar = tf_xstrfmt("%s/ar", dir);
	t->ranlib = tf_xstrfmt("%s/ranlib", dir);
	t->strip = tf_xstrfmt("%s/strip", dir);
	if (nm) {
		free(t->nm);
		t->nm = nm;
	}
	if (objdump) {
		free(t->objdump);
		t->objdump = objdump;
	}
	return ret;
}

/* The launchers' common head: what they are, and zig's cache. */
static void head(const struct tf_plan *p, struct tf_buf *out, const char *what,
		 const char *cache)
{
	tf_buf_addf(
		out,
		"#!/bin/sh\n# %s for target %s (macOS %s and later), by zig; "
		"written by tfbuild.\n# Regenerated from the recipe; do not "
		"edit.\nZIG_GLOBAL_CACHE_DIR=",
		what, p->target.name, p->recipe->macos_minimum.s);
	tf_run_quote_word(out, cache);
	tf_buf_addstr(out, "\nZIG_LOCAL_CACHE_DIR=$ZIG_GLOBAL_CACHE_DIR\n"
			   "export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR\n");
}

/*
 * cc and c++: the minimum macOS in -target; for a link, no debug map
 * (-Wl,-S) and, for a dylib, the install name @rpath/ and its file
 * name, both before the caller's arguments, so that an install name
 * of the caller's own (CMake passes one) comes last and wins; a failed
 * run removes its output.
 */
static void compiler(const struct tf_plan *p, struct tf_buf *out,
		     const char *what, const char *driver, const char *cache)
{
	const char *id = p->target.identity ? p->target.identity : "",
		   *version = strrchr(id, ' ');

	head(p, out, what, cache);
	/* Meson knows a linker by how it answers these two; zig's takes
	 * ld64's options, so it answers as ld64 does, with zig's version. */
	tf_buf_addf(out,
		    "if [ $# = 1 ] && [ \"$1\" = -Wl,--version ]; then\n"
		    "\techo 'ld: unknown option: --version' >&2\n\texit 1\n"
		    "elif [ $# = 1 ] && [ \"$1\" = -Wl,-v ]; then\n"
		    "\techo '@(#)PROGRAM:ld PROJECT:ld64-%s (zig)' >&2\n"
		    "\texit 0\nfi\n",
		    version && version[1] ? version + 1 : "0");
	tf_buf_addstr(out, "link=1 shared= out= prev=\n"
			   "for a do\n"
			   "\tcase $prev in -o) out=$a ;; esac\n"
			   "\tcase $a in\n"
			   "\t-c | -S | -E | -M | -MM) link= ;;\n"
			   "\t-shared | -dynamiclib) shared=1 ;;\n"
			   "\t-o?*) out=${a#-o} ;;\n"
			   "\tesac\n"
			   "\tprev=$a\n"
			   "done\n"
			   "if [ -n \"$link\" ] && [ -n \"$shared\" ] && "
			   "[ -n \"$out\" ]; then\n"
			   "\tset -- \"-Wl,-install_name,@rpath/${out##*/}\" "
			   "\"$@\"\n"
			   "fi\n"
			   "if [ -n \"$link\" ]; then\n"
			   "\tset -- -Wl,-S \"$@\"\n"
			   "fi\n");
	tf_buf_addf(out, "set -- -target aarch64-macos.%s \"$@\"\n",
		    p->recipe->macos_minimum.s);
	tf_run_quote_word(out, p->target.zig ? p->target.zig : "zig");
	tf_buf_addf(out,
		    " %s \"$@\" && exit 0\n"
		    "rc=$?\n"
		    "# zig leaves a 0-byte output behind a failure.\n"
		    "if [ -n \"$out\" ]; then rm -f -- \"$out\"; fi\n"
		    "exit $rc\n",
		    driver);
}

/* ar and ranlib: zig's own (LLVM's), which write Mach-O archives. */
static void archiver(const struct tf_plan *p, struct tf_buf *out,
		     const char *what, const char *sub, const char *cache)
{
	head(p, out, what, cache);
	tf_buf_addstr(out, "exec ");
	tf_run_quote_word(out, p->target.zig ? p->target.zig : "zig");
	tf_buf_addf(out, " %s \"$@\"\n", sub);
}

/*
 * strip: nothing to do. Links keep no debug map already, and a strip
 * after the linker would break the code signature it wrote (the
 * audit refuses an unsigned or mis-hashed arm64 file).
 */
static void strip(const struct tf_plan *p, struct tf_buf *out)
{
	tf_buf_addf(out,
		    "#!/bin/sh\n# strip for target %s, written by tfbuild.\n"
		    "echo \"tfbuild: strip for %s does nothing: the launchers "
		    "link without a debug map, and a strip after the linker "
		    "would break the code signature it wrote\" >&2\n"
		    "exit 0\n",
		    p->target.name, p->target.name);
}

void tf_zig_add_tool(struct tf_plan *p, const char *path,
		     struct tf_buf *stamped, struct tf_buf *real, int write)
{
	tf_buf_addf(&p->toolfiles, "== zig/%s\n", tf_path_basename(path));
	tf_buf_add(&p->toolfiles, stamped->buf, stamped->len);
	if (write)
		tf_plan_write_later(p, path, real->buf, real->len, 0755);
	tf_buf_reset(stamped);
	tf_buf_reset(real);
}

void tf_macos_list(struct tf_plan *p, int write)
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
	strip(p, &s);
	strip(p, &r);
	tf_zig_add_tool(p, t->strip, &s, &r, write);
	tf_buf_release(&s);
	tf_buf_release(&r);
}
