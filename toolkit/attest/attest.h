#ifndef TF_ATTEST_H
#define TF_ATTEST_H

/*
 * attest/: what vouches for a run's wheels. The SBOM each wheel carries
 * (sbom.h, written by pack/ while the wheel is packed), and, beside the
 * wheels in the output folder, SHA256SUMS, the in-toto provenance of
 * the run (provenance.h) and one signed statement per wheel
 * (attest740.h). The stage below owns those files' names: it withdraws
 * them before a changed wheel moves in and writes them once the wheels
 * are in place.
 */

#include "attest740.h"
#include "provenance.h"
#include "sbom.h"

struct tf_plan;
struct tf_signer;

#include <stddef.h>

/* What the attestations of a run are made from; everything borrowed. */
struct tf_attest_in {
	struct tf_plan **plans;
	size_t nr_plans;
	const char *out_dir;
	const char *name;               /* the recipe's: NAME.intoto.json */
	const struct tf_strvec *sets;   /* --set NAME=VALUE */
	int sandbox_off;                /* 1: steps ran without a sandbox */
	const struct tf_signer *signer; /* NULL: no per-wheel statements */
};

/*
 * Remove the attestations in out_dir (SHA256SUMS, the provenance, every
 * WHEEL.intoto.jsonl) before the first changed wheel moves in: a run
 * stopped between two moves (SIGKILL) leaves no SHA256SUMS naming other
 * bytes than the wheels beside it; the run that finishes writes them
 * again. 0, or -1 after reporting.
 */
int tf_attest_withdraw(const struct tf_attest_in *in);

/*
 * Before the wheels at paths (in out_dir) are replaced by this run's: 0
 * unless one was made by another build, as the provenance beside it
 * records (another recipe, or other target wheels: another framework
 * release); then -1, with both builds named (tf_provenance_check_replace).
 */
int tf_attest_check_replace(const struct tf_attest_in *in,
			    const struct tf_strvec *paths);

/*
 * The attest stage, once wheels (this run's, in out_dir) and indexes
 * (the variants JSON beside them) are in place: warn about every other
 * entry of out_dir, then write SHA256SUMS of both, the provenance, and
 * with a signer WHEEL.intoto.jsonl beside each wheel; each written only
 * when its bytes change. 0, or -1 after reporting.
 */
int tf_attest_run(const struct tf_attest_in *in, const struct tf_strvec *wheels,
		  const struct tf_strvec *indexes);

#endif
