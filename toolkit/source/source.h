#ifndef TF_SOURCE_H
#define TF_SOURCE_H

/*
 * source/: each source made ready to build: fetched or copied, extracted
 * with libarchive refusing anything that leaves the tree (extract.h),
 * patched with zero fuzz (patch.h), renamed into place (below).
 *
 * Each source's bytes (fetch/) become a prepared tree (extract.c or a
 * copy, then patch.c), atomically.
 */

#include <stddef.h>

struct tf_fetch_opts;
struct tf_plan;

/*
 * Fetch every remote source of plan p into the cache and record each
 * cached archive's path in the plan (the target's wheels from the
 * package index are provisioning's, provision.h). Returns 0 or -1
 * (reported).
 */
int tf_sources_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo);

/*
 * Work out what each source tree of plan p is made of: the archive's
 * sha256 (or, for a local directory, a digest of its files), the strip
 * level and each patch's contents. Sets each source's key; reads no
 * archive, so it works before fetching (for `tfbuild explain`).
 */
int tf_sources_stamp(struct tf_plan *p);
/*
 * As tf_sources_stamp, but a source read in place (plan/expand.c) is left
 * without a key: no step reads it, only the wheels, and on a first
 * build its digest is better taken after packing, from what the wheel
 * writer already read (digestcache.c), than by reading it all twice.
 */
int tf_sources_stamp_copies(struct tf_plan *p);
/* 1 if a source of p has no key yet (tf_sources_stamp_copies). */
int tf_sources_stamp_pending(const struct tf_plan *p);
/*
 * Set the keys tf_sources_stamp_copies left out. packed: wheels were
 * packed from those trees in this run, so a file that changed since the
 * writer read it is an error (tf_tree_digest_packed).
 */
int tf_sources_stamp_in_place(struct tf_plan *p, int packed);

/*
 * Prepare every source tree of plan p under <build>/<target>/src whose
 * key differs from the tree already there (all of them with force):
 * extract the archive (or copy the local directory) into a temporary
 * directory, apply the patch series in order, and only then rename it
 * into place. A failure leaves no tree behind, half-patched or otherwise.
 * Call tf_sources_stamp first.
 */
int tf_sources_prepare(struct tf_plan *p, int force);

/*
 * Prepare source k afresh unless that already happened in this run: a
 * step about to build inside it must not see an earlier build's files.
 */
int tf_source_refresh(struct tf_plan *p, size_t k);

#endif
