#ifndef TF_TARGET_H
#define TF_TARGET_H

struct tf_buf;

/*
 * Targets and their toolchains: what compiler, flags and Python headers
 * a step gets for x86_64 or aarch64, from this x86_64 or aarch64 host.
 * Defaults match Debian's native and cross packages. macos-arm64 is
 * built by zig (docs/cross.md#macos), always a cross target.
 */

struct tf_target {
	const char *name;    /* "x86_64", "aarch64", "macos-arm64"; static */
	const char *triplet; /* "x86_64-linux-gnu"; static string */
	char *cc;            /* owned: C compiler command */
	char *ar, *strip;    /* owned */
	char *cxx;           /* owned: C++ compiler command */
	char *fc;            /* owned: Fortran compiler, NULL when none is
				 installed for the target */
	char *ranlib, *nm, *objcopy, *objdump, *readelf, *ld, *as; /* owned */
	char *hostcc;              /* owned: the build machine's C compiler, for
				 generators run during the build (full path,
				 with -B<dir>/ for a cross target) */
	char *hostcxx;             /* owned: the same for C++ */
	const char *debarch;       /* "amd64", "arm64"; static string */
	const char *build_triplet; /* the build machine's triplet; static */
	char *cflags;              /* owned: default CFLAGS */
	char *ldflags;             /* owned: default LDFLAGS */
	char *python;              /* owned: build Python */
	char *python_include; /* owned: target's Python include directory */
	char *pyconfig; /* owned: the target's pyconfig.h when it is not the
				 host's (cross builds), else NULL */
	char *sysroot;  /* owned: --sysroot value, or NULL */
	char *emulator; /* owned: runs target programs ("" when native) */
	char *emulator_prefix; /* owned: QEMU_LD_PREFIX for it, or "" */
	char *identity; /* owned: the compiler's path, machine and version
				 line, e.g. "/usr/bin/gcc x86_64-linux-gnu gcc
				 (Debian 12.2.0-14) 12.2.0"; "" unless checked */
	int native;     /* 1 if the target is the host's architecture */
	int macos;      /* 1 for macos-arm64: zig's launchers (plan/zigtools.c),
			   no emulator, no Debian packages */
	unsigned glibc_minor; /* X of toolchains.T.glibc "2.X": zig links
				 the Linux target against glibc 2.X's symbols
				 (plan/ziglinux.c); 0: the build machine's */
	char *zig;            /* owned: macos-arm64's zig, full path, or NULL:
			   $TFBUILD_ZIG, else make deps' (ci/zig.txt) in
			   ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/zig, else
			   zig in the steps' PATH */
};

#define TF_TARGET_INIT \
	{              \
		0      \
	}

/*
 * What a recipe's or a --toolchain file's `toolchains` entry changes in
 * a target's defaults; NULL fields keep them. Strings are borrowed.
 */
struct tf_toolchain {
	const char *cc, *ar, *strip, *cflags, *ldflags;
	const char *sysroot; /* passed as --sysroot; the emulator's -L */
	const char *python_include;
	const char *emulator; /* command that runs target programs */
	unsigned glibc_minor; /* toolchains.T.glibc's X, or 0 */
};

/* The host's target name ("x86_64", "aarch64"), or NULL if unsupported. */
const char *tf_target_host(void);
/* 1 if name is a known target. */
int tf_target_is_known(const char *name);
/* The values --target accepts: the known targets, then "all". */
const char *const *tf_target_choices(void);
/* Append the known targets to out as "x86_64, aarch64". */
void tf_target_list(struct tf_buf *out);
/*
 * Fill t with the default toolchain for target name. With check set,
 * also make sure its tools exist (naming the Debian package to install
 * if not) and ask Python for its include directory; without, tools are
 * named but not looked for (enough for fetching).
 */
int tf_target_setup(const char *name, struct tf_target *t, int check,
		    const struct tf_toolchain *over);
/*
 * Check that the target's emulator exists (for recipes with tests that
 * run target code), naming the package to install if not.
 */
int tf_target_need_emulator(const struct tf_target *t);
void tf_target_release(struct tf_target *t);

/* A compiler launcher (ccache, sccache, distcc): docs/distributed.md. */
struct tf_launcher_kind {
	const char *name;    /* as --launcher takes it */
	const char *prefix;  /* the caller's variables that reach steps */
	const char *install; /* what to do when it is missing */
};

/* The launcher called name, or NULL ("none" is none). */
const struct tf_launcher_kind *tf_launcher_kind(const char *name);
/* The valid --launcher values, NULL-terminated: the launchers, "none". */
const char *const *tf_launcher_choices(void);
/* 1 if name is a launcher or "none". */
int tf_launcher_is_known(const char *name);

#endif
