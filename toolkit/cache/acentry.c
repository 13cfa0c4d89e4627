#include "acentry.h"
#include "sign.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC "tfbuild-action-cache 1\n"

int tf_ac_encode(struct tf_ac_entry *e, const struct tf_signer *s,
		 struct tf_buf *out)
{
	size_t start = out->len;

	tf_buf_addf(out, MAGIC "key %s\ncas %s\nsize %lld\ntree %s\n", e->key,
		    e->cas, e->size, e->tree);
	if (!s) {
		e->signer[0] = e->signature[0] = '\0';
		tf_buf_addstr(out, "signer -\nsignature -\n");
		return 0;
	}
	memcpy(e->signer, tf_signer_id(s), sizeof(e->signer));
	tf_buf_addf(out, "signer %s\n", e->signer);
	if (tf_signer_sign(s, out->buf + start, out->len - start, e->signature))
		return -1;
	tf_buf_addf(out, "signature %s\n", e->signature);
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}

/* The value of line "NAME VALUE" at *p, NUL-terminated in place. */
static char *field(char **p, const char *name)
{
	size_t n = strlen(name);
	char *nl, *v;

	if (strncmp(*p, name, n) || (*p)[n] != ' ')
		return NULL;
	v = *p + n + 1;
	nl = strchr(v, '\n');
	if (!nl)
		return NULL;
	*nl = '\0';
	*p = nl + 1;
	return v;
}

static int hex_field(char **p, const char *name, char *dst, size_t n)
{
	char *v = field(p, name);

	if (!v || !is_hex(v, n))
		return -1;
	memcpy(dst, v, n + 1);
	return 0;
}

int tf_ac_parse(const char *text, size_t len, struct tf_ac_entry *e,
		struct tf_buf *why)
{
	char *copy, *p, *v, *end;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	if (len > TF_AC_MAX || memchr(text, '\0', len))
		return tf_why(why, "not an action-cache entry of tfbuild");
	copy = tf_strndup(text, len);
	p = copy;
	if (strncmp(p, MAGIC, strlen(MAGIC))) {
		tf_why(why, "not an action-cache entry of tfbuild");
		goto out;
	}
	p += strlen(MAGIC);
	if (hex_field(&p, "key", e->key, TF_SHA256_HEX_LEN) ||
	    hex_field(&p, "cas", e->cas, TF_SHA256_HEX_LEN)) {
		tf_why(why, "its key or cas line is malformed");
		goto out;
	}
	v = field(&p, "size");
	if (!v || !*v || strlen(v) > 15 ||
	    (e->size = strtoll(v, &end, 10)) < 0 || *end ||
	    (*v == '0' && v[1])) {
		tf_why(why, "its size line is malformed");
		goto out;
	}
	if (hex_field(&p, "tree", e->tree, TF_SHA256_HEX_LEN)) {
		tf_why(why, "its tree line is malformed");
		goto out;
	}
	v = field(&p, "signer");
	if (v && !strcmp(v, "-")) {
		e->signed_len = (size_t)(p - copy);
		if (!(v = field(&p, "signature")) || strcmp(v, "-")) {
			tf_why(why, "its signature line is malformed");
			goto out;
		}
	} else if (v && is_hex(v, TF_KEY_ID_LEN)) {
		memcpy(e->signer, v, TF_KEY_ID_LEN + 1);
		e->signed_len = (size_t)(p - copy);
		if (hex_field(&p, "signature", e->signature, TF_SIG_HEX_LEN)) {
			tf_why(why, "its signature line is malformed");
			goto out;
		}
	} else {
		tf_why(why, "its signer line is malformed");
		goto out;
	}
	if ((size_t)(p - copy) != len) {
		tf_why(why, "it has bytes after its signature");
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

int tf_ac_verify(const char *text, size_t len, const char *key,
		 const struct tf_trust *t, struct tf_ac_entry *e,
		 struct tf_buf *why)
{
	if (tf_ac_parse(text, len, e, why))
		return -1;
	if (strcmp(e->key, key))
		return tf_why(why, "it is the entry of another key (%.12s...)",
			      e->key);
	if (!*e->signer)
		return tf_why(why, "it is not signed");
	return tf_trust_check(t, e->signer, text, e->signed_len, e->signature,
			      why);
}
