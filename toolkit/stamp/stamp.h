#ifndef TF_STAMP_H
#define TF_STAMP_H

/*
 * stamp/: what a step or a source tree was built from: named input
 * digests and tree digests (below), and the per-file digest cache that
 * lets a tree digest read only the files that changed (digestcache.h).
 *
 * A stamp lists named input digests (the step's script, environment,
 * toolchain, the sources it reads, the outputs of the steps it needs);
 * their combined key decides whether the step must run again, and the
 * named parts let `tfbuild explain` say which input changed.
 */

#include "digestcache.h"

#include "base/base.h"

struct tf_stamp {
	struct tf_strvec names; /* owned: input names, e.g. "source:backend" */
	struct tf_strvec digests; /* owned: hex digest of each input */
	char output[TF_SHA256_HEX_LEN +
		    1]; /* digest of what it produced, or "" */
};

#define TF_STAMP_INIT                              \
	{                                          \
		TF_STRVEC_INIT, TF_STRVEC_INIT, "" \
	}

/* Add an input whose digest is over the given bytes. */
void tf_stamp_add(struct tf_stamp *s, const char *name, const void *data,
		  size_t len);
/* Add an input whose hex digest is already known. */
void tf_stamp_add_hex(struct tf_stamp *s, const char *name, const char *hex);
/* The key: a digest over every (name, digest) pair, in order. */
void tf_stamp_key(const struct tf_stamp *s, char hex[TF_SHA256_HEX_LEN + 1]);
/*
 * Read a stamp written by tf_stamp_write. Returns 0, or 1 if there is
 * none or it cannot be parsed (a missing stamp is not an error).
 */
int tf_stamp_read(const char *path, struct tf_stamp *s);
/* Write atomically. */
int tf_stamp_write(const char *path, const struct tf_stamp *s);
/* 1 if both have the same inputs (and so the same key). */
int tf_stamp_same(const struct tf_stamp *a, const struct tf_stamp *b);
/*
 * Describe how `now` differs from `old`, e.g. "source 'backend' changed"
 * or "never built", appended to out.
 */
void tf_stamp_explain(const struct tf_stamp *old, const struct tf_stamp *now,
		      struct tf_buf *out);
void tf_stamp_release(struct tf_stamp *s);

/*
 * Digest a directory tree: each entry's relative path, type, exec bit,
 * and content or link target, in sorted order. Timestamps, owners and
 * the tree's own location do not count.
 */
int tf_tree_digest(const char *dir, char hex[TF_SHA256_HEX_LEN + 1]);
/*
 * The same, taken after a wheel was packed from the tree: a file the
 * wheel writer read (digestcache.c) must still be as it was then, or
 * the wheel may hold other bytes than the digest says: an error.
 */
int tf_tree_digest_packed(const char *dir, char hex[TF_SHA256_HEX_LEN + 1]);

#endif
