/*
 * The allow-listed PATH of cross steps (hosttools.h). The directory is
 * rebuilt in a temporary directory and renamed into place, and only
 * when its listing changes.
 */
#include "hosttools.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "plan.h"
#include "env/env.h"
#include "recipe/recipe.h"

/* Build-machine programs any build may need; none of them compiles or
 * links target code. */
static const char *const allowed[] = {
	"[",        "awk",        "base64",   "basename",   "bash",
	"bison",    "bzip2",      "cat",      "chmod",      "cksum",
	"cmake",    "cmp",        "comm",     "cp",         "cpack",
	"ctest",    "cut",        "dash",     "date",       "dd",
	"diff",     "dirname",    "du",       "echo",       "egrep",
	"env",      "expr",       "false",    "fgrep",      "file",
	"find",     "flex",       "flock",    "gawk",       "getconf",
	"git",      "grep",       "gunzip",   "gzip",       "head",
	"hostname", "id",         "install",  "join",       "kill",
	"ln",       "ls",         "m4",       "make",       "mawk",
	"md5sum",   "meson",      "mkdir",    "mktemp",     "mv",
	"ninja",    "nproc",      "od",       "paste",      "patch",
	"perl",     "printf",     "ps",       "pwd",        "python3",
	"readlink", "realpath",   "rm",       "rmdir",      "sed",
	"seq",      "sh",         "sha1sum",  "sha256sum",  "sha512sum",
	"sleep",    "sort",       "split",    "stat",       "tail",
	"tar",      "tee",        "test",     "timeout",    "touch",
	"tr",       "true",       "uname",    "uniq",       "unxz",
	"unzip",    "wc",         "which",    "xargs",      "xz",
	"zcat",     "zstd",       "autoconf", "autoheader", "autom4te",
	"automake", "autoreconf", "aclocal",  "libtool",    "libtoolize",
	"gettext",  "msgfmt",     "xgettext", NULL,
};

/*
 * The build machine's compiler and binutils names, and what to use: the
 * target's tool for code that runs on the target, the build machine's
 * by its variable (HOSTCC, AR_FOR_BUILD, ...) for a tool the build
 * compiles and runs here (a code generator, OpenBLAS's getarch).
 */
static const struct {
	const char *name;  /* bare host name */
	const char *var;   /* the variable a cross step uses instead */
	const char *what;  /* what the host program is */
	const char *build; /* the build machine's own, by variable; NULL:
			      no such variable */
} guarded[] = {
	{ "gcc", "CC", "compiler", "HOSTCC" },
	{ "cc", "CC", "compiler", "HOSTCC" },
	{ "c89", "CC", "compiler", "HOSTCC" },
	{ "c99", "CC", "compiler", "HOSTCC" },
	{ "gcc-12", "CC", "compiler", "HOSTCC" },
	{ "cpp", "CC", "preprocessor", NULL },
	{ "g++", "CXX", "C++ compiler", "HOSTCXX" },
	{ "c++", "CXX", "C++ compiler", "HOSTCXX" },
	{ "g++-12", "CXX", "C++ compiler", "HOSTCXX" },
	{ "gfortran", "FC", "Fortran compiler", NULL },
	{ "f77", "FC", "Fortran compiler", NULL },
	{ "f95", "FC", "Fortran compiler", NULL },
	{ "gfortran-12", "FC", "Fortran compiler", NULL },
	{ "ld", "LD", "linker", NULL },
	{ "ld.bfd", "LD", "linker", NULL },
	{ "ld.gold", "LD", "linker", NULL },
	{ "as", "AS", "assembler", NULL },
	{ "ar", "AR", "archiver", "AR_FOR_BUILD" },
	{ "gcc-ar", "AR", "archiver", "AR_FOR_BUILD" },
	{ "ranlib", "RANLIB", "ranlib", "RANLIB_FOR_BUILD" },
	{ "gcc-ranlib", "RANLIB", "ranlib", "RANLIB_FOR_BUILD" },
	{ "strip", "STRIP", "strip", "STRIP_FOR_BUILD" },
	{ "nm", "NM", "nm", "NM_FOR_BUILD" },
	{ "gcc-nm", "NM", "nm", "NM_FOR_BUILD" },
	{ "objcopy", "OBJCOPY", "objcopy", NULL },
	{ "objdump", "OBJDUMP", "objdump", NULL },
	{ "readelf", "READELF", "readelf", NULL },
};

static const char *keep(struct tf_plan *p, char *s)
{
	tf_strvec_push_take(&p->store, s);
	return s;
}

void tf_hosttools_plan(struct tf_plan *p)
{
	p->host_tools = p->target.native
				? NULL
				: keep(p, tf_xstrfmt("%s/host-tools", p->dir));
}

static int listed(const struct tf_recipe *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_host_tools; i++)
		if (!strcmp(r->host_tools[i].s, name))
			return 1;
	return 0;
}

/* The value a guard names: the target's tool for var. */
static const char *tool_for(const struct tf_target *t, const char *var)
{
	return !strcmp(var, "CC")        ? t->cc
	       : !strcmp(var, "CXX")     ? t->cxx
	       : !strcmp(var, "FC")      ? t->fc
	       : !strcmp(var, "LD")      ? t->ld
	       : !strcmp(var, "AS")      ? t->as
	       : !strcmp(var, "AR")      ? t->ar
	       : !strcmp(var, "RANLIB")  ? t->ranlib
	       : !strcmp(var, "STRIP")   ? t->strip
	       : !strcmp(var, "NM")      ? t->nm
	       : !strcmp(var, "OBJCOPY") ? t->objcopy
	       : !strcmp(var, "OBJDUMP") ? t->objdump
					 : t->readelf;
}

static void guard_script(const struct tf_target *t, size_t i,
			 struct tf_buf *out)
{
	const char *tool = tool_for(t, guarded[i].var);

	tf_buf_addf(
		out,
		"#!/bin/sh\necho \"tfbuild: '%s' is the build machine's %s; ",
		guarded[i].name, guarded[i].what);
	if (tool && guarded[i].build)
		tf_buf_addf(out,
			    "in a cross step use \\$%s (%s) for code that runs "
			    "on the target, \\$%s for a tool the build runs on "
			    "this machine\" >&2\n",
			    guarded[i].var, tool, guarded[i].build);
	else if (tool)
		tf_buf_addf(out, "in a cross step use \\$%s (%s)\" >&2\n",
			    guarded[i].var, tool);
	else
		tf_buf_addf(
			out,
			"no %s for %s is installed, so \\$%s is unset (Debian's gfortran-%s)\" >&2\n",
			guarded[i].what, t->name, guarded[i].var, t->triplet);
	tf_buf_addstr(out, "exit 127\n");
}

/*
 * The listing: "NAME -> TARGET" for each symlink, "NAME: script" with
 * the script for each guard, sorted by the order below (fixed).
 */
static int listing(const struct tf_plan *p, struct tf_strvec *links,
		   struct tf_buf *text)
{
	const struct tf_recipe *r = p->recipe;
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf prefix = TF_BUF_INIT;
	const char *const *a;
	size_t i;
	int ret = 0;

	for (a = allowed; *a; a++) {
		char *path = tf_run_which(*a);

		if (path)
			tf_strvec_pushf(links, "%s=%s", *a, path);
		free(path);
	}
	for (i = 0; i < r->nr_host_tools; i++) {
		char *path = tf_run_which(r->host_tools[i].s);

		if (!path) {
			ret = tf_error_at(
				&r->host_tools[i].pos,
				"host tool '%s' is not installed on this machine",
				r->host_tools[i].s);
			continue;
		}
		tf_strvec_pushf(links, "%s=%s", r->host_tools[i].s, path);
		free(path);
	}
	/* The target's own tools: every TRIPLET-* program. */
	tf_buf_setf(&prefix, "%s-", p->target.triplet);
	if (tf_list_dir("/usr/bin", &names) == 0)
		for (i = 0; i < names.nr; i++)
			if (!strncmp(names.v[i], prefix.buf, prefix.len))
				tf_strvec_pushf(links, "%s=/usr/bin/%s",
						names.v[i], names.v[i]);
	if (*p->target.emulator) {
		char *prog = tf_strndup(p->target.emulator,
					strcspn(p->target.emulator, " "));
		char *path = tf_run_which(prog);

		if (path)
			tf_strvec_pushf(links, "%s=%s", tf_path_basename(prog),
					path);
		free(prog);
		free(path);
	}
	tf_strvec_pushf(links, "pkg-config=%s", p->pkg_config);
	for (i = 0; i < links->nr; i++)
		tf_buf_addf(text, "%s\n", links->v[i]);
	for (i = 0; i < sizeof(guarded) / sizeof(*guarded); i++)
		if (!listed(r, guarded[i].name)) {
			tf_buf_addf(text, "%s:\n", guarded[i].name);
			guard_script(&p->target, i, text);
		}
	tf_strvec_release(&names);
	tf_buf_release(&prefix);
	return ret;
}

int tf_hosttools_list(struct tf_plan *p)
{
	struct tf_buf script = TF_BUF_INIT;
	size_t i;
	int ret;

	if (!p->host_tools)
		return 0;
	ret = listing(p, &p->host_links, &p->host_manifest);
	for (i = 0; i < sizeof(guarded) / sizeof(*guarded); i++) {
		if (listed(p->recipe, guarded[i].name))
			continue;
		tf_buf_reset(&script);
		guard_script(&p->target, i, &script);
		tf_strvec_push(&p->host_guards, guarded[i].name);
		tf_strvec_push(&p->host_guards, script.buf);
	}
	tf_buf_release(&script);
	return ret;
}
