#!/bin/sh
# Attestations PyPI could take (issue 27, point 3): with --attestation-key
# every wheel of m1-plugin gets WHEEL.intoto.jsonl, a DSSE envelope of one
# in-toto statement whose single subject is the wheel (filename, sha256),
# predicate SLSA Provenance v1, signed with Ed25519. Two builds give the
# same bytes; verify --attestation-trust accepts them and refuses a
# tampered wheel, a tampered statement, another key and a missing file;
# in-toto's and PyPI's own libraries (pypi-attestations, securesystemslib,
# sigstore's models) judge the envelopes too.
. "$(dirname "$0")/../lib/test-lib.sh"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
recipe="$SRC_ROOT/recipes/m1-plugin.yaml"
build() { # OUT BUILD-DIR [OPTION...]
	out=$1 b=$2; shift 2
	"$TFBUILD" -q recipe --target all -j 2 --cache cache --build-dir "$b" \
		--out "$out" --set mirror="file://$TRASH/mirror" "$@" "$recipe"
}
"$TFBUILD" cache keygen signer >/dev/null && "$TFBUILD" cache keygen other >/dev/null &&
	build out build --attestation-key signer.key || exit 1
plugin=tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl

expect_success 'each of the four wheels has its attestation beside it' '
	ls out/*.whl >wheels && test $(wc -l <wheels) = 4 &&
	for w in $(cat wheels); do test -s "$w.intoto.jsonl" || exit 1; done &&
	ls out/*.intoto.jsonl >atts && test $(wc -l <atts) = 4
'

expect_success 'an envelope holds one statement, one subject: the wheel, its sha256' '
	"$PYTHON" - "out/$plugin" <<-EOF
	import base64, hashlib, json, os, sys
	w = sys.argv[1]
	lines = open(w + ".intoto.jsonl", "rb").read().split(b"\n")
	assert lines[1:] == [b""], "not one line"
	env = json.loads(lines[0])
	assert sorted(env) == ["payload", "payloadType", "signatures"], sorted(env)
	assert env["payloadType"] == "application/vnd.in-toto+json"
	assert len(env["signatures"]) == 1 and len(base64.b64decode(env["signatures"][0]["sig"])) == 64
	st = json.loads(base64.b64decode(env["payload"]))
	assert st["_type"] == "https://in-toto.io/Statement/v1"
	assert st["predicateType"] == "https://slsa.dev/provenance/v1"
	digest = hashlib.sha256(open(w, "rb").read()).hexdigest()
	assert st["subject"] == [{"name": os.path.basename(w), "digest": {"sha256": digest}}], st["subject"]
	bd = st["predicate"]["buildDefinition"]
	deps = {d["name"]: d for d in bd["resolvedDependencies"]}
	assert deps["recipe"]["uri"] == "file:m1-plugin.yaml" and "sha256" in deps["recipe"]["digest"]
	assert deps["source:tfmini"]["digest"]["sha256"] == "e8b894b25c75337fcf78a1034430fa634328084f984154b624ceaeaccef0c9f3"
	assert "tfbuildTreeSha256" in deps["source:backend"]["annotations"], deps["source:backend"]
	assert bd["externalParameters"]["targets"] == ["x86_64", "aarch64"]
	assert bd["internalParameters"]["sourceDateEpoch"] == 1700000000
	rd = st["predicate"]["runDetails"]
	assert rd["builder"]["id"].startswith("https://tfbuild.dev/tfbuild@"), rd
	assert rd["builder"]["version"]["tfbuild"], rd
	EOF
'

expect_success 'verify --attestation-trust accepts every wheel' '
	"$TFBUILD" verify --sums out/SHA256SUMS --attestation-trust signer.pub >v.out &&
	test $(grep -c "^ok " v.out) = 4
'

expect_success 'a rebuild elsewhere, and a rebuild in place, give the same bytes' '
	rm -rf cache2 && build again build2 --attestation-key signer.key &&
	for a in out/*.intoto.jsonl; do cmp "$a" "again/${a#out/}" || exit 1; done &&
	ls -l --time-style=+%s.%N out/*.intoto.jsonl >before &&
	build out build --attestation-key signer.key &&
	ls -l --time-style=+%s.%N out/*.intoto.jsonl >after &&
	compare before after
'

expect_success 'TFBUILD_ATTESTATION_KEY names the key as the option does' '
	TFBUILD_ATTESTATION_KEY=signer.key build env build3 &&
	for a in out/*.intoto.jsonl; do cmp "$a" "env/${a#out/}" || exit 1; done
'

expect_success 'a tampered wheel fails: its sha256 is not the subject'"'"'s' '
	cp -r out t1 && printf x >>"t1/$plugin" &&
	expect_code 6 "$TFBUILD" verify --attestation-trust signer.pub "t1/$plugin" 2>err &&
	grep "^tfbuild: t1/$plugin.intoto.jsonl: its subject.s sha256 is [0-9a-f]*, the wheel.s [0-9a-f]*\$" err
'

expect_success 'a tampered statement fails: the signature no longer verifies' '
	cp -r out t2 &&
	"$PYTHON" - "t2/$plugin.intoto.jsonl" <<-EOF &&
	import base64, json, sys
	env = json.load(open(sys.argv[1]))
	st = json.loads(base64.b64decode(env["payload"]))
	st["predicate"]["buildDefinition"]["externalParameters"]["targets"] = ["x86_64"]
	env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
	open(sys.argv[1], "w").write(json.dumps(env) + "\n")
	EOF
	expect_code 6 "$TFBUILD" verify --attestation-trust signer.pub "t2/$plugin" 2>err &&
	grep "^tfbuild: t2/$plugin.intoto.jsonl: its signature verifies with none of the 1 trusted keys\$" err
'

expect_success 'another statement for another wheel does not pass for this one' '
	cp -r out t3 &&
	aarch=tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl &&
	cp "t3/$aarch.intoto.jsonl" "t3/$plugin.intoto.jsonl" &&
	expect_code 6 "$TFBUILD" verify --attestation-trust signer.pub "t3/$plugin" 2>err &&
	grep "its subject is .$aarch., not .$plugin.\$" err
'

expect_success 'a key that did not sign it, or no attestation, fails' '
	expect_code 6 "$TFBUILD" verify --attestation-trust other.pub "out/$plugin" 2>err &&
	grep "signature verifies with none of the 1 trusted keys" err &&
	cp -r out t4 && rm "t4/$plugin.intoto.jsonl" &&
	expect_code 6 "$TFBUILD" verify --attestation-trust signer.pub "t4/$plugin" 2>err &&
	grep "^tfbuild: t4/$plugin: no attestation beside it ($plugin.intoto.jsonl)\$" err
'

expect_success 'a key file that is not a key is refused before anything is built' '
	echo nonsense >bad.key &&
	expect_code 2 "$TFBUILD" recipe --out nothing --attestation-key bad.key "$recipe" 2>err &&
	grep "bad.key: not an Ed25519 private key" err && ! test -e nothing &&
	expect_code 2 "$TFBUILD" verify --attestation-trust bad.key "out/$plugin" 2>err &&
	grep "bad.key:1: not a public key" err
'

expect_success 'without a key, a changed wheel takes its stale attestation away' '
	pure_project &&
	"$TFBUILD" -q recipe --build-dir pb --out pout --attestation-key signer.key proj/r.yaml &&
	test -f pout/pure-1.0.0-py3-none-any.whl.intoto.jsonl &&
	"$TFBUILD" -q recipe --build-dir pb --out pout proj/r.yaml &&
	test -f pout/pure-1.0.0-py3-none-any.whl.intoto.jsonl &&
	echo "VALUE = 2" >proj/tree/pure/__init__.py &&
	"$TFBUILD" recipe --build-dir pb --out pout proj/r.yaml 2>err &&
	! test -e pout/pure-1.0.0-py3-none-any.whl.intoto.jsonl &&
	! grep "intoto.jsonl" err
'

T=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
if "$T/python" -c "import pypi_attestations, in_toto, securesystemslib, sigstore" 2>/dev/null; then
	expect_success 'in-toto, securesystemslib, sigstore and pypi-attestations agree' '
		"$T/python" "$TESTS_DIR/lib/attest740.py" signer.pub out/*.whl >py.out &&
		test $(grep -c "^ok " py.out) = 4
	'
	expect_success 'and in-toto refuses the tampered statement, and the other key' '
		! "$T/python" "$TESTS_DIR/lib/attest740.py" signer.pub "t2/$plugin" 2>err &&
		grep "VerificationError" err &&
		! "$T/python" "$TESTS_DIR/lib/attest740.py" other.pub "out/$plugin" 2>err &&
		grep "VerificationError" err
	'
else
	skip "pypi-attestations or in-toto missing in $T (make deps installs them)"
fi

test_done
