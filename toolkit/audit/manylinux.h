#ifndef TF_MANYLINUX_H
#define TF_MANYLINUX_H

/*
 * Platform tags and the published manylinux policies (PEP 600): pure
 * data and lookups, no I/O.
 *
 * The policy table is auditwheel's manylinux-policy.json (pypa/auditwheel,
 * src/auditwheel/policy/manylinux-policy.json, commits 2d1ad63 and
 * 86154d1), for x86_64 (manylinux_2_5 ... manylinux_2_41) and aarch64
 * (manylinux_2_17 ... manylinux_2_41): each policy's symbol versions (GLIBC, GLIBCXX,
 * CXXABI, GCC, LIBATOMIC, ZLIB) and library allow-list ("lib_whitelist").
 * Each policy there allows everything the one before it allows, so the
 * table stores, for every version and library, the first policy that
 * allows it.
 */

#include <stddef.h>

struct tf_buf;

enum tf_arch {
	TF_ARCH_NONE = 0,
	TF_ARCH_X86_64,
	TF_ARCH_AARCH64,
};

/* "x86_64" -> TF_ARCH_X86_64, "aarch64" -> TF_ARCH_AARCH64, else NONE. */
enum tf_arch tf_arch_from_name(const char *name);
/* "x86_64", "aarch64"; "any" for TF_ARCH_NONE. Static string. */
const char *tf_arch_name(enum tf_arch arch);
/* The dynamic loader's soname: "ld-linux-x86-64.so.2"; NULL for NONE. */
const char *tf_arch_loader(enum tf_arch arch);

enum tf_platform_kind {
	TF_PLATFORM_OTHER = 0, /* a tag tfbuild has no policy for: unchecked */
	TF_PLATFORM_ANY,       /* "any": no native code at all */
	TF_PLATFORM_LINUX,     /* linux_<arch>: built for this distribution */
	TF_PLATFORM_MANYLINUX, /* manylinux_2_X_<arch> or a legacy alias */
	TF_PLATFORM_MUSLLINUX, /* musllinux_1_X_<arch> (PEP 656): no glibc */
};

struct tf_platform {
	enum tf_platform_kind kind;
	enum tf_arch arch;    /* TF_ARCH_NONE for ANY and OTHER */
	unsigned glibc_minor; /* MANYLINUX: X in manylinux_2_X; 0: compute */
};

#define TF_PLATFORM_INIT                           \
	{                                          \
		TF_PLATFORM_OTHER, TF_ARCH_NONE, 0 \
	}

/*
 * Parse a wheel platform tag: "any", "linux_x86_64", "manylinux_2_17_x86_64",
 * the aliases manylinux1 (2_5), manylinux2010 (2_12) and manylinux2014
 * (2_17), or a compressed set of these joined by '.', which must agree on
 * the architecture (the set is held to its lowest manylinux glibc). Tags
 * for other systems or architectures ("win_amd64", "manylinux_2_17_i686")
 * give TF_PLATFORM_OTHER; "musllinux_1_X_<arch>" gives MUSLLINUX. Returns 0, or -1 with
 * the reason appended to why (nothing printed) for an empty tag or a set
 * that mixes architectures or "any" with a system.
 */
int tf_platform_parse(const char *tag, struct tf_platform *out,
		      struct tf_buf *why);
/* A platform that asks tf_elf_verify_wheel to compute the manylinux tag. */
void tf_platform_compute(struct tf_platform *p, enum tf_arch arch);

struct tf_manylinux_policy {
	enum tf_arch arch;
	unsigned glibc_minor; /* 17 for manylinux_2_17 */
	const char *alias;    /* "manylinux2014" or NULL; static string */
};

/* The published policy manylinux_2_<glibc_minor> for arch, or NULL. */
const struct tf_manylinux_policy *tf_manylinux_find(enum tf_arch arch,
						    unsigned glibc_minor);
/* The oldest and the newest published policy for arch (NULL for NONE). */
const struct tf_manylinux_policy *tf_manylinux_oldest(enum tf_arch arch);
const struct tf_manylinux_policy *tf_manylinux_newest(enum tf_arch arch);

/*
 * Append the policy's tag for its architecture to out, with the legacy
 * alias as a compressed set when there is one, as auditwheel writes it:
 * "manylinux_2_17_x86_64.manylinux2014_x86_64", "manylinux_2_34_aarch64".
 */
void tf_manylinux_tag(const struct tf_manylinux_policy *p, struct tf_buf *out);

/*
 * The glibc minor of the first policy for arch that allows the symbol
 * version `version` ("GLIBC_2.17", "GLIBCXX_3.4.19", "CXXABI_TM_1").
 * Returns 0 when the version's family (the part before the first '_')
 * is not one manylinux governs ("OPENSSL_3.0.0"), and -1 when it is but
 * no policy allows this version ("GLIBC_PRIVATE", "GLIBC_2.40").
 */
int tf_manylinux_version_since(enum tf_arch arch, const char *version);

/*
 * The newest numbered version of version's family that policy p allows
 * ("GLIBC_2.17" for "GLIBC_2.34" under manylinux_2_17 x86_64), for
 * messages; NULL if p allows none of that family.
 */
const char *tf_manylinux_family_max(const struct tf_manylinux_policy *p,
				    const char *version);

/*
 * The glibc minor of the first policy for arch whose allow-list holds
 * soname ("libc.so.6" -> 5 on x86_64, "libmvec.so.1" -> 24); 0 if none
 * does. The dynamic loader is not in the lists: see tf_arch_loader().
 */
int tf_manylinux_library_since(enum tf_arch arch, const char *soname);

/*
 * The lowest policy for arch that allows every version in
 * versions[0..n). *driver is set to the index of the version that
 * decides it (the first one needing the policy returned), or to n when
 * the oldest policy suffices for all. If some version has no policy,
 * returns NULL with *driver set to its index.
 */
const struct tf_manylinux_policy *tf_manylinux_lowest(
	enum tf_arch arch, const char *const *versions, size_t n,
	size_t *driver);

#endif
