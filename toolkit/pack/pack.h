#ifndef TF_PACK_H
#define TF_PACK_H

/*
 * pack/: stage trees to verified wheels in the output folder (below),
 * with what each wheel was packed from (packstamp.h), and SHA256SUMS and
 * the in-toto provenance beside them (attest.h), one signed statement per
 * wheel (attest740.h), and what a variant
 * wheel's label allows and writes (wheelvariant.h).
 */

/*
 * Pack: turn the wheels of built plans into .whl files. Collects each
 * wheel's files from step stages by its file rules, derives tags the
 * recipe left out, writes every wheel (wheel.c) into a temporary
 * directory, verifies each (verify.c), and only then moves them into the
 * output directory. A wheel whose bytes equal the one already there is
 * left alone, so an unchanged rebuild rewrites nothing.
 */

#include "attest.h"
#include "attest740.h"
#include "wheelvariant.h"

#include <stddef.h>

#include "base/base.h"
#include "plan/plan.h"

/*
 * Pack every wheel of every plan into out_dir. On success append each
 * wheel's path to `written` and return 0; on failure leave no wheel or
 * partial file in out_dir and return -1. The files in lists (may be
 * NULL) describe the wheels (SHA256SUMS, the provenance): they are
 * removed before a new wheel is moved in, for the caller to write again.
 * A wheel of the same name another build made (its provenance in
 * out_dir says so; sets: this run's --set) is never replaced: -1
 * before any wheel moves (tf_provenance_check_replace).
 */
int tf_pack_wheels(struct tf_plan **plans, size_t nr_plans, const char *out_dir,
		   const struct tf_strvec *lists, const struct tf_strvec *sets,
		   struct tf_strvec *written);

#endif
