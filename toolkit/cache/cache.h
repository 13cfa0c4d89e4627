#ifndef TF_CACHE_H
#define TF_CACHE_H

/*
 * cache/: the build cache: finished steps' stage trees as deterministic
 * archives (archive.h) in a local content-addressed store (store.h), a
 * Bazel HTTP remote cache (remote.h) with Ed25519-signed action entries
 * (sign.h, acentry.h), and their settings (config.c).
 *
 * The local store is shared by every build tree of the machine; the
 * remote cache is optional. docs/cache.md says how it works and what it
 * trusts.
 *
 * Nothing here fails a build: a corrupt local entry, or a remote cache
 * that is down, slow, failing or lying, is reported with one warning
 * and the step builds; only verified bytes are used or kept.
 */

#include "gc.h"
#include "sign.h"
#include "store.h"

#include "base/base.h"

struct tf_cache;

struct tf_cache_opts {
	const char *dir;         /* borrowed: the cache directory */
	int store;               /* 1: look up and save in the local store */
	const char *remote;      /* borrowed: remote cache URL, or NULL */
	int upload;              /* 1: upload what is built to the remote */
	const char *trust;       /* borrowed: file of trusted public keys */
	const char *signing_key; /* borrowed: private key signing uploads */
	long timeout;            /* remote low-speed/connect limit, seconds */
};

/* Where a step's output came from. */
enum tf_cache_origin {
	TF_CACHE_NONE,   /* not looked up (up to date, or no cache) */
	TF_CACHE_BUILT,  /* the step ran */
	TF_CACHE_LOCAL,  /* restored from the local store */
	TF_CACHE_REMOTE, /* downloaded from the remote cache */
};

#define TF_CACHE_SIGNER_LEN 16

/* Default for tf_cache_opts.timeout. */
#define TF_CACHE_DEFAULT_TIMEOUT 30

/*
 * Fill o from the config file and the environment (docs/cache.md):
 * $TFBUILD_CONFIG, else $XDG_CONFIG_HOME/tfbuild/config, else
 * ~/.config/tfbuild/config, then TFBUILD_REMOTE_CACHE,
 * TFBUILD_REMOTE_CACHE_UPLOAD, TFBUILD_TRUST, TFBUILD_SIGNING_KEY,
 * TFBUILD_REMOTE_CACHE_TIMEOUT, TFBUILD_STORE. Strings it sets are
 * owned by keep. Returns 0, or -1 after reporting a bad line
 * (file:line) or value.
 */
int tf_cache_config(struct tf_cache_opts *o, struct tf_strvec *keep);

/*
 * Open the cache; *out is NULL when there is nothing to use (no store,
 * no remote). -1 after reporting a key file that cannot be used or an
 * upload without a signing key.
 */
int tf_cache_open(struct tf_cache **out, const struct tf_cache_opts *o);
void tf_cache_close(struct tf_cache *c);

/*
 * Restore the output of the step with key into the directory stage
 * (replacing it) from the local store, else from the remote cache.
 * Returns 1 with *origin (and signer, "" when unsigned) set, or 0 when
 * it must build. c may be NULL.
 */
int tf_cache_restore(struct tf_cache *c, const char *key, const char *stage,
		     enum tf_cache_origin *origin,
		     char signer[TF_CACHE_SIGNER_LEN + 1],
		     char tree[TF_SHA256_HEX_LEN + 1]);
/*
 * Save the stage tree (tf_tree_digest tree) that the step with key
 * built: locally and, with upload, remotely. A tree containing one of
 * the NULL-terminated strings forbid (this build's absolute paths) is
 * not relocatable and is not saved. c may be NULL.
 */
void tf_cache_save(struct tf_cache *c, const char *key, const char *stage,
		   const char *tree, const char *const *forbid);

/*
 * Copy text (len bytes) to out with each occurrence of from[i] replaced
 * by to[i], trying the longest match first at each place (NULL-ended
 * lists of equal length). Pure: keys that do not depend on where a
 * checkout, build tree or cache is.
 */
void tf_cache_relocate(const char *text, size_t len, const char *const *from,
		       const char *const *to, struct tf_buf *out);

#endif
