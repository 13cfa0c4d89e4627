#ifndef TF_COMPAT_H
#define TF_COMPAT_H

/*
 * Which wheels a target can install: its tags, most specific first, as
 * pip orders them (packaging.tags.sys_tags for a CPython), and the rank
 * of a wheel's filename among them. Pure functions, no I/O: the target
 * is described, not probed.
 */

#include <stddef.h>

struct tf_buf;
struct tf_strvec;

/* What a wheel must fit. */
struct tf_compat_target {
	const char *arch;     /* "x86_64", "aarch64" or "macos-arm64" */
	unsigned glibc_minor; /* X of the target's glibc 2.X (36: Debian 12) */
	unsigned macos_major; /* macos-arm64: its minimum macOS's major (12);
				 0 for Linux, whose glibc_minor counts */
	int py_major, py_minor; /* the target's CPython: 3, 11 */
};

/*
 * The platform tags the target accepts, most specific first:
 * manylinux_2_<glibc>_<arch> down to manylinux_2_17_<arch>, then
 * manylinux2014_<arch>, and for x86_64 manylinux_2_16.._2_12,
 * manylinux2010, manylinux_2_11.._2_5 and manylinux1; the legacy
 * aliases come right after the manylinux_2_X they stand for
 * (PEP 600). For macos-arm64, as packaging.tags.mac_platforms gives
 * them for Apple silicon: macosx_M_0_arm64 and macosx_M_0_universal2
 * from its minimum's major down to 11, then macosx_10_16_universal2 ..
 * macosx_10_4_universal2. "any" is not among them. Pushed onto out.
 */
void tf_compat_platforms(const struct tf_compat_target *t,
			 struct tf_strvec *out);
/* The ABI tags it accepts, best first: "cp311", "abi3", "none". */
void tf_compat_abis(const struct tf_compat_target *t, struct tf_strvec *out);

/*
 * Split a wheel filename NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl into
 * its parts (name and version as written, appended to name and
 * version; tags to tags as expanded "PY-ABI-PLATFORM" triples). Returns
 * 0, or -1 with why filled.
 */
int tf_compat_split(const char *filename, struct tf_buf *name,
		    struct tf_buf *version, struct tf_strvec *tags,
		    struct tf_buf *why);
/*
 * The rank of the wheel named filename for the target: the position in
 * tf_compat_tags of its best tag, 0 being the most specific; -1 with
 * why filled if none of its tags fits (or the name is not a wheel's).
 */
long tf_compat_rank(const struct tf_compat_target *t, const char *filename,
		    struct tf_buf *why);
/*
 * Of files[0..n), the index of the wheel pip would pick for the target
 * (the lowest rank; the first of equals), or -1 if none fits.
 */
long tf_compat_best(const struct tf_compat_target *t, const char *const *files,
		    size_t n);

#endif
