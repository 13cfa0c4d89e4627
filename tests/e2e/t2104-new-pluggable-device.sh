#!/bin/sh
# tier: expensive (TensorFlow; make test QUICK=1 skips it, CI runs it)
# tfbuild new pluggable-device (issue 29 item 5): the TensorFlow
# PluggableDevice template builds, tests and packs as written, against
# the tensorflow 2.21.0 wheels its recipe.lock.json pins. The project's
# name has a digit, so its device type is spelled out: HELLO_TF_TWO.
#   - every target builds without a compiler warning, macos-arm64 too
#     (zig, against TensorFlow's macOS wheel: its test is skipped, no
#     emulator runs macOS code); the template's C test runs on each
#     Linux target (aarch64 under qemu): TensorFlow's C API loads the
#     plugin, lists the device and runs Relu there; no baseline run
#     (TensorFlow itself needs AVX); a second run runs nothing;
#   - every wheel verifies and names its framework ABI (tensorflow
#     2.21.0, StreamExecutor C API), passes twine check --strict,
#     requires tensorflow<2.22,>=2.21.0, and its library exports
#     SE_InitPlugin and TF_InitKernel only (and the Mach-O linker's
#     two: libhello_tf2.dylib on macOS, the name TensorFlow loads there); the
#     macOS one loads TensorFlow's two dylibs through
#     @loader_path/../tensorflow, and verify warns of nothing;
#   - the x86_64 wheel installs into a fresh venv beside tensorflow
#     2.21.0 from the index (pinned with hashes): `import tensorflow`
#     finds tensorflow-plugins/, lists the device and runs Relu on it.
# The target sites and the pinned wheels are the test cache's (shared
# with t2060 and tests/lib/jax.sh): nothing is unpacked again. The run's
# times are printed (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"

twine=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}/twine
req=$SRC_ROOT/tests/requirements/tensorflow-2.21.0-x86_64.txt
n=hello-tf2 m=hello_tf2 dev=HELLO_TF_TWO
build() {
	# zig's cache for macos-arm64: the suite's (tests/lib/macho.sh)
	mkdir -p "$jax_cache/downloads" &&
		ZIG_GLOBAL_CACHE_DIR=$TEST_CACHE/zig \
		"$TFBUILD" recipe --target all -j 2 --cache "$jax_cache/downloads" \
			--out out "$@" $n/recipe.yaml
}

start=$(date +%s)
expect_success 'every target builds; TensorFlow'"'"'s C API runs the plugin on each Linux one' '
	"$TFBUILD" -q new pluggable-device $n &&
	grep -q "^#define HELLO_TF2_DEVICE \"$dev\"$" $n/src/$m.h &&
	build 2>err &&
	grep -q "^tfbuild: 5 of 6 steps ran, 1 skipped$" err &&
	grep -qx "tfbuild: test .device. for macos-arm64 skipped: no emulator runs macOS code on this machine" err &&
	! grep "warning:" $n/build/recipe/*/logs/*.log &&
	grep -q "test .device. for aarch64: baseline run skipped by the recipe (baseline: false)" err &&
	for a in x86_64 aarch64; do
		l=$n/build/recipe/$a/logs/device.log &&
		grep -qx "tensorflow 2.21.0" $l &&
		grep -qx "ok loaded" $l &&
		grep -qx "ok listed $dev" $l &&
		grep -qx "ran on /job:localhost/replica:0/task:0/device:$dev:0" $l &&
		grep -qx "ok relu on $dev" $l &&
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
	grep -q "^tfbuild: 0 of 6 steps ran, 5 up to date, 1 skipped$" err
'
echo "# the second run took $(($(date +%s) - start)) s"

expect_success 'every wheel verifies, names its framework ABI, passes twine check --strict' '
	"$TFBUILD" verify "$whl" "$awhl" "$mwhl" >out.txt 2>err &&
	printf "ok  %s\nok  %s\nok  %s\n" "$whl" "$awhl" "$mwhl" >want &&
	compare want out.txt &&
	! grep -q warning err &&
	for w in "$whl" "$awhl" "$mwhl"; do
		grep -qx "tfbuild: $w: built for tensorflow 2.21.0 (StreamExecutor C API 0.0.1)" err || exit 1
	done &&
	"$twine" check --strict "$whl" "$awhl" "$mwhl" >tw || { cat tw; exit 1; }
'

expect_success 'each wheel requires its TensorFlow series; the library exports the entry points only' '
	for w in "$whl" "$awhl"; do
		unzip -p "$w" "*.dist-info/METADATA" | grep "^Requires-Dist:" >got &&
		echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >want &&
		compare want got &&
		unzip -p "$w" tensorflow-plugins/lib$m.so >lib.so &&
		nm -D --defined-only lib.so | grep -v " [AUw] " | sed "s/.* //" | sort >syms &&
		printf "%s\n" SE_InitPlugin TF_InitKernel >want &&
		compare want syms || exit 1
	done &&
	unzip -p "$mwhl" "*.dist-info/METADATA" | grep "^Requires-Dist:" >got &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" | compare - got &&
	unzip -p "$mwhl" tensorflow-plugins/lib$m.dylib >lib.dylib &&
	llvm-objdump-14 --macho --exports-trie lib.dylib |
		sed -n "s/^0x[0-9A-F]* *//p" | LC_ALL=C sort >syms &&
	printf "%s\n" _SE_InitPlugin _TF_InitKernel ___dso_handle __mh_dylib_header |
		LC_ALL=C sort >want &&
	compare want syms &&
	llvm-otool-14 -L lib.dylib | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >dylibs &&
	printf "%s\n" /usr/lib/libSystem.B.dylib @rpath/libtensorflow_cc.2.dylib \
		@rpath/libtensorflow_framework.2.dylib >want &&
	compare want dylibs &&
	llvm-otool-14 -l lib.dylib | sed -n "/cmd LC_RPATH/{n;n;s/^ *path \(.*\) (offset .*/\1/p;}" >rpaths &&
	echo @loader_path/../tensorflow | compare - rpaths
'

# tensorflow 2.21.0 and its closure from the index pip is configured
# for, every file hash-pinned; the plugin from the wheel just built.
# --no-compile: byte-compiling the framework is half the install's CPU
# and nothing here reads it (tests/lib/tf.sh).
expect_success 'the x86_64 wheel installs into a fresh venv beside tensorflow 2.21.0 from the index' '
	/usr/bin/python3 -m venv venv &&
	venv/bin/pip --disable-pip-version-check install -q --no-compile --require-hashes -r "$req" &&
	venv/bin/pip --disable-pip-version-check install -q --no-index --no-deps "$whl" &&
	venv/bin/pip --disable-pip-version-check check &&
	test -f venv/lib/python3.11/site-packages/tensorflow-plugins/lib$m.so
'

expect_success 'import tensorflow loads it: the device is listed and Relu runs on it' '
	(cd / && "$TRASH/venv/bin/python" -c "
import tensorflow as tf, $m
print(tf.config.list_physical_devices(\"$dev\"))
with tf.device($m.device):
    y = tf.nn.relu(tf.constant([[-1.5, 0.0], [2.0, -3.0]]))
print(y.device)
print(y.numpy().tolist())
") >actual 2>err &&
	cat >expect <<-EOF &&
	[PhysicalDevice(name='"'"'/physical_device:$dev:0'"'"', device_type='"'"'$dev'"'"')]
	/job:localhost/replica:0/task:0/device:$dev:0
	[[0.0, 0.0], [2.0, 0.0]]
	EOF
	compare expect actual
'

test_done
