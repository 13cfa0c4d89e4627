#!/bin/sh
# recipes/spng.yaml, a real upstream library built with CMake against a
# target library (zlib, from target-packages for aarch64): from the
# release tarball that Debian's source package carries, served locally,
# it builds for both targets (its Python test runs on each); the wheels
# carry their zlib (vendored), verify, install and run on x86-64 and on
# aarch64 under qemu; the aarch64 CMake log names aarch64 tools only; a
# second run runs nothing; another checkout gives the same bytes.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/thirdparty.sh"

tp_serve spng || exit 1
tp_checkout one && tp_checkout other/checkout || exit 1

expect_success 'spng builds for x86_64 and aarch64, and its Python test passes on both' '
	tp_build one out1 spng 2>err >/dev/null || { cat err; exit 1; }
	grep -q "^tfbuild: building python for aarch64" err &&
	grep -q "^tfbuild: building python for x86_64" err &&
	grep -q "spng 0.7.3 aarch64 ok" one/build/*/aarch64/logs/python.log one/build/aarch64/logs/python.log 2>/dev/null
'

expect_success 'the aarch64 library links the target zlib, which the wheel carries' '
	w=$(tp_wheel out1 spng aarch64) && rm -rf x && mkdir x && (cd x && unzip -q "../$w") &&
	file -L x/spng/libspng.so | grep -q "ARM aarch64" &&
	z=$(ls x/spng.libs/libz-*.so*) && file -L "$z" | grep -q "ARM aarch64" &&
	readelf -d x/spng/libspng.so >d && grep -q "NEEDED.*\[$(basename "$z")\]" d &&
	grep -q "R.*PATH.*\[\$ORIGIN/../spng.libs\]" d
'

expect_success 'both wheels pass tfbuild verify, which names the vendored zlib' '
	"$TFBUILD" verify -v out1/*.whl >v 2>&1 && test "$(grep -c "^ok " v)" = 2 &&
	grep "spng.libs/libz-" v
'

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels out1/*.whl
'

expect_success 'the SBOM lists the vendored zlib with its Debian package' '
	for w in out1/*.whl; do
		a=amd64 && case $w in *aarch64*) a=arm64 ;; esac &&
		sbom_json "$w" >sbom.json &&
		grep -q "\"purl\": \"pkg:deb/debian/zlib1g@[^\"]*?arch=$a\"" sbom.json &&
		grep -q "\"value\": \"spng.libs/libz-" sbom.json || exit 1
	done
'

expect_success 'METADATA checks out with python3-packaging and license-expression' '
	tp_metadata_ok out1/*.whl
'

expect_success 'the wheels install and run on x86_64 and on aarch64 (qemu)' '
	tp_check_both out1 spng
'

expect_success 'the aarch64 CMake configure log names aarch64 tools only' '
	tp_aarch64_tools_only one lib
'

expect_success 'a second run with nothing changed runs no command' '
	tp_no_command_runs one out1 spng
'

expect_success 'a build from another checkout is byte-identical' '
	tp_build other/checkout out2 spng 2>err >/dev/null || { cat err; exit 1; }
	tp_same_bytes out1 out2
'

test_done
