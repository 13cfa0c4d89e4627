#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# tfbuild new pjrt-plugin (issue 29 item 5): the JAX PJRT plugin template
# builds, tests and packs as written, against the tensorflow (PJRT
# header) and jaxlib (window) wheels its recipe.lock.json pins:
#   - every target builds without a compiler warning, macos-arm64 too
#     (zig; its tests are skipped, no emulator runs macOS code); the
#     template's C test drives the plugin's C API on each Linux target
#     (aarch64 under qemu) and on each baseline CPU: the header's version, all 128 slots set, every stub naming itself,
#     float32 arrays there and back; a second run runs nothing;
#   - every wheel verifies and names its framework ABI (jaxlib 0.10.2,
#     PJRT C API 0.90), passes twine check --strict, requires exactly
#     jaxlib 0.10.2 and has the jax_plugins entry point; the library
#     exports GetPjrtApi only (on macOS, _GetPjrtApi and the Mach-O
#     linker's two) and the macOS one loads libSystem alone;
#   - the x86_64 wheel installs into a fresh venv beside jax 0.10.2 from
#     the index (pinned with hashes); jax lists the device, an array
#     round-trips, jit is the plugin's UNIMPLEMENTED error, and another
#     jaxlib makes the package register nothing, saying why.
# The target sites and downloads are the test cache's (tests/lib/jax.sh),
# shared with t2060: nothing is unpacked again. The run's times are
# printed (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"

twine=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}/twine
n=hello-pjrt m=hello_pjrt
build() {
	# zig's cache for macos-arm64: the suite's (tests/lib/macho.sh)
	mkdir -p "$jax_cache/downloads" &&
		ZIG_GLOBAL_CACHE_DIR=$TEST_CACHE/zig \
		"$TFBUILD" recipe --target all -j 2 --cache "$jax_cache/downloads" \
			--out out "$@" $n/recipe.yaml
}

start=$(date +%s)
expect_success 'every target builds; the C API test runs on each Linux one, and on each baseline CPU' '
	"$TFBUILD" -q new pjrt-plugin $n &&
	build 2>err &&
	grep -q "^tfbuild: 7 of 9 steps ran, 2 skipped$" err &&
	! grep "warning:" $n/build/recipe/*/logs/*.log &&
	for l in $n/build/recipe/x86_64/logs/api.log $n/build/recipe/x86_64/logs/api@baseline.log \
		$n/build/recipe/aarch64/logs/api.log $n/build/recipe/aarch64/logs/api@baseline.log; do
		grep -qx "ok PJRT C API 0.90" $l &&
		grep -qx "ok all 128 slots set, 76 of them unimplemented" $l &&
		grep -qx "ok platform $m: one device, its memory \"device\"" $l &&
		grep -qx "ok float32 arrays round trip, strided too" $l &&
		grep -qx "ok done" $l || { cat $l; exit 1; }
	done &&
	ls out/$m-0.1.0-py3-none-manylinux_*_x86_64.whl &&
	ls out/$m-0.1.0-py3-none-manylinux_*_aarch64.whl &&
	ls out/$m-0.1.0-py3-none-macosx_12_0_arm64.whl
'
echo "# the first build took $(($(date +%s) - start)) s"
whl=$(ls out/*_x86_64.whl 2>/dev/null)
awhl=$(ls out/*_aarch64.whl 2>/dev/null)
mwhl=$(ls out/*-macosx_12_0_arm64.whl 2>/dev/null)

start=$(date +%s)
expect_success 'a second run runs nothing' '
	build 2>err &&
	grep -q "^tfbuild: 0 of 9 steps ran, 7 up to date, 2 skipped$" err
'
echo "# the second run took $(($(date +%s) - start)) s"

expect_success 'every wheel verifies, names its framework ABI, passes twine check --strict' '
	"$TFBUILD" verify "$whl" "$awhl" "$mwhl" >out.txt 2>err &&
	printf "ok  %s\nok  %s\nok  %s\n" "$whl" "$awhl" "$mwhl" >want &&
	compare want out.txt &&
	! grep -q warning err &&
	for w in "$whl" "$awhl" "$mwhl"; do
		grep -qx "tfbuild: $w: built for jaxlib 0.10.2 (PJRT C API 0.90)" err || exit 1
	done &&
	"$twine" check --strict "$whl" "$awhl" "$mwhl" >tw || { cat tw; exit 1; }
'

expect_success 'each wheel: Requires-Dist jaxlib==0.10.2, the jax_plugins entry point, the library' '
	for w in "$whl" "$awhl" "$mwhl"; do
		unzip -p "$w" "*.dist-info/METADATA" | grep "^Requires-Dist:" >got &&
		printf "Requires-Dist: jaxlib==0.10.2\nRequires-Dist: jax==0.10.2\n" >want && compare want got &&
		unzip -p "$w" "*.dist-info/entry_points.txt" >ep &&
		printf "[jax_plugins]\n$m = $m\n\n" >want && compare want ep &&
		unzip -p "$w" $m/_build.py >b.py &&
		grep -qx "JAXLIB_WINDOW = (\"0.10\", \"0.11\")" b.py || exit 1
	done &&
	unzip -p "$whl" $m/lib$m.so >lib.so &&
	nm -D --defined-only lib.so | grep -v " [AUw] " | sed "s/.* //" >syms &&
	echo GetPjrtApi | compare - syms &&
	unzip -p "$mwhl" $m/lib$m.so >lib.dylib &&
	llvm-objdump-14 --macho --exports-trie lib.dylib |
		sed -n "s/^0x[0-9A-F]* *//p" | LC_ALL=C sort >syms &&
	printf "%s\n" _GetPjrtApi ___dso_handle __mh_dylib_header | LC_ALL=C sort >want &&
	compare want syms &&
	llvm-otool-14 -L lib.dylib | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >dylibs &&
	echo /usr/lib/libSystem.B.dylib | compare - dylibs
'

# jax 0.10.2 and its closure from the index pip is configured for, every
# file hash-pinned; the plugin from the wheel just built.
# --no-compile: byte-compiling the framework is half the install's CPU
# and nothing here reads it (tests/lib/tf.sh).
expect_success 'the x86_64 wheel installs into a fresh venv beside jax 0.10.2 from the index' '
	"$PYTHON" -m venv venv &&
	venv/bin/pip --disable-pip-version-check install -q --no-compile --require-hashes \
		-r "$jax_req/jax-0.10.2.txt" &&
	venv/bin/pip --disable-pip-version-check install -q --no-index --no-deps "$whl" &&
	venv/bin/pip --disable-pip-version-check check
'

expect_success 'jax lists the device; a float32 array round-trips; jit is refused by name' '
	(cd / && "$TRASH/venv/bin/python" -c "
import jax, numpy as np
d = jax.devices(\"$m\")
print(d, d[0].platform, d[0].device_kind, jax.default_backend())
x = np.arange(12, dtype=np.float32).reshape(3, 4)
y = jax.device_put(x, d[0])
print(y.devices() == {d[0]}, np.asarray(y).tobytes() == x.tobytes())
try:
    jax.jit(lambda v: v + 1)(y)
except Exception as e:
    print(str(e).splitlines()[0])
") >actual 2>err &&
	cat >expect <<-EOF &&
	[HELLO_PJRTDevice(id=0)] $m HELLO_PJRT cpu
	True True
	UNIMPLEMENTED: PJRT_Client_Compile: not implemented by the $m PJRT plugin
	EOF
	compare expect actual
'

expect_success 'outside its jaxlib window the package registers nothing, and says why' '
	(cd / && "$TRASH/venv/bin/python" -c "
import $m
print($m.window_problem(\"0.9.2\"))
print($m.window_problem(\"0.10.7\"))
") >actual &&
	cat >expect <<-EOF &&
	$m 0.1.0 was built for jaxlib 0.10.2 (PJRT C API 0.90; it loads into jaxlib >=0.10,<0.11), but the running jaxlib is 0.9.2: the $m platform is not registered
	None
	EOF
	compare expect actual
'

test_done
