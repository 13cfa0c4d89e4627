#!/bin/sh
# backend/tf_m1's ABI window (issue 25): the plugin records the
# TensorFlow release it was compiled against and, in SE_InitPlugin,
# compares it with the running one (TF_Version()). Built for 2.21.0 and
# installed beside a real tensorflow 2.20.0 from the index:
#   - `import tensorflow` prints one message naming both releases, lists
#     no M_ONE device, and tf.add still runs on the CPU;
#   - TF_M1_STRICT=1 returns the failed status the C API offers instead,
#     and TensorFlow stops the process on it (a fatal check in
#     TF_LoadPluggableDeviceLibrary): why the default registers the
#     platform with no device rather than failing.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/tf.sh"

SQ="'"
req21=$SRC_ROOT/tests/requirements/tensorflow-2.21.0-x86_64.txt
req20=$SRC_ROOT/tests/requirements/tensorflow-2.20.0-x86_64.txt

expect_success 'the plugin built for 2.21.0 installs beside tensorflow 2.20.0' '
	site=$(tf_site x86_64 "$req21") &&
	tf_plugin x86_64 "$site" wheels &&
	tf_venv venv "$req20" &&
	venv/bin/pip install -q --no-index --no-deps wheels/tf_m1-*.whl &&
	venv/bin/python -c "import importlib.metadata as m; print(m.version(\"tensorflow\"))" >v &&
	echo 2.20.0 >expect && compare expect v
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
