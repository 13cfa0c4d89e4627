#include "target.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/base.h"
#include "probe.h"

/* What each target needs; the Debian package names say what to install. */
static const struct {
	const char *name;      /* target name */
	const char *triplet;   /* GNU triplet, the cross tools' prefix */
	const char *cross_pkg; /* Debian package with the cross compiler */
	const char *ldflags;   /* default linker flags */
	const char *qemu;      /* user-mode emulator for its programs */
	const char *debarch;   /* Debian architecture name */
} targets[] = {
	{ "x86_64", "x86_64-linux-gnu", "gcc-x86-64-linux-gnu", "",
	  "qemu-x86_64", "amd64" },
	/* 64 KiB segments load on 4K, 16K (Apple M1) and 64K page kernels. */
	{ "aarch64", "aarch64-linux-gnu", "gcc-aarch64-linux-gnu",
	  "-Wl,-z,max-page-size=65536", "qemu-aarch64", "arm64" },
	/* Apple silicon, by zig: no emulator, no Debian architecture. */
	{ "macos-arm64", "aarch64-apple-darwin", NULL, "", "", "" },
};

#define MACOS_TARGET "macos-arm64"

static int is_macos(const char *name)
{
	return name && !strcmp(name, MACOS_TARGET);
}

/* The zig that builds for macOS (target.h: zig); NULL if none. */
static char *find_zig(void)
{
	const char *env = getenv("TFBUILD_ZIG"),
		   *tools = getenv("TFBUILD_TOOLS");
	char *pattern, *found = NULL;
	glob_t g;

	memset(&g, 0, sizeof(g));
	if (env && *env)
		return access(env, X_OK) == 0 ? tf_strdup(env) : NULL;
	pattern = tf_xstrfmt("%s/zig/lib/python3*/site-packages/ziglang/zig",
			     tools && *tools == '/' ? tools
						    : "/opt/tfbuild-tools");
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc &&
	    access(g.gl_pathv[0], X_OK) == 0)
		found = tf_strdup(g.gl_pathv[0]);
	free(pattern);
	globfree(&g);
	return found ? found : tf_run_which("zig");
}

const char *tf_target_host(void)
{
	struct utsname u;
	size_t i;

	if (uname(&u) < 0)
		return NULL;
	for (i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if (!strcmp(u.machine, targets[i].name))
			return targets[i].name;
	return NULL;
}

int tf_target_is_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if (!strcmp(name, targets[i].name))
			return 1;
	return 0;
}

#define NR_TARGETS (sizeof(targets) / sizeof(*targets))

const char *const *tf_target_choices(void)
{
	static const char *choices[NR_TARGETS + 2];
	size_t i;

	for (i = 0; i < NR_TARGETS; i++)
		choices[i] = targets[i].name;
	choices[i] = "all";
	return choices;
}

void tf_target_list(struct tf_buf *out)
{
	size_t i;

	for (i = 0; i < NR_TARGETS; i++)
		tf_buf_addf(out, "%s%s", i ? ", " : "", targets[i].name);
}

static int unknown_target(const char *name)
{
	struct tf_buf known = TF_BUF_INIT;

	tf_target_list(&known);
	error("unknown target '%s' (known: %s)", name, known.buf);
	tf_buf_release(&known);
	return -1;
}

/* Look a program up in the fixed PATH steps get; its full path or NULL. */
/* Ask the build Python where the target's headers are. */
static char *python_include(const char *python)
{
	return tf_probe_first_line((const char *const[]){
		python, "-c",
		"import sysconfig; print(sysconfig.get_path('include'))",
		NULL });
}

/* What identifies the compiler: its path, target machine and version. */
static char *compiler_identity(const char *cc)
{
	char *path = tf_run_which(cc);
	char *machine = tf_probe_first_line(
		(const char *const[]){ cc, "-dumpmachine", NULL });
	char *version = tf_probe_first_line(
		(const char *const[]){ cc, "--version", NULL });
	char *id = tf_xstrfmt("%s %s %s", path ? path : cc,
			      machine ? machine : "?", version ? version : "?");

	free(path);
	free(machine);
	free(version);
	return id;
}

static int in_path(const char *prog)
{
	char *p = tf_run_which(prog);

	free(p);
	return p != NULL;
}

/* Replace *field with the override's text when there is one. */
static void take(char **field, const char *over)
{
	if (!over)
		return;
	free(*field);
	*field = tf_strdup(over);
}

static void apply_overrides(struct tf_target *t, const struct tf_toolchain *o)
{
	if (!o)
		return;
	take(&t->cc, o->cc);
	take(&t->ar, o->ar);
	take(&t->strip, o->strip);
	take(&t->cflags, o->cflags);
	take(&t->ldflags, o->ldflags);
	take(&t->sysroot, o->sysroot);
	take(&t->emulator, o->emulator);
	if (o->sysroot) {
		char *c = tf_xstrfmt("%s --sysroot=%s", t->cflags, o->sysroot);
		char *l = tf_xstrfmt("%s --sysroot=%s", t->ldflags, o->sysroot);

		free(t->cflags);
		free(t->ldflags);
		t->cflags = c;
		t->ldflags = l;
		free(t->emulator_prefix);
		t->emulator_prefix = tf_strdup(o->sysroot);
	}
}

/*
 * Python headers for a cross target: the host's headers are shared, only
 * pyconfig.h differs, and Debian's multiarch libpython3-dev:ARCH puts the
 * target's in /usr/include/TRIPLET/python3.X.
 */
static int cross_pyconfig(struct tf_target *t, size_t i)
{
	char *ver = tf_probe_first_line((const char *const[]){
		t->python, "-c",
		"import sysconfig; print(sysconfig.get_python_version())",
		NULL });

	t->pyconfig = tf_xstrfmt("/usr/include/%s/python%s/pyconfig.h",
				 t->triplet, ver ? ver : "3");
	free(ver);
	if (access(t->pyconfig, R_OK) == 0)
		return 0;
	return error(
		"target '%s': no Python headers for it (%s); install Debian's libpython3-dev:%s (after 'dpkg --add-architecture %s')",
		t->name, t->pyconfig, targets[i].debarch, targets[i].debarch);
}

int tf_target_need_emulator(const struct tf_target *t)
{
	char *prog = tf_strndup(t->emulator, strcspn(t->emulator, " "));
	int ok = !*prog || in_path(prog);

	free(prog);
	if (ok)
		return 0;
	return error(
		"target '%s': emulator '%s' not found; install Debian's qemu-user",
		t->name, t->emulator);
}

/* The tool `name` for t: bare natively, triplet-prefixed for a cross target. */
static char *tool(const struct tf_target *t, const char *name)
{
	return t->native ? tf_strdup(name)
			 : tf_xstrfmt("%s-%s", t->triplet, name);
}

/*
 * The build machine's compiler, by full path. In a cross step PATH
 * holds only allow-listed tools, where `as` and `ld` are the guards:
 * -B makes the driver take its assembler and linker from its own
 * directory.
 */
static char *build_compiler(const struct tf_target *t, const char *name)
{
	char *path = tf_run_which(name), *cc;
	size_t dir;

	if (!path)
		return tf_strdup(name);
	if (t->native)
		return path;
	dir = (size_t)(strrchr(path, '/') - path);
	cc = tf_xstrfmt("%s -B%.*s/", path, (int)dir, path);
	free(path);
	return cc;
}

/* The build machine's GNU triplet. Static. */
static const char *build_triplet(void)
{
	const char *host = tf_target_host();
	size_t i;

	for (i = 0; host && i < NR_TARGETS; i++)
		if (!strcmp(host, targets[i].name))
			return targets[i].triplet;
	return "unknown-linux-gnu";
}

/* The rest of the tool set, beside CC, AR and STRIP (issue 14 item 4). */
static void set_binutils(struct tf_target *t)
{
	char *fc = tool(t, "gfortran"), *path = tf_run_which(fc);

	t->cxx = tool(t, "g++");
	t->fc = path ? fc : NULL;
	if (!path)
		free(fc);
	free(path);
	t->ranlib = tool(t, "ranlib");
	t->nm = tool(t, "nm");
	t->objcopy = tool(t, "objcopy");
	t->objdump = tool(t, "objdump");
	t->readelf = tool(t, "readelf");
	t->ld = tool(t, "ld");
	t->as = tool(t, "as");
	t->hostcc = build_compiler(t, "gcc");
	t->hostcxx = build_compiler(t, "g++");
	t->build_triplet = build_triplet();
}

/*
 * macos-arm64: zig builds it, through launchers plan/zigtools.c writes
 * and points cc, cxx, ar, ranlib and strip at; LLVM's tools read what
 * it makes. No emulator runs its code, no Debian package is for it.
 */
static int macos_setup(struct tf_target *t, int check,
		       const struct tf_toolchain *over)
{
	char *version;

	t->macos = 1;
	t->zig = find_zig();
	t->cc = tf_strdup("cc");
	t->cxx = tf_strdup("c++");
	t->ar = tf_strdup("ar");
	t->ranlib = tf_strdup("ranlib");
	t->strip = tf_strdup("strip");
	t->nm = tf_strdup("llvm-nm-14");
	t->objdump = tf_strdup("llvm-objdump-14");
	t->objcopy = tf_strdup("");
	t->readelf = tf_strdup("");
	t->ld = tf_strdup("");
	t->as = tf_strdup("");
	t->hostcc = build_compiler(t, "gcc");
	t->hostcxx = build_compiler(t, "g++");
	t->cflags = tf_strdup("-O2 -fPIC");
	t->ldflags = tf_strdup("");
	t->python = tf_strdup("python3");
	t->python_include = tf_strdup("");
	t->emulator = tf_strdup("");
	t->emulator_prefix = tf_strdup("");
	if (over) {
		take(&t->cflags, over->cflags);
		take(&t->ldflags, over->ldflags);
	}
	if (!check) {
		t->identity = tf_strdup("");
		return 0;
	}
	if (!t->zig)
		return error(
			"target '%s': zig not found ($TFBUILD_ZIG, ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/zig, the steps' PATH); install it with 'make deps' (ci/zig.txt) or name it in TFBUILD_ZIG",
			t->name);
	version = tf_probe_first_line(
		(const char *const[]){ t->zig, "version", NULL });
	t->identity = tf_xstrfmt("%s aarch64-macos zig %s", t->zig,
				 version ? version : "?");
	free(version);
	return 0;
}

/*
 * A Linux target linked against an older glibc by zig (toolchains.T.glibc):
 * plan/ziglinux.c points cc, cxx, ar and ranlib at launchers; the
 * target's binutils (strip, nm, readelf) read what zig makes.
 */
static int zig_glibc_setup(struct tf_target *t, int check)
{
	char *version;

	t->zig = find_zig();
	if (!check)
		return 0;
	if (!t->zig)
		return error(
			"target '%s': zig not found ($TFBUILD_ZIG, ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/zig, the steps' PATH), which its toolchain's 'glibc' needs; install it with 'make deps' (ci/zig.txt) or name it in TFBUILD_ZIG",
			t->name);
	version = tf_probe_first_line(
		(const char *const[]){ t->zig, "version", NULL });
	free(t->identity);
	t->identity = tf_xstrfmt("%s %s.2.%u zig %s", t->zig, t->triplet,
				 t->glibc_minor, version ? version : "?");
	free(version);
	return 0;
}

int tf_target_setup(const char *name, struct tf_target *t, int check,
		    const struct tf_toolchain *over)
{
	const char *host = tf_target_host();
	size_t i;

	for (i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if (!strcmp(name, targets[i].name))
			break;
	if (i == sizeof(targets) / sizeof(*targets))
		return unknown_target(name);
	t->name = targets[i].name;
	t->triplet = targets[i].triplet;
	t->debarch = targets[i].debarch;
	t->build_triplet = build_triplet();
	if (is_macos(name))
		return macos_setup(t, check, over);
	t->native = host && !strcmp(host, name);
	t->cc = t->native ? tf_strdup("gcc") : tf_xstrfmt("%s-gcc", t->triplet);
	t->ar = t->native ? tf_strdup("ar") : tf_xstrfmt("%s-ar", t->triplet);
	t->strip = t->native ? tf_strdup("strip")
			     : tf_xstrfmt("%s-strip", t->triplet);
	set_binutils(t);
	t->cflags = tf_strdup("-O2 -fPIC");
	t->ldflags = tf_strdup(targets[i].ldflags);
	t->python = tf_strdup("python3");
	t->emulator = tf_strdup(t->native ? "" : targets[i].qemu);
	t->emulator_prefix =
		t->native ? tf_strdup("") : tf_xstrfmt("/usr/%s", t->triplet);
	apply_overrides(t, over);
	t->glibc_minor = over ? over->glibc_minor : 0;
	if (!check) {
		t->python_include = tf_strdup("");
		t->identity = tf_strdup("");
		return t->glibc_minor ? zig_glibc_setup(t, 0) : 0;
	}
	if (!t->glibc_minor && !in_path(t->cc))
		return error(
			"target '%s': compiler '%s' not found; install Debian's %s",
			name, t->cc, t->native ? "gcc" : targets[i].cross_pkg);
	if (!in_path(t->python))
		return error(
			"target '%s': 'python3' not found; install Debian's python3",
			name);
	if (over && over->python_include)
		t->python_include = tf_strdup(over->python_include);
	else
		t->python_include = python_include(t->python);
	if (!t->python_include)
		return error(
			"target '%s': cannot ask python3 for its include directory",
			name);
	/* zig searches no /usr/include, where Debian's pyconfig.h finds
	 * the architecture's: a native target with a glibc is given it as
	 * a cross target is. */
	if ((!t->native || t->glibc_minor) && !(over && over->python_include) &&
	    cross_pyconfig(t, i))
		return -1;
	if (t->glibc_minor)
		return zig_glibc_setup(t, 1);
	t->identity = compiler_identity(t->cc);
	return 0;
}

void tf_target_release(struct tf_target *t)
{
	if (!t)
		return;
	free(t->cc);
	free(t->ar);
	free(t->strip);
	free(t->cxx);
	free(t->fc);
	free(t->ranlib);
	free(t->nm);
	free(t->objcopy);
	free(t->objdump);
	free(t->readelf);
	free(t->ld);
	free(t->as);
	free(t->hostcc);
	free(t->hostcxx);
	free(t->cflags);
	free(t->ldflags);
	free(t->python);
	free(t->python_include);
	free(t->pyconfig);
	free(t->sysroot);
	free(t->emulator);
	free(t->emulator_prefix);
	free(t->identity);
	free(t->zig);
	memset(t, 0, sizeof(*t));
}
