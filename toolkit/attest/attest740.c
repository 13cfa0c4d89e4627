/*
 * PEP 740's shape of attestation: one single-subject statement per
 * wheel in a DSSE envelope (https://github.com/secure-systems-lab/dsse,
 * protocol.md and envelope.md). jansson writes and reads the JSON;
 * keys sorted, compact, so the bytes are stable.
 */
#include "attest740.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "provenance.h"
#include "base/base.h"
#include "cache/cache.h"

#define STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define PROVENANCE_TYPE "https://slsa.dev/provenance/v1"

/* DSSE's PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
static void pae(const char *type, const void *body, size_t n,
		struct tf_buf *out)
{
	tf_buf_addf(out, "DSSEv1 %zu %s %zu ", strlen(type), type, n);
	tf_buf_add(out, body, n);
}

/*
 * The key id securesystemslib and in-toto compute for an Ed25519 key:
 * the sha256 of its canonical JSON (sorted keys, no blanks), so their
 * verifiers find the key by the envelope's keyid without being told.
 */
static void sslib_keyid(const char *pub_hex, char out[TF_SHA256_HEX_LEN + 1])
{
	struct tf_buf canon = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];

	tf_buf_addf(&canon,
		    "{\"keytype\":\"ed25519\",\"keyval\":{\"public\":\"%s\"},"
		    "\"scheme\":\"ed25519\"}",
		    pub_hex);
	tf_sha256_buf(canon.buf, canon.len, md);
	tf_sha256_hex(md, out);
	tf_buf_release(&canon);
}

/*
 * A digest under a name no in-toto tool knows (tfbuildTreeSha256, for
 * a directory) moves into the descriptor's annotations: sigstore's
 * SLSA model accepts only standard algorithms in a digest set.
 */
static void standard_digests(json_t *deps)
{
	size_t i;
	json_t *d;

	json_array_foreach(deps, i, d)
	{
		json_t *dig = json_object_get(d, "digest"), *tree;

		tree = json_object_get(dig, "tfbuildTreeSha256");
		if (!tree)
			continue;
		if (!json_is_object(json_object_get(d, "annotations")))
			json_object_set_new(d, "annotations", json_object());
		json_object_set(json_object_get(d, "annotations"),
				"tfbuildTreeSha256", tree);
		json_object_del(dig, "tfbuildTreeSha256");
		if (!json_object_size(dig))
			json_object_del(d, "digest");
	}
}

/* The statement's bytes: one subject, the predicate given as text. */
static char *statement(const char *name, const char *hex, const char *predicate)
{
	json_error_t err;
	json_t *pred = json_loads(predicate, 0, &err), *doc;
	char *text;

	if (!pred)
		BUG("the provenance predicate is not JSON: %s", err.text);
	standard_digests(
		json_object_get(json_object_get(pred, "buildDefinition"),
				"resolvedDependencies"));
	doc = json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:o}", "_type",
			STATEMENT_TYPE, "subject", "name", name, "digest",
			"sha256", hex, "predicateType", PROVENANCE_TYPE,
			"predicate", pred);
	if (!doc)
		BUG("statement could not be built");
	text = json_dumps(doc,
			  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(doc);
	return text;
}

int tf_attest_wheel_write(const char *path, const char *name,
			  const char *sha256_hex, const char *predicate,
			  const struct tf_signer *signer)
{
	struct tf_buf msg = TF_BUF_INIT, b64 = TF_BUF_INIT, sig64 = TF_BUF_INIT;
	char keyid[TF_SHA256_HEX_LEN + 1];
	unsigned char raw[TF_SIG_LEN];
	char *body = statement(name, sha256_hex, predicate), *text = NULL;
	json_t *env;
	int ret = -1;

	if (!body) {
		error("cannot render the statement of '%s' as JSON", name);
		goto out;
	}
	pae(TF_DSSE_PAYLOAD_TYPE, body, strlen(body), &msg);
	if (tf_signer_sign_raw(signer, msg.buf, msg.len, raw))
		goto out;
	tf_base64_encode(body, strlen(body), &b64);
	tf_base64_encode(raw, sizeof(raw), &sig64);
	sslib_keyid(tf_signer_public_hex(signer), keyid);
	env = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payload", b64.buf,
			"payloadType", TF_DSSE_PAYLOAD_TYPE, "signatures",
			"keyid", keyid, "sig", sig64.buf);
	if (!env)
		BUG("envelope could not be built");
	text = json_dumps(env,
			  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(env);
	if (!text) {
		error("cannot render the envelope of '%s' as JSON", name);
		goto out;
	}
	tf_buf_setf(&msg, "%s\n", text);
	ret = tf_attest_write_unless_same(path, msg.buf, msg.len);
out:
	free(body);
	free(text);
	tf_buf_release(&msg);
	tf_buf_release(&b64);
	tf_buf_release(&sig64);
	return ret;
}

/* Some signature of env verifies with a key of trust; why if not. */
static int check_signatures(json_t *env, const char *type,
			    const struct tf_buf *body,
			    const struct tf_trust *trust,
			    char key_id[TF_KEY_ID_LEN + 1], struct tf_buf *why)
{
	struct tf_buf msg = TF_BUF_INIT, sig = TF_BUF_INIT, last = TF_BUF_INIT;
	json_t *sigs = json_object_get(env, "signatures"), *s;
	size_t i;
	int ret = -1;

	if (!json_is_array(sigs) || !json_array_size(sigs))
		return tf_why(why, "it has no signatures");
	pae(type, body->buf, body->len, &msg);
	json_array_foreach(sigs, i, s)
	{
		const char *b64 = json_string_value(json_object_get(s, "sig"));

		tf_buf_reset(&sig);
		tf_buf_reset(&last);
		if (!b64 || tf_base64_decode(b64, strlen(b64), &sig)) {
			tf_why(&last, "signature %zu is not base64", i);
			continue;
		}
		if (!tf_trust_check_any(trust, msg.buf, msg.len,
					(const unsigned char *)sig.buf, sig.len,
					key_id, &last)) {
			ret = 0;
			break;
		}
	}
	if (ret)
		tf_why(why, "%s", last.buf);
	tf_buf_release(&msg);
	tf_buf_release(&sig);
	tf_buf_release(&last);
	return ret;
}

/* The statement in body: its type, predicate type and one subject. */
static int check_statement(const struct tf_buf *body, const char *wheel,
			   struct tf_buf *why)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	json_t *st = json_loadb(body->buf, body->len, 0, NULL), *subjects;
	const char *type, *ptype, *name, *dig, *base = tf_path_basename(wheel);
	int ret = -1;

	type = json_string_value(json_object_get(st, "_type"));
	ptype = json_string_value(json_object_get(st, "predicateType"));
	subjects = json_object_get(st, "subject");
	name = json_string_value(
		json_object_get(json_array_get(subjects, 0), "name"));
	dig = json_string_value(json_object_get(
		json_object_get(json_array_get(subjects, 0), "digest"),
		"sha256"));
	if (!st)
		tf_why(why, "its payload is not JSON");
	else if (!type || strcmp(type, STATEMENT_TYPE))
		tf_why(why, "its payload is not an in-toto Statement v1");
	else if (!ptype || strcmp(ptype, PROVENANCE_TYPE))
		tf_why(why,
		       "its predicate type is '%s', not SLSA Provenance v1",
		       ptype ? ptype : "");
	else if (json_array_size(subjects) != 1)
		tf_why(why, "it has %zu subjects, not one",
		       json_array_size(subjects));
	else if (!name || strcmp(name, base))
		tf_why(why, "its subject is '%s', not '%s'", name ? name : "",
		       base);
	else if (tf_sha256_file(wheel, md, NULL))
		; /* reported */
	else if (tf_sha256_hex(md, hex), !dig || strcmp(dig, hex))
		tf_why(why, "its subject's sha256 is %s, the wheel's %s",
		       dig ? dig : "missing", hex);
	else
		ret = 0;
	json_decref(st);
	return ret;
}

int tf_attest_wheel_verify(const char *path, const char *wheel,
			   const struct tf_trust *trust,
			   char key_id[TF_KEY_ID_LEN + 1])
{
	struct tf_buf text = TF_BUF_INIT, body = TF_BUF_INIT, why = TF_BUF_INIT;
	json_t *env = NULL;
	const char *type, *payload;
	int ret = -1;

	text.cap = 16 << 20;
	if (tf_read_file(path, &text))
		goto out;
	env = json_loadb(text.buf, text.len, 0, NULL);
	type = json_string_value(json_object_get(env, "payloadType"));
	payload = json_string_value(json_object_get(env, "payload"));
	if (!env)
		tf_why(&why, "not a DSSE envelope (not JSON)");
	else if (!type || strcmp(type, TF_DSSE_PAYLOAD_TYPE))
		tf_why(&why, "its payload type is '%s', not '%s'",
		       type ? type : "", TF_DSSE_PAYLOAD_TYPE);
	else if (!payload || tf_base64_decode(payload, strlen(payload), &body))
		tf_why(&why, "its payload is not base64");
	else if (!check_signatures(env, type, &body, trust, key_id, &why))
		ret = check_statement(&body, wheel, &why);
	if (ret && why.len)
		error("%s: %s", path, why.buf);
out:
	json_decref(env);
	tf_buf_release(&text);
	tf_buf_release(&body);
	tf_buf_release(&why);
	return ret;
}
