#!/bin/sh
# backend/tf_m1 for aarch64 (issue 25): cross-compiled against the arm64
# tensorflow 2.21.0 wheel, and run under qemu-aarch64 by an arm64
# CPython 3.11 (Debian's python3.11:arm64 in a target root, cached) with
# the arm64 TensorFlow closure (pip install --target --platform, cached):
#   - the library is aarch64 and needs the arm64 TensorFlow's libraries;
#   - TensorFlow lists the M_ONE device, and Relu, AddV2 and MatMul on it
#     match the CPU, eagerly and in a tf.function, on m1's NEON kernels.
# The import and the checks are timed and printed (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/tf.sh"

TF_SYSROOT_CACHE=$tf_cache/target-roots
export TF_SYSROOT_CACHE
req=$SRC_ROOT/tests/requirements/tensorflow-2.21.0-aarch64.txt
check=$SRC_ROOT/backend/tf_m1/tests/check_device.py

expect_success 'an arm64 CPython 3.11 in a cached target root' '
	"$TFBUILD" -q recipe --target aarch64 -j 2 --build-dir rb --out ro \
		"$TESTS_DIR/e2e/tf/arm64-python.yaml" &&
	cp rb/arm64-python/aarch64/stage/root/root root &&
	file -L "$(cat root)/usr/bin/python3.11" | grep -q "ARM aarch64"
'
root=$(cat root 2>/dev/null)

expect_success 'tensorflow 2.21.0 for aarch64 from the pinned requirements' '
	tf_site aarch64 "$req" >site &&
	file -L "$(cat site)/tensorflow/libtensorflow_framework.so.2" | grep -q "ARM aarch64"
'
site=$(cat site 2>/dev/null)

whl=wheels/tf_m1-0.1.0-py3-none-manylinux_2_27_aarch64.whl
expect_success 'the plugin cross-builds against the arm64 wheel' '
	tf_plugin aarch64 "$site" wheels &&
	so=stage-aarch64/tensorflow-plugins/libtf_m1.so &&
	file "$so" | grep -q "ARM aarch64" &&
	readelf -d "$so" | grep -q "NEEDED.*\[libtensorflow_framework\.so\.2\]" &&
	unzip -l "$whl" | grep -q " tensorflow-plugins/libtf_m1\.so$"
'

# The wheel unpacked into a directory named site-packages: TensorFlow
# loads tensorflow-plugins/ from sys.path entries with that name only.
mkdir -p plugin/site-packages && (cd plugin/site-packages && unzip -q "$TRASH/$whl")
expect_success 'under qemu-aarch64 the M_ONE device runs on the NEON kernels' '
	test -n "$root" && test -n "$site" &&
	start=$(date +%s) &&
	(cd / && env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
		PYTHONPATH="$TRASH/plugin/site-packages:$site" \
		PYTHONPYCACHEPREFIX="$tf_cache/pycache/tf-aarch64" \
		qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" "$check") >out 2>err &&
	echo $(($(date +%s) - start)) >elapsed &&
	grep -q "^ok listed .*device_type=.M_ONE." out &&
	grep -q "^ok matmul transpose_b (MatMul: 1 call(s))$" out &&
	grep -q "^ok tf.function (Relu, AddV2, MatMul on m1)$" out &&
	test "$(tail -n 1 out)" = "isa neon"
'
# The cost of emulation, for docs/frameworks.md (not an assertion).
test -s elapsed &&
	echo "# under qemu-aarch64: import tensorflow $(sed -n "s/^import //p" out), checks $(sed -n "s/^checks //p" out), $(cat elapsed) s in all"

test_done
