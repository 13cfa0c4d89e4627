#!/bin/sh
# tier: expensive (TensorFlow; make test QUICK=1 skips it, CI runs it)
# backend/tf_m1's ABI window (issue 25): the plugin records the
# TensorFlow release it was compiled against and, in SE_InitPlugin,
# compares it with the running one (TF_Version()). Built for 2.21.0 by
# `tfbuild recipe --target x86_64 recipes/tf-m1.yaml`, whose Requires-Dist
# (tensorflow<2.22,>=2.21.0, derived from the framework record) is the
# first guard, and a real tensorflow 2.20.0 from the index:
#   - pip's resolver refuses to install the wheel with tensorflow 2.20.0,
#     naming the conflict; forced in with --no-deps, pip check says so;
#   - there, `import tensorflow` prints one message naming both
#     releases, lists no M_ONE device, and tf.add still runs on the CPU;
#   - TF_M1_STRICT=1 returns the failed status the C API offers instead,
#     and TensorFlow stops the process on it (a fatal check in
#     TF_LoadPluggableDeviceLibrary): why the default registers the
#     platform with no device rather than failing.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/tf.sh"

SQ="'"
# Only the x86_64 wheel meets tensorflow 2.20.0 here: t2041 builds aarch64.
tf_targets=x86_64
req20=$SRC_ROOT/tests/requirements/tensorflow-2.20.0-x86_64.txt

expect_success 'the plugin built for 2.21.0 by the recipe' '
	tf_build "$SRC_ROOT" build wheels 2>err &&
	tf_wheel wheels x86_64 >whl &&
	unzip -p "$(cat whl)" tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >expect &&
	compare expect got
'
whl=$(cat whl 2>/dev/null)

# The closure of tensorflow==2.20.0 and the wheel, every file pinned by
# its hash, in one install: the resolver sees both and stops.
expect_success 'pip refuses to install it beside tensorflow 2.20.0' '
	/usr/bin/python3 -m venv refused &&
	cp "$req20" refused.txt &&
	printf "tf-m1 @ file://%s --hash=sha256:%s\n" \
		"$TRASH/$whl" "$(sha256sum "$whl" | cut -c1-64)" >>refused.txt &&
	expect_code 1 refused/bin/pip install --require-hashes -r refused.txt >out 2>err &&
	cat out err >all &&
	grep -q "ResolutionImpossible" all &&
	grep -q "The user requested tensorflow==2.20.0" all &&
	grep -q "tf-m1 0.1.0 depends on tensorflow<2.22 and >=2.21.0" all &&
	! test -d refused/lib/python3.11/site-packages/tensorflow
'

expect_success 'forced with --no-deps beside tensorflow 2.20.0; pip check says so' '
	tf_venv venv "$req20" &&
	venv/bin/pip install -q --no-index --no-deps "$whl" &&
	venv/bin/python -c "import importlib.metadata as m; print(m.version(\"tensorflow\"))" >v &&
	echo 2.20.0 >expect && compare expect v &&
	expect_code 1 venv/bin/pip check >out &&
	grep -q "^tf-m1 0.1.0 has requirement tensorflow<2.22,>=2.21.0, but you have tensorflow 2.20.0\.$" out
'

msg="tf_m1: built for TensorFlow 2.21.0, but this is TensorFlow 2.20.0: the PluggableDevice ABI holds within one major.minor release only, so the M_ONE device is not registered (install the tf-m1 built for 2.20)"

expect_success 'one message naming both releases; tf.add runs on the CPU' '
	(cd / && "$TRASH/venv/bin/python" -c "
import tensorflow as tf, tf_m1
print(sorted(d.device_type for d in tf.config.list_physical_devices()))
x = tf.add(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
print(x.device.split(\"/\")[-1], x.numpy().tolist(), tf_m1.isa())
") >out 2>err &&
	grep -c "^tf_m1: " err >n && echo 1 | compare - n &&
	echo "$msg" >expect && grep "^tf_m1: " err | compare expect - &&
	printf "%s\n" "[${SQ}CPU${SQ}]" "device:CPU:0 [4.0, 6.0] None" >expect &&
	compare expect out
'

expect_success 'TF_M1_STRICT=1: the failed status stops TensorFlow (why it is not the default)' '
	(ulimit -c 0 && cd / && TF_M1_STRICT=1 "$TRASH/venv/bin/python" -c "import tensorflow" \
		>"$TRASH/out" 2>"$TRASH/err"; echo $? >"$TRASH/rc") &&
	echo 134 >expect && compare expect rc &&
	grep -q "RegisterPluggableDevicePlugin" err &&
	grep -q "FAILED_PRECONDITION: $msg" err
'

test_done
