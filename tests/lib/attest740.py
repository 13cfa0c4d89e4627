"""attest740.py PUBKEY WHEEL...: judge each WHEEL.intoto.jsonl (tfbuild's
per-wheel attestation, docs/publishing.md) with the libraries PyPI and
in-toto use themselves, not with tfbuild's code: in-toto's DSSE envelope
verifies with the public key, found by the keyid securesystemslib
computes; sigstore's in-toto Statement model parses the payload, with one
subject equal to pypi-attestations' Distribution of the wheel (filename
and sha256) and an SLSA Provenance v1 predicate that sigstore's own model
takes (what `sigstore attest` checks before signing); pypi-attestations'
PEP 740 Envelope takes the statement and signature as they are, and its
Attestation refuses them without Sigstore's verification material
(certificate and transparency log entry), which only the Sigstore step
adds. Run with the tools venv's Python (make deps)."""
import copy, json, os, pathlib, sys

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from in_toto.models.metadata import Envelope as InTotoEnvelope
from pydantic import ValidationError
from pypi_attestations import Attestation, AttestationType, Distribution, Envelope
from securesystemslib.signer import SSlibKey
from sigstore.dsse import Statement
from sigstore.dsse._predicate import SLSAPredicateV1_0

pub = load_pem_public_key(open(sys.argv[1], "rb").read())
key = SSlibKey.from_crypto(pub)
for wheel in sys.argv[2:]:
    raw = open(wheel + ".intoto.jsonl", "rb").read()
    env = json.loads(raw)
    # in-toto's DSSE envelope, verified with the public key; the key is
    # found by the keyid securesystemslib computes itself.
    it = InTotoEnvelope.from_dict(copy.deepcopy(env))
    it.verify([key], 1)
    it.verify_signature(key.to_dict() | {"keyid": key.keyid})
    assert it.payload_type == "application/vnd.in-toto+json", it.payload_type
    # sigstore's in-toto Statement model (what pypi-attestations parses)
    st = Statement(it.payload)
    assert st._inner.predicate_type == AttestationType.SLSA_PROVENANCE_V1
    assert len(st._inner.subjects) == 1
    subj = st._inner.subjects[0]
    dist = Distribution.from_file(pathlib.Path(wheel))
    assert subj.name == dist.name == os.path.basename(wheel), subj.name
    assert subj.digest.root["sha256"] == dist.digest
    # the predicate as `sigstore attest --predicate-type .../provenance/v1` takes it
    SLSAPredicateV1_0.model_validate(json.loads(it.payload)["predicate"])
    # PEP 740's envelope model takes the statement and signature as they are
    e = Envelope(statement=env["payload"], signature=env["signatures"][0]["sig"])
    assert e.statement == it.payload
    # ...but an Attestation needs Sigstore's verification material
    try:
        Attestation.model_validate({"version": 1, "envelope": e.model_dump(mode="json")})
    except ValidationError as err:
        assert "verification_material" in str(err), err
    else:
        raise SystemExit("Attestation accepted without verification material")
    print("ok", os.path.basename(wheel))
