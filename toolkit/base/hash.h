#ifndef TF_HASH_H
#define TF_HASH_H

/*
 * SHA-256, streamed. The only file that includes OpenSSL is hash.c; the
 * rest of tfbuild sees struct tf_sha256 as an opaque handle.
 */

#include <stddef.h>

#define TF_SHA256_LEN 32
#define TF_SHA256_HEX_LEN 64

struct tf_sha256;

/* Start a digest; never returns NULL (aborts on OOM). */
struct tf_sha256 *tf_sha256_new(void);
void tf_sha256_update(struct tf_sha256 *h, const void *data, size_t n);
/* Finish into out[32] and free h. */
void tf_sha256_final(struct tf_sha256 *h, unsigned char out[TF_SHA256_LEN]);
/* Free an unfinished digest; accepts NULL. */
void tf_sha256_free(struct tf_sha256 *h);
/* The digest of n bytes in memory, in one call (any thread). */
void tf_sha256_buf(const void *data, size_t n,
		   unsigned char out[TF_SHA256_LEN]);

/* Lowercase hex of a digest into hex[65] (NUL-terminated). */
void tf_sha256_hex(const unsigned char md[TF_SHA256_LEN],
		   char hex[TF_SHA256_HEX_LEN + 1]);
/* RECORD form: urlsafe base64 without padding, into out[44]. */
void tf_sha256_b64(const unsigned char md[TF_SHA256_LEN], char out[44]);
/*
 * Standard base64 (RFC 4648 section 4, with padding), as DSSE envelopes
 * carry payloads and signatures: n bytes appended to out; decoding
 * appends the bytes of s (n characters) to out, or returns -1 if s is
 * not base64 (its length not a multiple of 4, a character outside the
 * alphabet, padding inside).
 */
struct tf_buf;
void tf_base64_encode(const void *data, size_t n, struct tf_buf *out);
int tf_base64_decode(const char *s, size_t n, struct tf_buf *out);

/* 1 if s is exactly 64 lowercase hex digits, else 0. */
int tf_sha256_is_hex(const char *s);

/*
 * Digest a file by path, streaming it; the digest goes to md and, if
 * size is not NULL, the byte count to *size. Returns 0, or -1 after
 * reporting an error naming the path.
 */
int tf_sha256_file(const char *path, unsigned char md[TF_SHA256_LEN],
		   long long *size);

/*
 * A RECORD digest by name: "sha256", "sha384" or "sha512" (the wheel
 * spec allows sha256 or stronger). NULL if name is none of those.
 */
struct tf_digest;
#define TF_DIGEST_B64_MAX 90 /* sha512: 86 digits and a NUL, rounded up */
struct tf_digest *tf_digest_new(const char *name);
void tf_digest_update(struct tf_digest *h, const void *data, size_t n);
/* The digest in urlsafe base64 without padding, into out; frees h. */
void tf_digest_final_b64(struct tf_digest *h, char out[TF_DIGEST_B64_MAX]);
/* Free without finishing; safe on NULL. */
void tf_digest_free(struct tf_digest *h);

#endif
