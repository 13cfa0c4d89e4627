/*
 * Ed25519 signing and verification with libcrypto's EVP_PKEY_ED25519
 * (one-shot EVP_DigestSign/Verify: Ed25519 hashes internally).
 */
#include "sign.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/base.h"

#define RAW_LEN 32
#define SIG_LEN 64

struct tf_signer {
	EVP_PKEY *key; /* owned */
	char id[TF_KEY_ID_LEN + 1];
	char pub[2 * RAW_LEN + 1]; /* the raw public key in hex */
};

struct pubkey {
	EVP_PKEY *key; /* owned */
	char id[TF_KEY_ID_LEN + 1];
};

struct tf_trust {
	struct pubkey *keys; /* owned array */
	size_t nr;
};

static const char *ssl_why(void)
{
	static char b[256];
	unsigned long e = ERR_get_error();

	if (!e)
		return "not an Ed25519 key";
	ERR_error_string_n(e, b, sizeof(b));
	ERR_clear_error();
	return b;
}

static int key_id(EVP_PKEY *k, char id[TF_KEY_ID_LEN + 1])
{
	unsigned char raw[RAW_LEN], md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t n = sizeof(raw);
	struct tf_sha256 *h;

	if (EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 || n != RAW_LEN)
		return -1;
	h = tf_sha256_new();
	tf_sha256_update(h, raw, n);
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
	memcpy(id, hex, TF_KEY_ID_LEN);
	id[TF_KEY_ID_LEN] = '\0';
	return 0;
}

static void to_hex(const unsigned char *p, size_t n, char *out);

static int public_hex(EVP_PKEY *k, char hex[2 * RAW_LEN + 1])
{
	unsigned char raw[RAW_LEN];
	size_t n = sizeof(raw);

	if (EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 || n != RAW_LEN)
		return -1;
	to_hex(raw, n, hex);
	return 0;
}

struct tf_signer *tf_signer_load(const char *path)
{
	FILE *f = fopen(path, "r");
	struct tf_signer *s;
	EVP_PKEY *k;

	if (!f)
		return error_errno("cannot open the signing key '%s'", path),
		       NULL;
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!k || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
		error("%s: not an Ed25519 private key in PEM: %s", path,
		      ssl_why());
		EVP_PKEY_free(k);
		return NULL;
	}
	s = tf_calloc(1, sizeof(*s));
	s->key = k;
	if (key_id(k, s->id) || public_hex(k, s->pub)) {
		error("%s: cannot read its public key", path);
		tf_signer_free(s);
		return NULL;
	}
	return s;
}

void tf_signer_free(struct tf_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->key);
	free(s);
}

const char *tf_signer_id(const struct tf_signer *s)
{
	return s->id;
}

const char *tf_signer_public_hex(const struct tf_signer *s)
{
	return s->pub;
}

static void to_hex(const unsigned char *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Exactly 2n lowercase hex digits into p; -1 if not. */
static int from_hex(const char *s, unsigned char *p, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < 2 * n; i++) {
		char c = s[i];
		int v = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;

		if (v < 0)
			return -1;
		if (i % 2 == 0)
			p[i / 2] = (unsigned char)(v << 4);
		else
			p[i / 2] |= (unsigned char)v;
	}
	return 0;
}

int tf_signer_sign_raw(const struct tf_signer *s, const void *msg, size_t len,
		       unsigned char sig[TF_SIG_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n = SIG_LEN;
	int ok;

	ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, s->key) == 1 &&
	     EVP_DigestSign(ctx, sig, &n, msg, len) == 1 && n == SIG_LEN;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return error("cannot sign with key %s: %s", s->id, ssl_why());
	return 0;
}

int tf_signer_sign(const struct tf_signer *s, const void *msg, size_t len,
		   char sig[TF_SIG_HEX_LEN + 1])
{
	unsigned char raw[SIG_LEN];

	if (tf_signer_sign_raw(s, msg, len, raw))
		return -1;
	to_hex(raw, SIG_LEN, sig);
	return 0;
}

struct tf_trust *tf_trust_new(void)
{
	return tf_calloc(1, sizeof(struct tf_trust));
}

static void trust_add(struct tf_trust *t, EVP_PKEY *k)
{
	struct pubkey pk = { k, "" };
	size_t i;

	if (key_id(k, pk.id)) {
		EVP_PKEY_free(k);
		return;
	}
	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->keys[i].id, pk.id)) {
			EVP_PKEY_free(k);
			return;
		}
	t->keys = tf_realloc(t->keys, (t->nr + 1) * sizeof(*t->keys));
	t->keys[t->nr++] = pk;
}

void tf_trust_add_signer(struct tf_trust *t, const struct tf_signer *s)
{
	unsigned char raw[RAW_LEN];
	size_t n = sizeof(raw);
	EVP_PKEY *k;

	if (EVP_PKEY_get_raw_public_key(s->key, raw, &n) != 1)
		return;
	k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, n);
	if (k)
		trust_add(t, k);
}

/* PEM blocks of text, each "PUBLIC KEY"; returns how many were added. */
static int add_pem(struct tf_trust *t, const char *path, const char *text,
		   size_t len)
{
	BIO *b = BIO_new_mem_buf(text, (int)len);
	EVP_PKEY *k;
	int n = 0;

	while (b && (k = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL))) {
		if (EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
			EVP_PKEY_free(k);
			BIO_free(b);
			return error("%s: a public key that is not Ed25519",
				     path);
		}
		trust_add(t, k);
		n++;
	}
	ERR_clear_error();
	BIO_free(b);
	return n;
}

/* Lines of 64 hex digits; -1 on a line that is neither that nor PEM. */
static int add_hex_lines(struct tf_trust *t, const char *path, char *text)
{
	char *line, *save = NULL;
	int n = 0, lineno = 0, in_pem = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned char raw[RAW_LEN];
		char *p = line, *end;
		EVP_PKEY *k;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strcspn(p, " \t\r#");
		if (!strncmp(p, "-----BEGIN", 10) ||
		    !strncmp(p, "-----END", 8)) {
			in_pem = !strncmp(p, "-----BEGIN", 10);
			continue;
		}
		if (in_pem || p == end)
			continue;
		*end = '\0';
		if (from_hex(p, raw, RAW_LEN) ||
		    !(k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
						      raw, RAW_LEN)))
			return error("%s:%d: not a public key (64 hex digits "
				     "or a PEM block)",
				     path, lineno);
		trust_add(t, k);
		n++;
	}
	return n;
}

int tf_trust_add_file(struct tf_trust *t, const char *path)
{
	struct tf_buf text = TF_BUF_INIT;
	int n, m = 0;

	text.cap = 1 << 20;
	if (tf_read_file(path, &text))
		return -1;
	n = add_pem(t, path, text.buf, text.len);
	if (n >= 0)
		m = add_hex_lines(t, path, text.buf);
	tf_buf_release(&text);
	if (n < 0 || m < 0)
		return -1;
	if (!n && !m)
		return error("%s: no public key in it", path);
	return 0;
}

size_t tf_trust_count(const struct tf_trust *t)
{
	return t->nr;
}

int tf_trust_check(const struct tf_trust *t, const char *key_id,
		   const void *msg, size_t len, const char *sig,
		   struct tf_buf *why)
{
	unsigned char raw[SIG_LEN];
	EVP_MD_CTX *ctx;
	size_t i;
	int ok;

	for (i = 0; i < t->nr && strcmp(t->keys[i].id, key_id); i++)
		;
	if (i == t->nr)
		return tf_why(why, "signed by key %s, which is not trusted",
			      key_id);
	if (from_hex(sig, raw, SIG_LEN))
		return tf_why(why, "its signature is not 128 hex digits");
	ctx = EVP_MD_CTX_new();
	ok = ctx &&
	     EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, t->keys[i].key) == 1 &&
	     EVP_DigestVerify(ctx, raw, SIG_LEN, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	if (!ok)
		return tf_why(why, "its signature by key %s does not verify",
			      key_id);
	return 0;
}

int tf_trust_check_any(const struct tf_trust *t, const void *msg, size_t len,
		       const unsigned char *sig, size_t sig_len,
		       char key_id[TF_KEY_ID_LEN + 1], struct tf_buf *why)
{
	size_t i;

	if (sig_len != SIG_LEN)
		return tf_why(why,
			      "its signature is %zu bytes, not an Ed25519 "
			      "signature's %d",
			      sig_len, SIG_LEN);
	for (i = 0; i < t->nr; i++) {
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		int ok = ctx &&
			 EVP_DigestVerifyInit(ctx, NULL, NULL, NULL,
					      t->keys[i].key) == 1 &&
			 EVP_DigestVerify(ctx, sig, SIG_LEN, msg, len) == 1;

		EVP_MD_CTX_free(ctx);
		ERR_clear_error();
		if (ok) {
			memcpy(key_id, t->keys[i].id, TF_KEY_ID_LEN + 1);
			return 0;
		}
	}
	return tf_why(why,
		      "its signature verifies with none of the %zu "
		      "trusted keys",
		      t->nr);
}

void tf_trust_free(struct tf_trust *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++)
		EVP_PKEY_free(t->keys[i].key);
	free(t->keys);
	free(t);
}

static int write_pem(const char *path, EVP_PKEY *k, int private)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, private ? 0600 : 0644);
	FILE *f;
	int ok;

	if (fd < 0)
		return error_errno("cannot create '%s'", path);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return error_errno("cannot write '%s'", path);
	}
	ok = private ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL)
		     : PEM_write_PUBKEY(f, k);
	if (fclose(f) || !ok) {
		unlink(path);
		return error("cannot write '%s': %s", path, ssl_why());
	}
	return 0;
}

int tf_sign_keygen(const char *prefix, struct tf_buf *id)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	EVP_PKEY *k = NULL;
	char *key = tf_xstrfmt("%s.key", prefix),
	     *pub = tf_xstrfmt("%s.pub", prefix);
	char kid[TF_KEY_ID_LEN + 1];
	int ret = 0;

	if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 ||
	    EVP_PKEY_keygen(ctx, &k) != 1)
		ret = error("cannot generate an Ed25519 key: %s", ssl_why());
	if (!ret && tf_path_exists(pub))
		ret = error("'%s' exists; not overwriting it", pub);
	if (!ret)
		ret = write_pem(key, k, 1);
	if (!ret && write_pem(pub, k, 0)) {
		unlink(key);
		ret = -1;
	}
	if (!ret && !key_id(k, kid))
		tf_buf_addstr(id, kid);
	EVP_PKEY_free(k);
	EVP_PKEY_CTX_free(ctx);
	free(key);
	free(pub);
	return ret;
}
