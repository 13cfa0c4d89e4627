#ifndef TF_PACK_H
#define TF_PACK_H

/*
 * pack/: stage trees to verified wheels in the output folder, with what
 * each wheel was packed from (packstamp.c) and what a variant wheel's
 * label allows and writes (wheelvariant.h), the index's variants JSON
 * beside them.
 *
 * Turn the wheels of built plans into .whl files. Collects each
 * wheel's files from step stages by its file rules, derives tags the
 * recipe left out, writes every wheel (wheel.c) into a temporary
 * directory and verifies each (verify.c); only then are they moved
 * into the output directory, in a second call, so a later stage may
 * act between the two. A wheel whose bytes equal the one already there
 * is left alone, so an unchanged rebuild rewrites nothing.
 */

#include <stddef.h>

#include "base/base.h"

struct tf_plan;

struct packed;

/* The wheels of one run, packed and verified, not yet in out_dir. */
struct tf_pack_run {
	struct packed *w; /* owned */
	size_t nr;
	struct tf_buf tmp;      /* the temporary folder in out_dir, or empty */
	struct tf_plan **plans; /* borrowed */
	size_t nr_plans;
	const char *out_dir; /* borrowed */
	int changes;         /* 1: moving them in changes a wheel of out_dir */
};

#define TF_PACK_RUN_INIT                      \
	{                                     \
		.w = NULL, .tmp = TF_BUF_INIT \
	}

/*
 * Pack every wheel of every plan, for out_dir, into run: verified, in a
 * temporary folder of out_dir; run->changes says whether moving them in
 * would change what out_dir holds. 0, or -1 after reporting; either
 * way release run with tf_pack_run_release().
 */
int tf_pack_wheels(struct tf_plan **plans, size_t nr_plans, const char *out_dir,
		   struct tf_pack_run *run);

/*
 * Move run's wheels into its out_dir (an unchanged one stays as it is)
 * and append each one's path to written; then write the variants JSON
 * (tf_pack_variants_index) and append its paths to indexes. 0, or -1
 * after reporting: a failure leaves no partial file in out_dir.
 */
int tf_pack_commit(struct tf_pack_run *run, struct tf_strvec *written,
		   struct tf_strvec *indexes);

/*
 * The wheels of out_dir that moving run's in would replace (with other
 * bytes, or the same bytes of another build whose provenance would be
 * replaced), as paths into out: the attest stage asks whose they are.
 */
void tf_pack_replacing(const struct tf_pack_run *run, struct tf_strvec *out);

/* Remove run's temporary folder and free it. */
void tf_pack_run_release(struct tf_pack_run *run);

#endif
