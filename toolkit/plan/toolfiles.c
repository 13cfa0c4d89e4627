/*
 * The per-target files that CMake, Meson and pkg-config read. Their
 * content depends only on the plan (tools, flags, sysroot, emulator), so
 * the same plan always writes the same bytes.
 */
#include "toolfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "launcher.h"
#include "ziglinux.h"
#include "zigtools.h"
#include "internal.h"
#include "plan.h"
#include "env/env.h"
#include "recipe/recipe.h"

static const char *keep(struct tf_plan *p, char *s)
{
	tf_strvec_push_take(&p->store, s);
	return s;
}

void tf_toolfiles_plan(struct tf_plan *p)
{
	const char *kind = p->target.native ? "native" : "cross";

	p->tools_dir = keep(p, tf_xstrfmt("%s/toolchain", p->dir));
	p->cmake_toolchain =
		keep(p, tf_xstrfmt("%s/toolchain.cmake", p->tools_dir));
	p->meson_file =
		keep(p, tf_xstrfmt("%s/meson-%s.ini", p->tools_dir, kind));
	{
		struct tf_buf b = TF_BUF_INIT;

		tf_buf_addf(&b, "--%s-file ", kind);
		tf_toolfiles_sh_escape(p->meson_file, &b);
		p->meson_args = keep(p, tf_buf_detach(&b));
	}
	p->pkg_config = keep(p, tf_xstrfmt("%s/pkg-config", p->tools_dir));
	if (p->sysroot) {
		p->pkg_config_libdir = keep(
			p,
			tf_xstrfmt(
				"%s/usr/lib/%s/pkgconfig:%s/usr/lib/pkgconfig:%s/usr/share/pkgconfig",
				p->sysroot, p->target.triplet, p->sysroot,
				p->sysroot));
		p->pkg_config_sysroot = p->sysroot;
	} else if (p->target.macos || p->target.glibc_minor) {
		/* No package of the build machine's is macOS's, nor linked
		 * against zig's older glibc. */
		p->pkg_config_libdir = "";
		p->pkg_config_sysroot = "";
	} else if (p->target.native) {
		/* Debian's own search path for the build machine. */
		p->pkg_config_libdir = keep(
			p,
			tf_xstrfmt(
				"/usr/local/lib/%s/pkgconfig:/usr/local/lib/pkgconfig:"
				"/usr/local/share/pkgconfig:/usr/lib/%s/pkgconfig:"
				"/usr/lib/pkgconfig:/usr/share/pkgconfig",
				p->target.triplet, p->target.triplet));
		p->pkg_config_sysroot = "";
	} else {
		/* Without target packages, only the cross toolchain's root:
		 * never the build machine's libraries (docs/cross.md). */
		p->pkg_config_libdir =
			keep(p, tf_xstrfmt("/usr/%s/lib/pkgconfig",
					   p->target.triplet));
		p->pkg_config_sysroot = "";
	}
	p->target_python =
		p->target.native
			? keep(p, tf_strdup("/usr/bin/python3"))
			: keep(p, tf_xstrfmt("%s/target-python", p->tools_dir));
	/* A cross target's programs all start under its qemu, which the
	 * baseline run's QEMU_CPU sets the CPU of; a native target's do
	 * not, so its baseline run has files of its own. */
	p->baseline_python = p->target.native
				     ? keep(p, tf_xstrfmt("%s/baseline-python",
							  p->tools_dir))
				     : p->target_python;
	p->baseline_cmake =
		p->target.native
			? keep(p, tf_xstrfmt("%s/baseline.cmake", p->tools_dir))
			: p->cmake_toolchain;
}

/* The full path of a tool when it is installed, else its name. */
static char *tool_path(const char *name)
{
	char *path = tf_run_which(name);

	return path ? path : tf_strdup(name);
}

void tf_toolfiles_sh_escape(const char *s, struct tf_buf *out)
{
	for (; *s; s++) {
		if (*s == '\n') {
			tf_buf_addstr(out, "'\n'");
			continue;
		}
		if (strchr(" \t'\"\\$`;&|<>()*?[]#~{}!", *s))
			tf_buf_addch(out, '\\');
		tf_buf_addch(out, *s);
	}
}

/*
 * Words of a flags string as the shell reads them: split at blanks, with
 * '...', "..." and backslash quoting what tf_toolfiles_sh_escape wrote.
 */
static void split(const char *s, struct tf_strvec *out)
{
	struct tf_buf w = TF_BUF_INIT;
	int in_word = 0;
	char q = 0;

	for (; *s; s++) {
		if (q == '\'' && *s != '\'') {
			tf_buf_addch(&w, *s);
		} else if (q == '"' && *s == '\\' && s[1] &&
			   strchr("\"\\$`", s[1])) {
			tf_buf_addch(&w, *++s);
		} else if (q && *s == q) {
			q = 0;
		} else if (q) {
			tf_buf_addch(&w, *s);
		} else if (strchr(" \t\n", *s)) {
			if (in_word)
				tf_strvec_push(out, w.buf);
			tf_buf_reset(&w);
			in_word = 0;
		} else {
			in_word = 1;
			if (*s == '\'' || *s == '"')
				q = *s;
			else if (*s == '\\' && s[1])
				tf_buf_addch(&w, *++s);
			else
				tf_buf_addch(&w, *s);
		}
	}
	if (in_word)
		tf_strvec_push(out, w.buf);
	tf_buf_release(&w);
}

/* The emulator's command line, with -L for its library root. */
static void emulator_argv(const struct tf_plan *p, struct tf_strvec *out)
{
	const char *root = p->sysroot ? p->sysroot : p->target.emulator_prefix;

	split(p->target.emulator, out);
	if (out->nr && root && *root) {
		tf_strvec_push(out, "-L");
		tf_strvec_push(out, root);
	}
}

/* A CMake quoted argument: backslash, quote and dollar escaped. */
static void cmake_quote(struct tf_buf *out, const char *s)
{
	tf_buf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '$')
			tf_buf_addch(out, '\\');
		tf_buf_addch(out, *s);
	}
	tf_buf_addch(out, '"');
}

static void cmake_set(struct tf_buf *out, const char *var, const char *value,
		      const char *cache)
{
	tf_buf_addf(out, "set(%s ", var);
	cmake_quote(out, value);
	if (cache)
		tf_buf_addf(out, " CACHE %s \"\"", cache);
	tf_buf_addstr(out, ")\n");
}

static void cmake_tool(struct tf_buf *out, const char *var, const char *name,
		       const char *cache)
{
	char *path = tool_path(name);

	cmake_set(out, var, path, cache);
	free(path);
}

static void cmake_macos(const struct tf_plan *p, struct tf_buf *out);

/*
 * Look for libraries, headers and packages in the target's roots only;
 * programs (generators, code formatters) are the build machine's. With
 * a glibc (zig's), no root: every Debian library links Debian's glibc.
 */
static void cmake_find_root(const struct tf_plan *p, struct tf_buf *out)
{
	const struct tf_target *t = &p->target;
	struct tf_buf b = TF_BUF_INIT;

	if (t->native && !t->glibc_minor)
		return;
	if (t->glibc_minor)
		tf_buf_addf(&b, "%s/zig", p->tools_dir);
	else if (p->sysroot)
		tf_buf_addf(&b, "%s;/usr/%s", p->sysroot, t->triplet);
	else
		tf_buf_addf(&b, "/usr/%s", t->triplet);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH", b.buf, NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_PROGRAM", "NEVER", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_LIBRARY", "ONLY", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_INCLUDE", "ONLY", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_PACKAGE", "ONLY", NULL);
	tf_buf_release(&b);
}

/* The files' contents, for tests and stamps; appended to out. */
static void tf_toolfiles_cmake(const struct tf_plan *p, struct tf_buf *out)
{
	const struct tf_target *t = &p->target;
	struct tf_strvec emu = TF_STRVEC_INIT;
	struct tf_buf b = TF_BUF_INIT;

	if (t->macos) {
		cmake_macos(p, out);
		return;
	}

	tf_buf_addf(
		out,
		"# CMake toolchain file for target %s, written by tfbuild.\n"
		"# Use: cmake -DCMAKE_TOOLCHAIN_FILE=${cmake_toolchain} (the step's\n"
		"# $CMAKE_TOOLCHAIN_FILE). Regenerated from the recipe; do not edit.\n",
		t->name);
	cmake_set(out, "CMAKE_SYSTEM_NAME", "Linux", NULL);
	cmake_set(out, "CMAKE_SYSTEM_PROCESSOR", t->name, NULL);
	cmake_set(out, "CMAKE_LIBRARY_ARCHITECTURE", t->triplet, NULL);
	cmake_tool(out, "CMAKE_C_COMPILER", t->cc, NULL);
	cmake_tool(out, "CMAKE_CXX_COMPILER", t->cxx, NULL);
	if (p->launcher) {
		cmake_set(out, "CMAKE_C_COMPILER_LAUNCHER", p->launcher->path,
			  NULL);
		cmake_set(out, "CMAKE_CXX_COMPILER_LAUNCHER", p->launcher->path,
			  NULL);
	}
	if (t->fc)
		cmake_tool(out, "CMAKE_Fortran_COMPILER", t->fc, NULL);
	cmake_tool(out, "CMAKE_AR", t->ar, "FILEPATH");
	cmake_tool(out, "CMAKE_RANLIB", t->ranlib, "FILEPATH");
	cmake_tool(out, "CMAKE_STRIP", t->strip, "FILEPATH");
	cmake_tool(out, "CMAKE_NM", t->nm, "FILEPATH");
	cmake_tool(out, "CMAKE_OBJCOPY", t->objcopy, "FILEPATH");
	cmake_tool(out, "CMAKE_OBJDUMP", t->objdump, "FILEPATH");
	cmake_tool(out, "CMAKE_READELF", t->readelf, "FILEPATH");
	cmake_tool(out, "CMAKE_LINKER", t->ld, "FILEPATH");
	/* The reproducibility flags (prefix maps) go into every compile. */
	cmake_set(out, "CMAKE_C_FLAGS_INIT", p->cflags, NULL);
	cmake_set(out, "CMAKE_CXX_FLAGS_INIT", p->cflags, NULL);
	if (t->fc)
		cmake_set(out, "CMAKE_Fortran_FLAGS_INIT", p->cflags, NULL);
	cmake_set(out, "CMAKE_EXE_LINKER_FLAGS_INIT", p->ldflags, NULL);
	cmake_set(out, "CMAKE_SHARED_LINKER_FLAGS_INIT", p->ldflags, NULL);
	cmake_set(out, "CMAKE_MODULE_LINKER_FLAGS_INIT", p->ldflags, NULL);
	tf_buf_addf(out, "set(ENV{SOURCE_DATE_EPOCH} \"%lld\")\n",
		    p->recipe->source_date_epoch);
	emulator_argv(p, &emu);
	if (emu.nr) {
		tf_strvec_join(&emu, ";", &b);
		cmake_set(out, "CMAKE_CROSSCOMPILING_EMULATOR", b.buf, NULL);
	}
	cmake_find_root(p, out);
	cmake_set(out, "PKG_CONFIG_EXECUTABLE", p->pkg_config, "FILEPATH");
	tf_buf_addstr(out, "set(ENV{PKG_CONFIG_LIBDIR} ");
	cmake_quote(out, p->pkg_config_libdir);
	tf_buf_addstr(out, ")\nset(ENV{PKG_CONFIG_SYSROOT_DIR} ");
	cmake_quote(out, p->pkg_config_sysroot);
	tf_buf_addstr(out, ")\nunset(ENV{PKG_CONFIG_PATH})\n");
	tf_strvec_release(&emu);
	tf_buf_release(&b);
}

/*
 * macos-arm64: CMake's Darwin platform, the minimum macOS
 * (CMake passes -mmacosx-version-min, which zig ignores: the launchers
 * pass it), LLVM's install-name tool, and nothing found on this machine.
 */
static void cmake_macos(const struct tf_plan *p, struct tf_buf *out)
{
	const struct tf_target *t = &p->target;
	struct tf_buf b = TF_BUF_INIT;

	tf_buf_addf(
		out,
		"# CMake toolchain file for target %s, written by tfbuild.\n"
		"# Use: cmake -DCMAKE_TOOLCHAIN_FILE=${cmake_toolchain} (the step's\n"
		"# $CMAKE_TOOLCHAIN_FILE). Regenerated from the recipe; do not edit.\n",
		t->name);
	cmake_set(out, "CMAKE_SYSTEM_NAME", "Darwin", NULL);
	/* The Darwin kernel of the minimum macOS (11 is Darwin 20). */
	tf_buf_reset(&b);
	tf_buf_addf(&b, "%u.0.0", (p->recipe->macos_version >> 16) + 9);
	cmake_set(out, "CMAKE_SYSTEM_VERSION", b.buf, NULL);
	cmake_set(out, "CMAKE_SYSTEM_PROCESSOR", "arm64", NULL);
	cmake_set(out, "CMAKE_OSX_DEPLOYMENT_TARGET",
		  p->recipe->macos_minimum.s, "STRING");
	cmake_set(out, "CMAKE_C_COMPILER", t->cc, NULL);
	cmake_set(out, "CMAKE_CXX_COMPILER", t->cxx, NULL);
	if (p->launcher) {
		cmake_set(out, "CMAKE_C_COMPILER_LAUNCHER", p->launcher->path,
			  NULL);
		cmake_set(out, "CMAKE_CXX_COMPILER_LAUNCHER", p->launcher->path,
			  NULL);
	}
	cmake_set(out, "CMAKE_AR", t->ar, "FILEPATH");
	cmake_set(out, "CMAKE_RANLIB", t->ranlib, "FILEPATH");
	cmake_set(out, "CMAKE_STRIP", t->strip, "FILEPATH");
	cmake_tool(out, "CMAKE_NM", t->nm, "FILEPATH");
	cmake_tool(out, "CMAKE_OBJDUMP", t->objdump, "FILEPATH");
	cmake_tool(out, "CMAKE_INSTALL_NAME_TOOL", "llvm-install-name-tool-14",
		   "FILEPATH");
	cmake_set(out, "CMAKE_C_FLAGS_INIT", p->cflags, NULL);
	cmake_set(out, "CMAKE_CXX_FLAGS_INIT", p->cflags, NULL);
	cmake_set(out, "CMAKE_EXE_LINKER_FLAGS_INIT", p->ldflags, NULL);
	cmake_set(out, "CMAKE_SHARED_LINKER_FLAGS_INIT", p->ldflags, NULL);
	cmake_set(out, "CMAKE_MODULE_LINKER_FLAGS_INIT", p->ldflags, NULL);
	tf_buf_addf(out, "set(ENV{SOURCE_DATE_EPOCH} \"%lld\")\n",
		    p->recipe->source_date_epoch);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH", p->dir, NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_PROGRAM", "NEVER", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_LIBRARY", "ONLY", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_INCLUDE", "ONLY", NULL);
	cmake_set(out, "CMAKE_FIND_ROOT_PATH_MODE_PACKAGE", "ONLY", NULL);
	cmake_set(out, "PKG_CONFIG_EXECUTABLE", p->pkg_config, "FILEPATH");
	tf_buf_addstr(out, "set(ENV{PKG_CONFIG_LIBDIR} \"\")\n"
			   "unset(ENV{PKG_CONFIG_PATH})\n");
	/* Darwin.cmake sets the rpath flag only for a running macOS
	 * (sw_vers), after this file; without it CMake gives dylibs their
	 * build path as install name, not @rpath/NAME. So this file is
	 * read again after it, as the rules override, to set it. */
	tf_buf_addstr(
		out,
		"# Read again after CMake's Darwin platform files (the "
		"rules override).\n"
		"set(CMAKE_SHARED_LIBRARY_RUNTIME_C_FLAG \"-Wl,-rpath,\")\n"
		"set(CMAKE_USER_MAKE_RULES_OVERRIDE "
		"\"${CMAKE_CURRENT_LIST_FILE}\")\n");
	tf_buf_release(&b);
}

/* A Meson string literal. */
static void meson_quote(struct tf_buf *out, const char *s)
{
	tf_buf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			tf_buf_addch(out, '\\');
		tf_buf_addch(out, *s);
	}
	tf_buf_addch(out, '\'');
}

static void meson_list(struct tf_buf *out, const struct tf_strvec *v)
{
	size_t i;

	tf_buf_addch(out, '[');
	for (i = 0; i < v->nr; i++) {
		if (i)
			tf_buf_addstr(out, ", ");
		meson_quote(out, v->v[i]);
	}
	tf_buf_addstr(out, "]\n");
}

static void meson_tool(struct tf_buf *out, const char *key, const char *name)
{
	char *path = tool_path(name);

	tf_buf_addf(out, "%s = ", key);
	meson_quote(out, path);
	tf_buf_addch(out, '\n');
	free(path);
}

/* A compiler, behind the launcher when there is one: ['ccache', 'gcc']. */
static void meson_compiler(const struct tf_plan *p, struct tf_buf *out,
			   const char *key, const char *name)
{
	struct tf_strvec v = TF_STRVEC_INIT;

	if (!p->launcher) {
		meson_tool(out, key, name);
		return;
	}
	tf_strvec_push(&v, p->launcher->path);
	tf_strvec_push_take(&v, tool_path(name));
	tf_buf_addf(out, "%s = ", key);
	meson_list(out, &v);
	tf_strvec_release(&v);
}

static void meson_flags(struct tf_buf *out, const char *key, const char *flags)
{
	struct tf_strvec v = TF_STRVEC_INIT;

	split(flags, &v);
	tf_buf_addf(out, "%s = ", key);
	meson_list(out, &v);
	tf_strvec_release(&v);
}

static void meson_macos(const struct tf_plan *p, struct tf_buf *out)
{
	const struct tf_target *t = &p->target;

	tf_buf_addf(out,
		    "# Meson cross file for target %s, written by tfbuild.\n"
		    "# Use: meson setup ${meson_args} BUILDDIR. Do not edit.\n"
		    "[binaries]\n",
		    t->name);
	meson_compiler(p, out, "c", t->cc);
	meson_compiler(p, out, "cpp", t->cxx);
	meson_tool(out, "ar", t->ar);
	meson_tool(out, "strip", t->strip);
	meson_tool(out, "ranlib", t->ranlib);
	meson_tool(out, "nm", t->nm);
	tf_buf_addstr(out, "pkgconfig = ");
	meson_quote(out, p->pkg_config);
	tf_buf_addstr(out, "\npkg-config = ");
	meson_quote(out, p->pkg_config);
	tf_buf_addstr(out, "\n\n[built-in options]\n");
	meson_flags(out, "c_args", p->cflags);
	meson_flags(out, "cpp_args", p->cflags);
	meson_flags(out, "c_link_args", p->ldflags);
	meson_flags(out, "cpp_link_args", p->ldflags);
	tf_buf_addstr(out, "\n[properties]\npkg_config_libdir = []\n"
			   "needs_exe_wrapper = true\n\n[host_machine]\n"
			   "system = 'darwin'\ncpu_family = 'aarch64'\n"
			   "cpu = 'arm64'\nendian = 'little'\n");
}

static void tf_toolfiles_meson(const struct tf_plan *p, struct tf_buf *out)
{
	const struct tf_target *t = &p->target;
	struct tf_strvec emu = TF_STRVEC_INIT, libdir = TF_STRVEC_INIT;
	const char *s;

	if (t->macos) {
		meson_macos(p, out);
		return;
	}

	tf_buf_addf(out,
		    "# Meson %s file for target %s, written by tfbuild.\n"
		    "# Use: meson setup ${meson_args} BUILDDIR. Do not edit.\n"
		    "[binaries]\n",
		    t->native ? "native" : "cross", t->name);
	meson_compiler(p, out, "c", t->cc);
	meson_compiler(p, out, "cpp", t->cxx);
	if (t->fc)
		meson_tool(out, "fortran", t->fc);
	meson_tool(out, "ar", t->ar);
	meson_tool(out, "strip", t->strip);
	meson_tool(out, "ranlib", t->ranlib);
	meson_tool(out, "nm", t->nm);
	meson_tool(out, "objcopy", t->objcopy);
	meson_tool(out, "readelf", t->readelf);
	tf_buf_addstr(out, "pkgconfig = ");
	meson_quote(out, p->pkg_config);
	tf_buf_addstr(out, "\npkg-config = ");
	meson_quote(out, p->pkg_config);
	tf_buf_addch(out, '\n');
	emulator_argv(p, &emu);
	if (emu.nr) {
		tf_buf_addstr(out, "exe_wrapper = ");
		meson_list(out, &emu);
	}
	tf_buf_addstr(out, "\n[built-in options]\n");
	meson_flags(out, "c_args", p->cflags);
	meson_flags(out, "cpp_args", p->cflags);
	meson_flags(out, "c_link_args", p->ldflags);
	meson_flags(out, "cpp_link_args", p->ldflags);
	if (t->fc) {
		meson_flags(out, "fortran_args", p->cflags);
		meson_flags(out, "fortran_link_args", p->ldflags);
	}
	tf_buf_addstr(out, "\n[properties]\n");
	for (s = p->pkg_config_libdir; *s;) {
		size_t n = strcspn(s, ":");

		if (n)
			tf_strvec_push_take(&libdir, tf_strndup(s, n));
		s += n + (s[n] == ':');
	}
	tf_buf_addstr(out, "pkg_config_libdir = ");
	meson_list(out, &libdir);
	/*
	 * No sys_root: Meson 1.0 puts sys_root/bin first on the PATH of any
	 * test given a cross-built program as an argument (its MinGW DLL
	 * search, get_mingw_extra_paths, not limited to Windows there), so
	 * `#!/usr/bin/env python3` would find the root's aarch64 python3.
	 * The compilers get the root from c_args, pkg-config from its
	 * wrapper; Meson's CMake lookups get it from [cmake] below.
	 */
	if (!t->native)
		tf_buf_addf(out,
			    "needs_exe_wrapper = true\n\n[host_machine]\n"
			    "system = 'linux'\ncpu_family = '%s'\ncpu = '%s'\n"
			    "endian = 'little'\n",
			    t->name, t->name);
	if (p->sysroot) {
		tf_buf_addstr(out, "\n[cmake]\nCMAKE_SYSROOT = ");
		meson_quote(out, p->sysroot);
		tf_buf_addch(out, '\n');
	}
	tf_strvec_release(&emu);
	tf_strvec_release(&libdir);
}

/*
 * pkg-config that sees only the target's .pc files, whatever the caller's
 * environment says (CMake and Meson may run it with their own).
 */
static void pkg_config_script(const struct tf_plan *p, struct tf_buf *out)
{
	char *real = tool_path("pkg-config");

	tf_buf_addf(
		out,
		"#!/bin/sh\n# pkg-config for target %s, written by tfbuild.\n"
		"PKG_CONFIG_LIBDIR=",
		p->target.name);
	tf_run_quote_word(out, p->pkg_config_libdir);
	tf_buf_addstr(out, "\nPKG_CONFIG_SYSROOT_DIR=");
	tf_run_quote_word(out, p->pkg_config_sysroot);
	tf_buf_addstr(out, "\nexport PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR\n"
			   "unset PKG_CONFIG_PATH\nexec ");
	tf_run_quote_word(out, real);
	tf_buf_addstr(out, " \"$@\"\n");
	free(real);
}

/* $TARGET_PYTHON for a cross target: the target's CPython, emulated. */
static void python_script(const struct tf_plan *p, struct tf_buf *out)
{
	struct tf_strvec emu = TF_STRVEC_INIT;
	size_t i;

	tf_buf_addf(
		out,
		"#!/bin/sh\n# CPython for target %s under its emulator, written by tfbuild.\n",
		p->target.name);
	if (!p->sysroot || !p->target_python_exe) {
		tf_buf_addf(
			out,
			"echo \"tfbuild: no CPython for target %s: its steps name no \\$TARGET_PYTHON, so none was unpacked\" >&2\nexit 127\n",
			p->target.name);
		return;
	}
	emulator_argv(p, &emu);
	tf_buf_addstr(out, "exec");
	for (i = 0; i < emu.nr; i++) {
		tf_buf_addch(out, ' ');
		tf_run_quote_word(out, emu.v[i]);
	}
	tf_buf_addch(out, ' ');
	tf_run_quote_word(out, p->target_python_exe);
	tf_buf_addstr(out, " \"$@\"\n");
	tf_strvec_release(&emu);
}

/*
 * Write a CMake or Meson file. Its stamped text is the one without the
 * launcher: a launcher never changes what a step makes (launcher.h).
 */
static int write_gen(struct tf_plan *p, const char *path,
		     void (*gen)(const struct tf_plan *, struct tf_buf *),
		     struct tf_buf *text, int write)
{
	struct tf_launcher *l = p->launcher;

	tf_buf_reset(text);
	p->launcher = NULL;
	gen(p, text);
	p->launcher = l;
	tf_buf_addf(&p->toolfiles, "== %s\n", tf_path_basename(path));
	tf_buf_add(&p->toolfiles, text->buf, text->len);
	if (!write)
		return 0;
	if (l) {
		tf_buf_reset(text);
		gen(p, text);
	}
	tf_plan_write_later(p, path, text->buf, text->len, 0644);
	return 0;
}

static int write_one(struct tf_plan *p, const char *path, struct tf_buf *text,
		     unsigned mode, int write)
{
	tf_buf_addf(&p->toolfiles, "== %s\n", tf_path_basename(path));
	tf_buf_add(&p->toolfiles, text->buf, text->len);
	if (!write)
		return 0;
	tf_plan_write_later(p, path, text->buf, text->len, mode);
	return 0;
}

/*
 * A native target's files for its baseline runs: $TARGET_PYTHON and the
 * CMake toolchain under the baseline emulator. Not in p->toolfiles: only
 * baseline runs use them, and their $EMULATOR (in their stamps) is all
 * they are made from, so no other step's stamp changes.
 */
static int write_baseline(struct tf_plan *p, struct tf_buf *b)
{
	struct tf_strvec emu = TF_STRVEC_INIT;
	int ret;
	size_t i;

	split(p->baseline_emulator, &emu);
	tf_buf_reset(b);
	tf_buf_addf(
		b,
		"#!/bin/sh\n# CPython for target %s on its baseline CPU, written by tfbuild.\nexec",
		p->target.name);
	for (i = 0; i < emu.nr; i++) {
		tf_buf_addch(b, ' ');
		tf_run_quote_word(b, emu.v[i]);
	}
	tf_buf_addch(b, ' ');
	tf_run_quote_word(b, p->target_python);
	tf_buf_addstr(b, " \"$@\"\n");
	tf_plan_write_later(p, p->baseline_python, b->buf, b->len, 0755);
	ret = 0;
	tf_buf_reset(b);
	tf_buf_addf(b,
		    "# CMake toolchain file for target %s on its baseline CPU, "
		    "written by tfbuild.\ninclude(",
		    p->target.name);
	cmake_quote(b, p->cmake_toolchain);
	tf_buf_addstr(b, ")\n");
	{
		struct tf_buf list = TF_BUF_INIT;

		tf_strvec_join(&emu, ";", &list);
		cmake_set(b, "CMAKE_CROSSCOMPILING_EMULATOR", list.buf, NULL);
		tf_buf_release(&list);
	}
	if (!ret)
		tf_plan_write_later(p, p->baseline_cmake, b->buf, b->len, 0644);
	tf_strvec_release(&emu);
	return ret;
}

int tf_toolfiles_list(struct tf_plan *p, int write)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret = 0;

	if (!ret)
		ret = write_gen(p, p->cmake_toolchain, tf_toolfiles_cmake, &b,
				write);
	if (!ret)
		ret = write_gen(p, p->meson_file, tf_toolfiles_meson, &b,
				write);
	if (!ret) {
		tf_buf_reset(&b);
		pkg_config_script(p, &b);
		ret = write_one(p, p->pkg_config, &b, 0755, write);
	}
	if (!ret && !p->target.native) {
		tf_buf_reset(&b);
		python_script(p, &b);
		ret = write_one(p, p->target_python, &b, 0755, write);
	}
	if (!ret && p->target.macos)
		tf_macos_list(p, write);
	if (!ret && p->target.glibc_minor)
		tf_ziglinux_list(p, write);
	if (!ret && write && p->target.native && p->baseline_emulator)
		ret = write_baseline(p, &b);
	tf_buf_release(&b);
	return ret;
}

/* What quote() writes between its quotes: each byte in esc after a '\\'. */
static void escape_in(const char *s, const char *esc, struct tf_buf *out)
{
	for (; *s; s++) {
		if (strchr(esc, *s))
			tf_buf_addch(out, '\\');
		tf_buf_addch(out, *s);
	}
}

void tf_plan_path_spellings(const char *path, struct tf_strvec *out)
{
	struct tf_buf b = TF_BUF_INIT, e = TF_BUF_INIT;
	const char *s;

	tf_strvec_push(out, path);
	/* In $CFLAGS and ${meson_args}, and so in CMake's flags. */
	tf_toolfiles_sh_escape(path, &e);
	tf_strvec_push(out, e.buf);
	escape_in(e.buf, "\\\"$", &b);
	tf_strvec_push(out, b.buf);
	/* Inside cmake_quote, meson_quote and sh_quote. */
	tf_buf_reset(&b);
	escape_in(path, "\\\"$", &b);
	tf_strvec_push(out, b.buf);
	tf_buf_reset(&b);
	escape_in(path, "\\'", &b);
	tf_strvec_push(out, b.buf);
	tf_buf_reset(&b);
	for (s = path; *s; s++)
		if (*s == '\'')
			tf_buf_addstr(&b, "'\\''");
		else
			tf_buf_addch(&b, *s);
	tf_strvec_push(out, b.buf);
	tf_buf_release(&b);
	tf_buf_release(&e);
}
