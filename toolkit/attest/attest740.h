#ifndef TF_ATTEST740_H
#define TF_ATTEST740_H

/*
 * One attestation per wheel, in the shape PEP 740 asks of a file on an
 * index: an in-toto Statement v1 whose single subject is the wheel's
 * filename and sha256, with the run's SLSA Provenance v1 predicate
 * (provenance.h), in a DSSE envelope (payloadType application/vnd.in-toto+json,
 * signed over DSSE's pre-authentication encoding) signed with an Ed25519
 * key (cache/sign.h). Written beside the wheel as WHEEL.intoto.jsonl, a
 * one-line in-toto bundle; the same run gives the same bytes (Ed25519
 * signatures are deterministic). docs/publishing.md.
 */

#include <stddef.h>

#include "cache/cache.h"

struct tf_signer;
struct tf_trust;

#define TF_ATTEST_SUFFIX ".intoto.jsonl"
#define TF_DSSE_PAYLOAD_TYPE "application/vnd.in-toto+json"

/*
 * Write the signed statement for the wheel named name (its sha256 in
 * hex) into path, unless path holds these bytes already. predicate is
 * JSON text (tf_provenance_predicate()). -1 after reporting.
 */
int tf_attest_wheel_write(const char *path, const char *name,
			  const char *sha256_hex, const char *predicate,
			  const struct tf_signer *signer);

/*
 * Verify the envelope at path against the wheel at wheel: one of its
 * signatures verifies with a key of trust, its payload type is in-toto's,
 * its statement is an in-toto Statement v1 with predicate type SLSA
 * Provenance v1 and exactly one subject, the wheel's filename with the
 * wheel's sha256. 0 (the signer's key id in key_id), or -1 after
 * reporting "PATH: why".
 */
int tf_attest_wheel_verify(const char *path, const char *wheel,
			   const struct tf_trust *trust,
			   char key_id[TF_KEY_ID_LEN + 1]);

#endif
