#ifndef TF_SOURCE_H
#define TF_SOURCE_H

/*
 * Sources: get each source's bytes (fetch.c) and turn them into a
 * prepared tree (extract.c or a copy, then patch.c), atomically.
 */

#include "fetch.h"
#include "plan.h"

/*
 * Fetch every remote source of plan p into the cache and record each
 * cached archive's path in the plan. Returns 0 or -1 (reported).
 */
int tf_sources_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo);

/*
 * Prepare every source tree of plan p under <build>/<target>/src: extract
 * the archive (or copy the local directory) into a temporary directory,
 * apply the patch series in order, and only then rename it into place.
 * A failure leaves no tree behind, half-patched or otherwise.
 */
int tf_sources_prepare(struct tf_plan *p);

#endif
