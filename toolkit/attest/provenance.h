#ifndef TF_ATTEST_PROVENANCE_H
#define TF_ATTEST_PROVENANCE_H

/*
 * Attestations of a run: SHA256SUMS (the wheels and their digests) and
 * an in-toto Statement v1 with a SLSA Provenance v1 predicate saying
 * what the wheels were built from. Both are deterministic: the same
 * run gives the same bytes.
 */

#include <stddef.h>

#include "base/base.h"

struct tf_plan;

/* A list of (file name, sha256 hex) pairs, as SHA256SUMS holds them. */
struct tf_sums {
	struct tf_strvec names;   /* owned: base names */
	struct tf_strvec digests; /* owned: 64 lowercase hex digits each */
};

#define TF_SUMS_INIT                           \
	{                                      \
		TF_STRVEC_INIT, TF_STRVEC_INIT \
	}

/* Digest each file; names keep only the base name. */
int tf_sums_of_files(const struct tf_strvec *paths, struct tf_sums *out);
/* Write "<hex>  <name>" lines sorted by name, atomically. */
int tf_sums_write(const char *path, const struct tf_sums *sums);
/* Read a SHA256SUMS file (sha256sum's format; "*" binary marks allowed). */
int tf_sums_read(const char *path, struct tf_sums *out);
/* The digest listed for name, or NULL. */
const char *tf_sums_find(const struct tf_sums *sums, const char *name);
void tf_sums_release(struct tf_sums *sums);

/* Write atomically unless path holds exactly these bytes (provenance.c). */
int tf_attest_write_unless_same(const char *path, const void *data, size_t len);

/* What the provenance records about the run besides the plans. */
struct tf_provenance_run {
	const struct tf_strvec *sets;  /* borrowed: --set NAME=VALUE */
	const struct tf_sums *wheels;  /* borrowed: the subjects */
	const struct tf_strvec *paths; /* borrowed: the wheels' paths, in the
					  same order; NULL: not read */
	int sandbox_off;               /* 1: steps ran without a sandbox */
};

/*
 * Write the provenance of a run that built plans[0..nr) into path,
 * atomically: subjects are the wheels with their sha256; resolved
 * dependencies are the recipe, every source (URL and pinned sha256, or
 * local directory and tree digest), every patch and every target's
 * toolchain identity, and the framework build each plugin wheel was
 * checked against (its .dist-info/tfbuild/framework.json); the build
 * definition records targets, variables set on the command line and
 * SOURCE_DATE_EPOCH.
 */
int tf_provenance_write(const char *path, struct tf_plan **plans, size_t nr,
			const struct tf_provenance_run *run);

/*
 * The predicate alone, as compact JSON text with sorted keys, for the
 * per-wheel statements (attest740.h): the same build definition, and
 * run details without the per-run byproducts. The caller frees it;
 * NULL after reporting.
 */
char *tf_provenance_predicate(struct tf_plan **plans, size_t nr,
			      const struct tf_provenance_run *run);

/*
 * Read the subjects of a provenance file into out. Reports a file that
 * is not JSON, not an in-toto Statement v1, or has malformed subjects.
 */
int tf_provenance_read_subjects(const char *path, struct tf_sums *out);

/*
 * Before a wheel of a run of plans (with --set sets) replaces the file
 * at dst: 0 unless a provenance beside dst (*.intoto.json) names dst's
 * bytes as its subject and records another build (another recipe, or
 * other target wheels: another framework release); then -1, with
 * both builds named. A file no provenance names may be replaced (a run
 * stopped between the wheels and their provenance).
 */
int tf_provenance_check_replace(const char *dst, struct tf_plan **plans,
				size_t nr, const struct tf_strvec *sets);

#endif
