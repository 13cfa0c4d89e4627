#ifndef TF_CACHE_ACENTRY_H
#define TF_CACHE_ACENTRY_H

/*
 * Action-cache entries: what a step key maps to. The same text is kept
 * in the local store (ac/) and on a remote cache (URL/ac/KEY):
 *
 *   tfbuild-action-cache 1
 *   key <sha256 hex: the step key>
 *   cas <sha256 hex: the stage archive>
 *   size <bytes of the stage archive>
 *   tree <sha256 hex: tf_tree_digest of the restored stage>
 *   signer <16 hex: key id, or "-" when unsigned>
 *   signature <128 hex: Ed25519 over every byte before this line, or "-">
 *
 * Lines in that order, each ending in "\n", nothing else (docs/cache.md).
 */

#include "base/base.h"
#include "sign.h"

struct tf_signer;
struct tf_trust;

#define TF_AC_MAX 1024 /* bytes an entry may have */

struct tf_ac_entry {
	char key[TF_SHA256_HEX_LEN + 1];
	char cas[TF_SHA256_HEX_LEN + 1];
	long long size;
	char tree[TF_SHA256_HEX_LEN + 1];
	char signer[TF_KEY_ID_LEN + 1];     /* "" when unsigned */
	char signature[TF_SIG_HEX_LEN + 1]; /* "" when unsigned */
	size_t signed_len; /* parsed: bytes of the text the signature covers */
};

/*
 * The text of e; signed by s when s is not NULL (then e->signer and
 * e->signature are set). Returns 0, or -1 if signing failed.
 */
int tf_ac_encode(struct tf_ac_entry *e, const struct tf_signer *s,
		 struct tf_buf *out);
/*
 * Parse text (len bytes, untrusted) into e. 0, or -1 with the reason
 * in why (no report).
 */
int tf_ac_parse(const char *text, size_t len, struct tf_ac_entry *e,
		struct tf_buf *why);
/*
 * Parse and check an entry read for key: it names that key and is
 * signed by a key in t. 0, or -1 with the reason in why.
 */
int tf_ac_verify(const char *text, size_t len, const char *key,
		 const struct tf_trust *t, struct tf_ac_entry *e,
		 struct tf_buf *why);

#endif
