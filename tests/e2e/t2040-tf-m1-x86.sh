#!/bin/sh
# tier: expensive (TensorFlow; make test QUICK=1 skips it, CI runs it)
# recipes/tf-m1.yaml: the m1 backend as a TensorFlow PluggableDevice,
# built by `tfbuild recipe --target all` against the released TensorFlow
# 2.21.0 wheels from the index (target-wheels, pinned in
# recipes/tf-m1.lock.json), and loaded by TensorFlow 2.21.0 (issue 25),
# x86_64:
#   - both wheels build (with macOS's, which t2264 checks); a second run
#     runs nothing; a second checkout gives byte-identical wheels;
#   - the library is built with every undefined symbol resolved (-z defs),
#     exports only its entry points and needs TensorFlow's two libraries
#     and libc only, which the framework record names as TensorFlow's;
#   - framework.json records TensorFlow 2.21.0 and the StreamExecutor C
#     API 0.0.1; Requires-Dist is derived from it (the minor release's
#     window); plain `tfbuild verify` passes both wheels and says so, the
#     provenance lists the lock file's pins and the framework; verify
#     refuses a copy whose library lacks SE_InitPlugin and copies whose
#     Requires-Dist was removed or widened;
#   - pip installs the wheel and TensorFlow 2.21.0's closure from the
#     index in one --require-hashes install into a fresh venv; pip check
#     passes;
#   - TensorFlow lists '/physical_device:M_ONE:0'; Relu, AddV2 and MatMul
#     (transposes too) on '/M_ONE:0' match the CPU, eagerly and in a
#     tf.function, and m1's counters prove its kernels ran: AVX2 (or SSE2)
#     natively, and each table TF_M1_ISA forces;
#   - operands m1 does not handle (AddV2 broadcasting) fail with m1's
#     message, not a crash.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/tf.sh"

req=$SRC_ROOT/tests/requirements/tensorflow-2.21.0-x86_64.txt
check=$SRC_ROOT/backend/tf_m1/tests/check_device.py
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}

# --target all builds macOS's wheel too (t2264 checks it).
expect_success 'both wheels build from the recipe' '
	tf_build "$SRC_ROOT" build-a wheels-a 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	tf_wheel wheels-a x86_64 >whl &&
	tf_wheel wheels-a aarch64 >awhl
'
whl=$(cat whl 2>/dev/null)
awhl=$(cat awhl 2>/dev/null)

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels "$whl" "$awhl"
'

expect_success 'a second run runs nothing' '
	tf_build "$SRC_ROOT" build-a wheels-a 2>err &&
	grep -q "^tfbuild: 0 of 3 steps ran, 3 up to date$" err
'

expect_success 'a second checkout gives byte-identical wheels' '
	tf_checkout b &&
	tf_build b build-b wheels-b 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	test $(ls wheels-a/*.whl | wc -l) = 3 &&
	for w in wheels-a/*.whl; do
		cmp "$w" "wheels-b/${w#wheels-a/}" || exit 1
	done
'

expect_success 'the library resolves every symbol and exports its entry points only' '
	rm -rf x && mkdir x && (cd x && unzip -q "$TRASH/$whl") &&
	so=x/tensorflow-plugins/libtf_m1.so &&
	nm -D --defined-only "$so" | awk "{ print \$3 }" | sort >exports &&
	printf "%s\n" SE_InitPlugin TF_InitKernel m1_tf_isa m1_tf_kernel_calls >expect &&
	compare expect exports &&
	readelf -d "$so" | sed -n "s/.*(NEEDED).*\[\(.*\)\]$/\1/p" | sort >needed &&
	printf "%s\n" libc.so.6 libtensorflow_cc.so.2 libtensorflow_framework.so.2 >expect &&
	compare expect needed &&
	grep -q "Wl,-z,defs" build-a/tf-m1/x86_64/logs/tf_m1.log &&
	unzip -p "$whl" tf_m1-0.1.0.dist-info/tfbuild/libraries.json >libs &&
	"$tools/python" - libs <<-\EOF
	import json, sys
	libs = json.load(open(sys.argv[1]))["libraries"]
	got = sorted((l["soname"], l["resolution"], l["requirement"]) for l in libs)
	want = [(s, "framework", "tensorflow<2.22,>=2.21.0")
	        for s in ("libtensorflow_cc.so.2", "libtensorflow_framework.so.2")]
	assert got == want, got
	EOF
'

expect_success 'framework.json: TensorFlow 2.21.0, the StreamExecutor C API 0.0.1, both libraries' '
	for w in "$whl" "$awhl"; do
		unzip -p "$w" tf_m1-0.1.0.dist-info/tfbuild/framework.json >fw &&
		"$tools/python" - fw <<-\EOF || exit 1
		import json, sys
		fw = json.load(open(sys.argv[1]))["framework"]
		assert fw["name"] == "tensorflow" and fw["version"] == "2.21.0", fw
		assert fw["requires-dist"] == "tensorflow<2.22,>=2.21.0", fw
		assert fw["c-api"]["name"] == "StreamExecutor C API", fw
		assert fw["c-api"]["version"] == "0.0.1", fw
		assert fw["c-api"]["header"] == "tensorflow/include/tensorflow/c/experimental/stream_executor/stream_executor.h", fw
		assert [p["soname"] for p in fw["providers"]] == \
		    ["libtensorflow_cc.so.2", "libtensorflow_framework.so.2"], fw
		EOF
	done
'

expect_success 'METADATA: the Requires-Dist derived from the record, nothing typed' '
	for w in "$whl" "$awhl"; do
		unzip -p "$w" tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
		echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >want &&
		compare want got || exit 1
	done &&
	! grep -q "^ *requires-dist:" "$SRC_ROOT/recipes/tf-m1.yaml"
'

expect_success 'tfbuild verify passes both wheels and reports the framework ABI' '
	"$TFBUILD" verify "$whl" "$awhl" >out 2>err &&
	for w in "$whl" "$awhl"; do
		grep -qx "tfbuild: $w: built for tensorflow 2.21.0 (StreamExecutor C API 0.0.1)" err &&
		grep -qx "ok  $w" out || exit 1
	done &&
	test $(wc -l <err) = 2 &&
	"$TFBUILD" verify --sums wheels-a/SHA256SUMS --provenance wheels-a/tf-m1.intoto.json
'

expect_success 'the provenance: the lock file'"'"'s pins and each wheel'"'"'s framework' '
	"$tools/python" - wheels-a/tf-m1.intoto.json "$SRC_ROOT/recipes/tf-m1.lock.json" \
		"${whl#wheels-a/}" "${awhl#wheels-a/}" <<-\EOF
	import json, sys
	doc = json.load(open(sys.argv[1]))
	deps = {d["name"]: d for d in doc["predicate"]["buildDefinition"]["resolvedDependencies"]}
	for pin in json.load(open(sys.argv[2]))["pins"]:
	    d = deps["target-wheel:%s:%s" % (pin["target"], pin["requirement"])]
	    assert d["uri"] == "file:" + pin["file"], d
	    assert d["digest"] == {"sha256": pin["sha256"]}, d
	for w in sys.argv[3:]:
	    d = deps["framework:" + w]
	    assert d["uri"] == "pkg:pypi/tensorflow@2.21.0", d
	EOF
'

# repack OUT SED: a copy of the x86_64 wheel with METADATA edited by SED,
# its RECORD rewritten by wheel pack, into OUT/.
repack() {
	rm -rf rp "$1" && mkdir -p rp "$1" && (cd rp && unzip -q "$TRASH/$whl") &&
	sed -i "$2" rp/tf_m1-0.1.0.dist-info/METADATA &&
	"$tools/wheel" pack rp -d "$1" >/dev/null
}

expect_success 'verify refuses a copy whose Requires-Dist was removed or widened' '
	repack gone "/^Requires-Dist/d" &&
	expect_code 6 "$TFBUILD" verify gone/*.whl 2>err &&
	cat err &&
	grep -q "^tfbuild: gone/tf_m1-[^ ]*\.whl: tensorflow-plugins/libtf_m1\.so: needs .libtensorflow_cc\.so\.2. (DT_NEEDED) from framework .tensorflow<2.22,>=2.21.0., which is not in Requires-Dist$" err &&
	repack wide "s/^Requires-Dist: .*/Requires-Dist: tensorflow>=2.21.0/" &&
	expect_code 6 "$TFBUILD" verify wide/*.whl 2>err &&
	cat err &&
	grep -q "^tfbuild: wide/tf_m1-[^ ]*\.whl: METADATA: Requires-Dist .tensorflow>=2\.21\.0. is wider than the window .<2\.22,>=2\.21\.0.: tensorflow-plugins/libtf_m1\.so (a TensorFlow PluggableDevice) was built against tensorflow 2\.21\.0" err &&
	repack minor "s/^Requires-Dist: .*/Requires-Dist: tensorflow==2.21.*/" &&
	expect_code 6 "$TFBUILD" verify minor/*.whl 2>err &&
	grep -q "Requires-Dist .tensorflow==2\.21\.\*. is wider than the window" err
'

# The same objects linked again with a version script that keeps
# SE_InitPlugin local: the library TensorFlow would load and never call.
expect_success 'verify refuses a copy whose library lacks SE_InitPlugin' '
	site=$(tf_built_site build-a x86_64) &&
	printf "{\n\tglobal: TF_InitKernel; m1_tf_kernel_calls; m1_tf_isa;\n\tlocal: *;\n};\n" >nose.map &&
	rm -rf rp nose && mkdir -p rp nose && (cd rp && unzip -q "$TRASH/$whl") &&
	gcc -shared -Wl,--version-script=nose.map -Wl,-z,defs \
		-o rp/tensorflow-plugins/libtf_m1.so build-a/tf-m1/x86_64/work/tf_m1/*.o \
		"$site/tensorflow/libtensorflow_cc.so.2" \
		"$site/tensorflow/libtensorflow_framework.so.2" &&
	! nm -D --defined-only rp/tensorflow-plugins/libtf_m1.so | grep -q SE_InitPlugin &&
	"$tools/wheel" pack rp -d nose >/dev/null &&
	expect_code 6 "$TFBUILD" verify nose/*.whl 2>err &&
	cat err &&
	grep -q "^tfbuild: nose/tf_m1-[^ ]*\.whl: tensorflow-plugins/libtf_m1\.so: a TensorFlow plugin library that does not export SE_InitPlugin" err
'

# One install, every file pinned: the closure of tensorflow==2.21.0 from
# tests/requirements/ and the wheel as a file URL with its sha256.
expect_success 'pip installs it with tensorflow 2.21.0 from the index (--require-hashes); pip check passes' '
	tf_venv venv "$req" "$whl" &&
	venv/bin/pip check &&
	venv/bin/python -c "import importlib.metadata as m; print(m.version(\"tensorflow\"), m.version(\"tf-m1\"))" >v &&
	echo "2.21.0 0.1.0" >expect && compare expect v &&
	test -f venv/lib/python3.11/site-packages/tensorflow-plugins/libtf_m1.so
'

if grep -qw avx2 /proc/cpuinfo; then native=avx2; else native=sse2; fi
expect_success "the M_ONE device runs Relu, AddV2, MatMul like the CPU ($native)" '
	(cd / && "$TRASH/venv/bin/python" "$check") >out 2>err &&
	cat out &&
	grep -q "^ok listed .*PhysicalDevice(name=.\/physical_device:M_ONE:0., device_type=.M_ONE.)" out &&
	grep -q "^ok relu (Relu: 1 call(s))$" out &&
	grep -q "^ok add (AddV2: 1 call(s))$" out &&
	grep -q "^ok matmul transpose_a (MatMul: 1 call(s))$" out &&
	grep -q "^ok matmul transpose_b (MatMul: 1 call(s))$" out &&
	grep -q "^ok tf.function (Relu, AddV2, MatMul on m1)$" out &&
	test "$(tail -n 1 out)" = "isa $native"
'

for isa in sse2 scalar; do
	expect_success "TF_M1_ISA=$isa runs the $isa table" '
		(cd / && TF_M1_ISA=$isa "$TRASH/venv/bin/python" "$check") >out 2>err &&
		grep -q "^ok tf.function" out &&
		test "$(tail -n 1 out)" = "isa $isa"
	'
done

expect_success 'AddV2 with broadcasting on M_ONE fails with m1'"'"'s message' '
	(cd / && "$TRASH/venv/bin/python" -c "
import tensorflow as tf
with tf.device(\"/M_ONE:0\"):
    try:
        tf.add(tf.ones((2, 3)), tf.ones((3,)))
    except tf.errors.UnimplementedError as e:
        print(e.message)
") >out 2>err &&
	grep -q "m1: AddV2 takes two operands of one shape (no broadcasting)" out
'

test_done
