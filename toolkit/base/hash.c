#include "hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"
#include "log.h"

struct tf_sha256 {
	EVP_MD_CTX *ctx; /* owned */
};

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/*
 * SHA-256 fetched once: EVP_sha256() makes every init fetch it again
 * under a global lock, which the packing threads would contend on.
 */
static const EVP_MD *sha256(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	if (!sha256_md)
		BUG("OpenSSL has no sha256 digest");
	return sha256_md;
}

struct tf_sha256 *tf_sha256_new(void)
{
	struct tf_sha256 *h = malloc(sizeof(*h));

	if (!h || !(h->ctx = EVP_MD_CTX_new()))
		tf_out_of_memory(sizeof(*h));
	if (EVP_DigestInit_ex(h->ctx, sha256(), NULL) != 1)
		BUG("OpenSSL cannot start a sha256 digest");
	return h;
}

void tf_sha256_update(struct tf_sha256 *h, const void *data, size_t n)
{
	if (EVP_DigestUpdate(h->ctx, data, n) != 1)
		BUG("EVP_DigestUpdate failed");
}

void tf_sha256_final(struct tf_sha256 *h, unsigned char out[TF_SHA256_LEN])
{
	unsigned int len = 0;

	if (EVP_DigestFinal_ex(h->ctx, out, &len) != 1 || len != TF_SHA256_LEN)
		BUG("EVP_DigestFinal_ex failed");
	tf_sha256_free(h);
}

void tf_sha256_buf(const void *data, size_t n, unsigned char out[TF_SHA256_LEN])
{
	unsigned int len = 0;

	if (EVP_Digest(data, n, out, &len, sha256(), NULL) != 1 ||
	    len != TF_SHA256_LEN)
		BUG("EVP_Digest failed");
}

void tf_sha256_free(struct tf_sha256 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

void tf_sha256_hex(const unsigned char md[TF_SHA256_LEN],
		   char hex[TF_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < TF_SHA256_LEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[TF_SHA256_HEX_LEN] = '\0';
}

void tf_sha256_b64(const unsigned char md[TF_SHA256_LEN], char out[44])
{
	unsigned char tmp[48];
	int n = EVP_EncodeBlock(tmp, md, TF_SHA256_LEN);
	int i, j = 0;

	for (i = 0; i < n && tmp[i] != '='; i++)
		out[j++] = tmp[i] == '+'   ? '-'
			   : tmp[i] == '/' ? '_'
					   : (char)tmp[i];
	out[j] = '\0';
}

void tf_base64_encode(const void *data, size_t n, struct tf_buf *out)
{
	const unsigned char *p = data;

	/* In slices, so an int length never overflows. */
	do {
		size_t m = n < 3 << 20 ? n : 3 << 20;
		unsigned char *dst;
		int len;

		if (tf_buf_grow(out, 4 * (m / 3 + 1) + 1))
			return;
		dst = (unsigned char *)out->buf + out->len;
		len = EVP_EncodeBlock(dst, p, (int)m);
		tf_buf_setlen(out, out->len + (size_t)len);
		p += m;
		n -= m;
	} while (n);
}

int tf_base64_decode(const char *s, size_t n, struct tf_buf *out)
{
	size_t i, pad = 0, start = out->len;

	if (n % 4)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '=' && n - i <= 2) {
			pad++;
			continue;
		}
		if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			     (c >= '0' && c <= '9') || c == '+' || c == '/'))
			return -1;
	}
	if (pad && s[n - 1] != '=')
		return -1;
	for (i = 0; i < n; i += 4 << 20) {
		size_t m = n - i < (size_t)4 << 20 ? n - i : (size_t)4 << 20;
		int len;

		if (tf_buf_grow(out, m / 4 * 3 + 1)) {
			tf_buf_setlen(out, start);
			return -1;
		}
		len = EVP_DecodeBlock((unsigned char *)out->buf + out->len,
				      (const unsigned char *)s + i, (int)m);
		if (len < 0) {
			tf_buf_setlen(out, start);
			return -1;
		}
		tf_buf_setlen(out, out->len + (size_t)len);
	}
	/* EVP_DecodeBlock counts the padding as zero bytes. */
	tf_buf_setlen(out, out->len - pad);
	return 0;
}

int tf_sha256_is_hex(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == TF_SHA256_HEX_LEN;
}

int tf_sha256_file(const char *path, unsigned char md[TF_SHA256_LEN],
		   long long *size)
{
	struct tf_sha256 *h;
	char chunk[65536];
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	h = tf_sha256_new();
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno("cannot read '%s'", path);
			tf_sha256_free(h);
			close(fd);
			return -1;
		}
		tf_sha256_update(h, chunk, (size_t)n);
		total += n;
	}
	close(fd);
	tf_sha256_final(h, md);
	if (size)
		*size = total;
	return 0;
}

struct tf_digest {
	EVP_MD_CTX *ctx; /* owned */
};

struct tf_digest *tf_digest_new(const char *name)
{
	const EVP_MD *md = !strcmp(name, "sha256")   ? EVP_sha256()
			   : !strcmp(name, "sha384") ? EVP_sha384()
			   : !strcmp(name, "sha512") ? EVP_sha512()
						     : NULL;
	struct tf_digest *h;

	if (!md)
		return NULL;
	h = malloc(sizeof(*h));
	if (!h || !(h->ctx = EVP_MD_CTX_new()))
		tf_out_of_memory(sizeof(*h));
	if (EVP_DigestInit_ex(h->ctx, md, NULL) != 1)
		BUG("OpenSSL cannot start a %s digest", name);
	return h;
}

void tf_digest_update(struct tf_digest *h, const void *data, size_t n)
{
	if (EVP_DigestUpdate(h->ctx, data, n) != 1)
		BUG("EVP_DigestUpdate failed");
}

void tf_digest_final_b64(struct tf_digest *h, char out[TF_DIGEST_B64_MAX])
{
	unsigned char md[EVP_MAX_MD_SIZE],
		tmp[4 * (EVP_MAX_MD_SIZE / 3 + 1) + 1];
	unsigned int len = 0;
	int n, i, j = 0;

	if (EVP_DigestFinal_ex(h->ctx, md, &len) != 1)
		BUG("EVP_DigestFinal_ex failed");
	tf_digest_free(h);
	n = EVP_EncodeBlock(tmp, md, (int)len);
	for (i = 0; i < n && tmp[i] != '=' && j < TF_DIGEST_B64_MAX - 1; i++)
		out[j++] = tmp[i] == '+'   ? '-'
			   : tmp[i] == '/' ? '_'
					   : (char)tmp[i];
	out[j] = '\0';
}

void tf_digest_free(struct tf_digest *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}
