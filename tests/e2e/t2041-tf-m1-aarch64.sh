#!/bin/sh
# tier: expensive (TensorFlow; make test QUICK=1 skips it, CI runs it)
# recipes/tf-m1.yaml for aarch64 (issue 25): `tfbuild recipe --target
# all` cross-compiles backend/tf_m1 against the arm64 tensorflow 2.21.0
# wheel (target-wheels, pinned in recipes/tf-m1.lock.json), and the
# wheel runs under qemu-aarch64 by an arm64 CPython 3.11 (Debian's
# python3.11:arm64 in a target root, cached) with the arm64 TensorFlow
# closure (pip install --target --platform, cached):
#   - the library is aarch64, was compiled against the arm64 site and
#     needs the arm64 TensorFlow's libraries, which the framework record
#     names; plain `tfbuild verify` passes the wheel;
#   - TensorFlow lists the M_ONE device, and Relu, AddV2 and MatMul on it
#     match the CPU, eagerly and in a tf.function, on m1's NEON kernels.
# The import and the checks are timed and printed (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/tf.sh"

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

# Only the aarch64 wheel is read here: t2040 builds both.
tf_targets=aarch64
expect_success 'the recipe cross-builds the plugin against the arm64 wheel' '
	tf_build "$SRC_ROOT" build wheels 2>err &&
	grep -q "^tfbuild: 1 of 1 steps ran$" err &&
	tf_wheel wheels aarch64 >awhl &&
	asite=$(tf_built_site build aarch64) &&
	file -L "$asite/tensorflow/libtensorflow_framework.so.2" | grep -q "ARM aarch64" &&
	grep -q "aarch64-linux-gnu-gcc .*-Wl,-z,defs" build/tf-m1/aarch64/logs/tf_m1.log &&
	w=$(cat awhl) && rm -rf x && mkdir x && (cd x && unzip -q "$TRASH/$w") &&
	so=x/tensorflow-plugins/libtf_m1.so &&
	file "$so" | grep -q "ARM aarch64" &&
	readelf -d "$so" | sed -n "s/.*(NEEDED).*\[\(.*\)\]$/\1/p" | sort >needed &&
	printf "%s\n" libc.so.6 libtensorflow_cc.so.2 libtensorflow_framework.so.2 >expect &&
	compare expect needed
'
whl=$(cat awhl 2>/dev/null)

expect_success 'tfbuild verify passes the aarch64 wheel: TensorFlow 2.21.0, StreamExecutor C API 0.0.1' '
	"$TFBUILD" verify "$whl" 2>err &&
	echo "tfbuild: $whl: built for tensorflow 2.21.0 (StreamExecutor C API 0.0.1)" >expect &&
	compare expect err &&
	unzip -p "$whl" tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >expect &&
	compare expect got
'

# The wheel unpacked into a directory named site-packages: TensorFlow
# loads tensorflow-plugins/ from sys.path entries with that name only.
test -n "$whl" && mkdir -p plugin/site-packages &&
	(cd plugin/site-packages && unzip -q "$TRASH/$whl")
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
