#ifndef TF_PEP440_H
#define TF_PEP440_H

/*
 * PEP 440 versions compared, and specifier sets as ranges of versions:
 * enough to say whether a Requires-Dist is within the window of
 * framework releases a plugin was built for (plugin/abi.c). Pure
 * functions, no I/O.
 *
 * A specifier set is judged as the smallest interval of versions that
 * holds every version it admits, pre-releases included (what
 * `pip install --pre` may pick): ">=V", ">V", "<=V", "<V", "==V",
 * "==V.*", "~=V" bound it, "!=" only narrows it and is left out (the
 * interval still holds all it admits). "===" and a prefix match of a
 * pre-, post- or dev-release cannot be judged: refused with why. "<V"
 * of a final release V admits none of V's pre-releases (PEP 440), so
 * its bound is V.dev0, the least version of V's release.
 */

#include <stddef.h>

struct tf_buf;

#define TF_VERSION_MAX_RELEASE 12

struct tf_version {
	unsigned long epoch;
	unsigned long release[TF_VERSION_MAX_RELEASE]; /* trailing zeros kept */
	size_t nr_release;
	int pre_kind;      /* 0 none, 1 a, 2 b, 3 rc */
	unsigned long pre; /* its number */
	long post;         /* -1: none */
	long dev;          /* -1: none */
	int local;         /* 1: had a local label (ignored in comparisons) */
};

/* Parse a PEP 440 version (any spelling). Returns 0, or -1 with why. */
int tf_version_parse(const char *s, struct tf_version *v, struct tf_buf *why);
/* <0, 0, >0: PEP 440's order; local labels are not compared. */
int tf_version_cmp(const struct tf_version *a, const struct tf_version *b);

/* An interval of versions; a missing bound is unbounded. */
struct tf_version_range {
	struct tf_version lo, hi;
	int has_lo, has_hi;
	int lo_open, hi_open; /* 1: the bound itself is excluded */
};

/*
 * The interval spec (">=2.21.0,<2.22") admits, into out. Returns 0, or
 * -1 with why when a specifier cannot be judged or is not valid.
 */
int tf_specifiers_range(const char *spec, struct tf_version_range *out,
			struct tf_buf *why);
/* 1 if every version of inner is in outer. */
int tf_version_range_within(const struct tf_version_range *inner,
			    const struct tf_version_range *outer);
/* 1 if v is in r. */
int tf_version_range_has(const struct tf_version_range *r,
			 const struct tf_version *v);

/*
 * Split a PEP 508 requirement "NAME[extras] SPEC ; MARKER" into its
 * name (PEP 503-normalized), its specifiers (parentheses removed; empty
 * when it has none) and its marker (empty when none). Returns 0, or -1
 * for a requirement by URL ("NAME @ URL"), whose versions cannot be
 * judged.
 */
int tf_requirement_split(const char *req, struct tf_buf *name,
			 struct tf_buf *spec, struct tf_buf *marker);

#endif
