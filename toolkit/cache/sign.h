#ifndef TF_CACHE_SIGN_H
#define TF_CACHE_SIGN_H

/*
 * Ed25519 keys for action-cache entries, through libcrypto (the only
 * file of the cache that includes OpenSSL). A key id is the first 16 hex
 * digits of the SHA-256 of the raw 32-byte public key.
 */

#include <stddef.h>

struct tf_buf;

#define TF_KEY_ID_LEN 16
#define TF_SIG_HEX_LEN 128
#define TF_SIG_LEN 64 /* raw bytes */

struct tf_signer; /* a private key */
struct tf_trust;  /* a set of public keys */

/*
 * Load a private key: PEM (PKCS#8, as `openssl genpkey -algorithm
 * ed25519` writes it). NULL after reporting why, naming the file.
 */
struct tf_signer *tf_signer_load(const char *path);
void tf_signer_free(struct tf_signer *s);
/* The signer's key id (TF_KEY_ID_LEN hex digits and a NUL). */
const char *tf_signer_id(const struct tf_signer *s);
/* The raw 32-byte public key in hex (64 digits and a NUL). */
const char *tf_signer_public_hex(const struct tf_signer *s);
/* Sign msg; the raw signature into sig. */
int tf_signer_sign_raw(const struct tf_signer *s, const void *msg, size_t len,
		       unsigned char sig[TF_SIG_LEN]);
/* Sign msg; the signature in hex into sig (TF_SIG_HEX_LEN + 1). */
int tf_signer_sign(const struct tf_signer *s, const void *msg, size_t len,
		   char sig[TF_SIG_HEX_LEN + 1]);

/* An empty trust set; never NULL. */
struct tf_trust *tf_trust_new(void);
/*
 * Add the public keys of a file: PEM "PUBLIC KEY" blocks, and lines of
 * 64 hex digits (a raw public key); '#' starts a comment. -1 after
 * reporting (file:line) if it cannot be read or holds no key.
 */
int tf_trust_add_file(struct tf_trust *t, const char *path);
/* Trust the public half of a signer. */
void tf_trust_add_signer(struct tf_trust *t, const struct tf_signer *s);
size_t tf_trust_count(const struct tf_trust *t);
/*
 * 0 if sig (hex) is a valid signature of msg by the trusted key with
 * id key_id; -1 with the reason in why (no report) otherwise.
 */
int tf_trust_check(const struct tf_trust *t, const char *key_id,
		   const void *msg, size_t len, const char *sig,
		   struct tf_buf *why);
/*
 * 0 if sig (raw bytes) is a valid signature of msg by any trusted key,
 * whose id goes to key_id; -1 with the reason in why (no report). For
 * signatures whose key hint is not a tfbuild key id (DSSE's keyid).
 */
int tf_trust_check_any(const struct tf_trust *t, const void *msg, size_t len,
		       const unsigned char *sig, size_t sig_len,
		       char key_id[TF_KEY_ID_LEN + 1], struct tf_buf *why);
void tf_trust_free(struct tf_trust *t);

/*
 * Generate a keypair: PREFIX.key (PEM private key, mode 0600) and
 * PREFIX.pub (PEM public key). Refuses to overwrite. Prints the key id.
 */
int tf_sign_keygen(const char *prefix, struct tf_buf *key_id);

#endif
