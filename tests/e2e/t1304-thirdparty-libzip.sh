#!/bin/sh
# recipes/libzip.yaml, a real upstream library whose wheel must carry
# libraries outside the manylinux allow-list: libzip links zlib and libbz2
# dynamically, and the wheel vendors both into libzip.libs/ with hashed
# sonames and an $ORIGIN RUNPATH. tfbuild verify -v names them; the wheel
# loads in a fresh venv with the build machine's libbz2 hidden (a mount
# namespace puts /dev/null over it), and on aarch64 under qemu; a second
# run runs nothing; another checkout gives the same bytes.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/thirdparty.sh"

tp_serve libzip || exit 1
tp_checkout one && tp_checkout other/checkout || exit 1

expect_success 'libzip builds for x86_64 and aarch64, and its Python test passes on both' '
	tp_build one out1 libzip 2>err >/dev/null || { cat err; exit 1; }
	grep -q "^tfbuild: building python for aarch64" err &&
	grep -q "^tfbuild: building python for x86_64" err &&
	grep -q "libzip 1.7.3 aarch64 ok" one/build/*/aarch64/logs/python.log one/build/aarch64/logs/python.log 2>/dev/null
'

expect_success 'each wheel carries zlib and libbz2 for its architecture, found through RUNPATH' '
	for t in x86_64 aarch64; do
		w=$(tp_wheel out1 libzip $t) && rm -rf x && mkdir x && (cd x && unzip -q "../$w") &&
		readelf -d x/libzip/libzip.so.5 >d &&
		grep -q "R.*PATH.*\[\$ORIGIN/../libzip.libs\]" d &&
		for l in libz libbz2; do
			v=$(ls x/libzip.libs/$l-*.so*) && n=$(basename "$v") &&
			grep -q "NEEDED.*\[$n\]" d &&
			readelf -d "$v" | grep -q "SONAME.*\[$n\]" || { cat d; exit 1; }
		done &&
		! grep -q "NEEDED.*\[libz.so.1\]" d && ! grep -q "NEEDED.*\[libbz2.so.1.0\]" d &&
		case $t in aarch64) arch="ARM aarch64" ;; x86_64) arch="x86-64" ;; esac &&
		for f in x/libzip/libzip.so.5 x/libzip.libs/*; do
			file -L "$f" | grep -q "$arch" || { file -L "$f"; exit 1; }
		done
	done
'

expect_success 'tfbuild verify passes both and -v names the vendored sonames and RUNPATH' '
	"$TFBUILD" verify -v out1/*.whl >v 2>&1 && test "$(grep -c "^ok " v)" = 2 &&
	cat v &&
	grep -q "libzip.libs/libz-[0-9a-f]*\.so" v &&
	grep -q "libzip.libs/libbz2-[0-9a-f]*\.so" v &&
	grep -q "\$ORIGIN/../libzip.libs" v
'

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels out1/*.whl
'

expect_success 'the SBOM lists zlib and libbz2 with their Debian packages' '
	for w in out1/*.whl; do
		a=amd64 && case $w in *aarch64*) a=arm64 ;; esac &&
		sbom_json "$w" >sbom.json &&
		grep -q "\"purl\": \"pkg:deb/debian/zlib1g@[^\"]*?arch=$a\"" sbom.json &&
		grep -q "\"purl\": \"pkg:deb/debian/libbz2-1.0@[^\"]*?arch=$a\"" sbom.json || exit 1
	done
'

expect_success 'METADATA checks out with python3-packaging and license-expression' '
	tp_metadata_ok out1/*.whl
'

expect_success 'the wheels install and run on x86_64 and on aarch64 (qemu)' '
	tp_check_both out1 libzip
'

# In a private mount namespace, /dev/null over the build machine's libbz2:
# nothing can load it there, so whatever loads came from the wheel.
hidden() {
	bz=$(readlink -f /usr/lib/x86_64-linux-gnu/libbz2.so.1.0) &&
	unshare -m sh -c "mount --bind /dev/null \"$bz\" && exec \"\$@\"" sh "$@"
}
maps='import libzip, re; print("\n".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if re.search(r"/lib(z|bz2)[-.]", l)})))'

if unshare -m true 2>/dev/null; then
	expect_success 'with the build machine libbz2 hidden, the wheel still loads and works' '
		! hidden "$TRASH/venv-libzip/bin/python" -c "import ctypes; ctypes.CDLL(\"libbz2.so.1.0\")" 2>/dev/null &&
		(cd / && hidden "$TRASH/venv-libzip/bin/python" "$SRC_ROOT/recipes/thirdparty/libzip/check.py") &&
		(cd / && hidden "$TRASH/venv-libzip/bin/python" -c "$maps") >mapped &&
		cat mapped &&
		grep -q "/site-packages/libzip.libs/libbz2-[0-9a-f]*\.so" mapped &&
		grep -q "/site-packages/libzip.libs/libz-[0-9a-f]*\.so" mapped &&
		! grep -v "/site-packages/libzip.libs/" mapped | grep -q libbz2
	'
else
	skip "no mount namespace here (unshare -m needs root): cannot hide libbz2"
fi

expect_success 'the aarch64 CMake configure log names aarch64 tools only' '
	tp_aarch64_tools_only one lib
'

expect_success 'a second run with nothing changed runs no command' '
	tp_no_command_runs one out1 libzip
'

expect_success 'a build from another checkout is byte-identical' '
	tp_build other/checkout out2 libzip 2>err >/dev/null || { cat err; exit 1; }
	tp_same_bytes out1 out2
'

test_done
