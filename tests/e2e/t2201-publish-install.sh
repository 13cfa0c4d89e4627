#!/bin/sh
# Publish, and install back, for real (issue 27, point 4): a pypiserver
# started here on 127.0.0.1 is the index. The publish stage of the
# release pipeline (ci/release.sh publish) uploads m1-plugin's wheels,
# built for both targets with their attestations, with twine; a wheel
# that fails tfbuild verify, or whose attestation does, is never
# uploaded; the same version again is refused, saying so, and the index
# keeps its files. Fresh environments then install tfmini_m1_plugin by
# name from that index alone, with pip and with uv, and get the wheel of
# their architecture: x86_64 natively, aarch64 for the arm64 CPython under
# qemu-aarch64; the smoke test passes on the m1 device.
. "$(dirname "$0")/../lib/test-lib.sh"

T=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
for tool in pypi-server twine uv; do
	if ! [ -x "$T/$tool" ]; then
		skip "no $tool in $T (make deps installs it)"
		test_done
		exit 0
	fi
done
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL UV_INDEX_URL \
	UV_EXTRA_INDEX_URL UV_FIND_LINKS TWINE_REPOSITORY TWINE_REPOSITORY_URL \
	TWINE_USERNAME TWINE_PASSWORD RELEASE_INDEX_URL RELEASE_ATTESTATION_TRUST
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null UV_NO_CONFIG=1 \
	UV_CACHE_DIR="$TRASH/uv-cache" TFBUILD_TOOLS="${T%/venv/bin}"
smoke="$SRC_ROOT/tests/smoke/tfmini_smoke.py"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null &&
	"$TFBUILD" cache keygen signer >/dev/null &&
	"$TFBUILD" -q recipe --target all -j 2 --cache cache --build-dir build \
		--out dist --set mirror="file://$TRASH/mirror" \
		--attestation-key signer.key "$SRC_ROOT/recipes/m1-plugin.yaml" || exit 1

# The index: no authentication, nothing from elsewhere (no fallback).
mkdir packages
pypi() {
	exec "$T/pypi-server" run -i 127.0.0.1 -p "$PORT" -a . -P . --disable-fallback packages
}
start_server pypi.log simple/ pypi || exit 1
port=$PORT
INDEX=http://127.0.0.1:$port/simple/
# twine's own settings name the index: what the publish stage follows.
export TWINE_REPOSITORY_URL=http://127.0.0.1:$port/ TWINE_USERNAME=ci TWINE_PASSWORD=ci
publish() { sh "$SRC_ROOT/ci/release.sh" publish "$@"; }
# listing FILE: the index's files and their sha256, by name.
listing() {
	(cd packages && find . -type f | LC_ALL=C sort | while read -r f; do
		sha256sum "$f" || exit 1
	done) >"$1"
}

expect_success 'a tampered wheel is never uploaded' '
	cp -r dist bad && printf x >>bad/tfmini-1.0.0+m1-cp38-abi3-manylinux_2_34_x86_64.whl &&
	! publish "$TRASH/bad" >out 2>err &&
	grep "sha256 [0-9a-f]* differs from [0-9a-f]* listed in" err &&
	grep "^release: not publishing: a wheel in .* fails tfbuild verify" err &&
	listing now && ! test -s now
'

expect_success 'nor one whose attestation is not signed by the trusted key' '
	"$TFBUILD" cache keygen other >/dev/null &&
	! RELEASE_ATTESTATION_TRUST="$TRASH/other.pub" publish "$TRASH/dist" >out 2>err &&
	grep "signature verifies with none of the 1 trusted keys" err &&
	listing now && ! test -s now
'

expect_success 'the publish stage uploads all four wheels, verified and attested' '
	RELEASE_ATTESTATION_TRUST="$TRASH/signer.pub" publish "$TRASH/dist" >out 2>err &&
	grep "^release: published 4 wheels\$" out &&
	(cd dist && for f in *.whl; do sha256sum "./$f" || exit 1; done) |
		LC_ALL=C sort -k 2 >want &&
	listing got && compare want got &&
	for t in x86_64 aarch64; do
		curl -sf "${INDEX}tfmini-m1-plugin/" >page &&
		grep -q "tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17_$t.manylinux2014_$t.whl#sha256=" page &&
		curl -sf "${INDEX}tfmini/" >page &&
		grep -q "tfmini-1.0.0+m1-cp38-abi3-manylinux_2_34_$t.whl#sha256=" page || exit 1
	done
'

expect_success 'the same version again is refused by the index, and said so' '
	listing before &&
	! publish "$TRASH/dist" >out 2>err &&
	grep "already exists" err &&
	grep "^release: the index already has tfmini[-_][^ ]*\.whl and refuses it again; nothing is overwritten: bump the version to publish\$" err &&
	listing after && compare before after
'

expect_success 'with RELEASE_INDEX_URL, before anything is uploaded' '
	! RELEASE_INDEX_URL=$INDEX publish "$TRASH/dist" >out 2>err &&
	grep "^release: not publishing: http://127.0.0.1:$port/simple already has tfmini[-_].*\\.whl; an index never takes the same file twice (bump the version)\$" err &&
	! grep "^Uploading" out
'

# installed DIR: the platform tag of each tfmini wheel installed in DIR.
installed() {
	cat "$1"/tfmini*.dist-info/WHEEL | sed -n "s/^Tag: //p" | sort -u
}

expect_success 'x86_64, pip: by name from that index alone; the smoke test passes' '
	"$PYTHON" -m venv vpip &&
	vpip/bin/pip install -q --index-url "$INDEX" tfmini_m1_plugin &&
	installed vpip/lib/python3*/site-packages >tags &&
	printf "%s\n" cp38-abi3-manylinux_2_34_x86_64 py3-none-manylinux2014_x86_64 \
		py3-none-manylinux_2_17_x86_64 >expect && compare expect tags &&
	vpip/bin/python "$smoke" --devices cpu:0,m1:0 --device m1 &&
	vpip/bin/python -c "import tfmini_m1_plugin, os; assert os.path.exists(tfmini_m1_plugin.library_path())"
'

expect_success 'x86_64, uv pip: the same, into another fresh environment' '
	"$PYTHON" -m venv vuv &&
	"$T/uv" pip install -q --python vuv/bin/python --index-url "$INDEX" tfmini_m1_plugin &&
	installed vuv/lib/python3*/site-packages >tags && compare expect tags &&
	vuv/bin/python "$smoke" --devices cpu:0,m1:0 --device m1
'

# The arm64 CPython: Debian's packages, unpacked (as t0901), kept across runs.
. "$TESTS_DIR/lib/arm64.sh"
arm64_sysroot || exit 1
sysroot=$arm64_root
printf "%s\n" cp38-abi3-manylinux_2_34_aarch64 py3-none-manylinux2014_aarch64 \
	py3-none-manylinux_2_17_aarch64 >expect-arm64

expect_success 'aarch64, pip: the aarch64 wheels, by name, for the arm64 CPython' '
	vpip/bin/pip install -q --index-url "$INDEX" --target site-pip \
		--platform manylinux_2_34_aarch64 --platform manylinux_2_17_aarch64 \
		--python-version 3.11 --implementation cp --only-binary=:all: \
		tfmini_m1_plugin &&
	installed site-pip >tags && compare expect-arm64 tags &&
	PYTHONPATH="$TRASH/site-pip" py_arm64 "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon
'

expect_success 'aarch64, uv pip: the same' '
	"$T/uv" pip install -q --python vuv/bin/python --index-url "$INDEX" \
		--target site-uv --python-platform aarch64-manylinux_2_34 \
		--python-version 3.11 tfmini_m1_plugin &&
	installed site-uv >tags && compare expect-arm64 tags &&
	PYTHONPATH="$TRASH/site-uv" py_arm64 "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon
'

test_done
