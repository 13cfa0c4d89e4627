#!/bin/sh
# tier: expensive (TensorFlow's macOS wheel; make test QUICK=1 skips it, CI runs it)
# recipes/tf-m1.yaml for macos-arm64 (issue 36): the m1 PluggableDevice
# cross-built by zig against TensorFlow 2.21.0's macOS arm64 wheel
# (target-wheels, pinned in recipes/tf-m1.lock.json), as far as a Linux
# machine can prove it (no Mac runs it here: docs/cross.md#macos):
#   - `--target all` writes tf_m1-0.1.0-py3-none-macosx_12_0_arm64.whl
#     beside the two Linux wheels; a second run runs nothing; another
#     checkout at another path gives the same bytes, with no path of the
#     build machine in them;
#   - the wheel holds tensorflow-plugins/libtf_m1.dylib (TensorFlow's
#     loader takes *.dylib on macOS) exporting its entry points and
#     counters only, with NEON kernels (fadd.4s, fmaxnm.4s), and a tf_m1
#     package that names that file;
#   - llvm-otool-14 lists the minimum macOS, install name, rpath and
#     dylibs that `tfbuild verify -v` prints: @rpath/ loads of
#     TensorFlow's two dylibs through @loader_path/../tensorflow, which
#     is where TensorFlow's macOS wheel has them, under those install
#     names; verify warns of nothing;
#   - framework.json names the two dylibs, Requires-Dist is the minor
#     release's window, libraries.json resolves both as the framework's,
#     the SBOM names the framework and the pinned macOS wheel; verify
#     --framework passes it against the macOS site it was built against
#     and refuses it against the x86_64 one;
#   - the framework check refuses a plugin whose undefined symbol
#     TensorFlow's dylibs do not define (linked with -undefined
#     dynamic_lookup, so only the check can catch it), and one whose
#     symbol the dylib it is bound to lacks (a site of zig-built
#     stand-ins under TensorFlow's install names);
#   - twine check --strict passes; pip, for macosx_12_0_arm64 and
#     CPython 3.11, resolves the plugin (from a local folder) with
#     TensorFlow 2.21.0 from the index, the very macOS wheel the lock
#     pins.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/tf.sh"
. "$TESTS_DIR/lib/macho.sh"

tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
name=tf_m1-0.1.0-py3-none-macosx_12_0_arm64.whl
lib=tensorflow-plugins/libtf_m1.dylib

expect_success '--target all writes the macOS wheel beside the Linux ones' '
	tf_build "$SRC_ROOT" build-a wheels-a 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	tf_wheel wheels-a x86_64 && tf_wheel wheels-a aarch64 &&
	tf_wheel wheels-a macos-arm64 >mwhl &&
	test "$(cat mwhl)" = "wheels-a/$name" &&
	! grep -q "warning" err
'
w=wheels-a/$name

expect_success 'a second run runs nothing and rewrites the same bytes' '
	cp "$w" first.whl &&
	tf_build "$SRC_ROOT" build-a wheels-a 2>err &&
	grep -q "^tfbuild: 0 of 3 steps ran, 3 up to date$" err &&
	cmp first.whl "$w"
'

expect_success 'another checkout at another path: byte-identical wheels, no build path' '
	tf_checkout elsewhere/c &&
	tf_build elsewhere/c elsewhere/build elsewhere/wheels 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	test $(ls wheels-a/*.whl | wc -l) = 3 &&
	for x in wheels-a/*.whl; do
		cmp "$x" "elsewhere/wheels/${x#wheels-a/}" || exit 1
	done &&
	unzip -p "$w" >all &&
	! grep -a -e "$TRASH" -e "$TF_SYSROOT_CACHE" -e "$TEST_CACHE" all
'

expect_success 'the wheel: the dylib, its exports, a package naming it' '
	rm -rf x && mkdir x && (cd x && unzip -q "$TRASH/$w") &&
	(cd x && find . -type f | LC_ALL=C sort) >files &&
	grep -qx "./$lib" files && grep -qx "./tf_m1/__init__.py" files &&
	! grep "\.so$" files &&
	llvm-objdump-14 --macho --exports-trie "x/$lib" |
		sed -n "s/^0x[0-9A-F]* *//p" | LC_ALL=C sort >exports &&
	printf "%s\n" _SE_InitPlugin _TF_InitKernel ___dso_handle \
		__mh_dylib_header _m1_tf_isa _m1_tf_kernel_calls | LC_ALL=C sort >want &&
	compare want exports &&
	grep -q "\"libtf_m1.dylib\")" x/tf_m1/__init__.py &&
	llvm-objdump-14 --macho -d "x/$lib" >dis &&
	grep -q "fadd\.4s" dis && grep -q "fmaxnm\.4s" dis
'

# What verify -v prints of the dylib, and what llvm-otool-14 reads.
expect_success 'llvm-otool-14 and verify -v agree: minos, install name, rpath, dylibs' '
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep -qx "ok  $w" out &&
	! grep -q "warning" err &&
	at="tfbuild: $w: $lib: arm64" &&
	sed -n "s|^$at dylib: minos \([^,]*\), .*|\1|p" err >v.minos &&
	sed -n "s|^$at dylib: .*, install name \([^,]*\), .*|\1|p" err >v.id &&
	sed -n "s|^$at: dylib \(.*\) (load)$|\1|p" err >v.dylibs &&
	sed -n "s|^$at: rpath ||p" err >v.rpaths &&
	grep -q "^$at dylib: .*, code signature present$" err &&
	llvm-otool-14 -l "x/$lib" >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >o.minos &&
	sed -n "/cmd LC_ID_DYLIB/{n;n;s/^ *name \(.*\) (offset .*/\1/p;}" l >o.id &&
	sed -n "/cmd LC_RPATH/{n;n;s/^ *path \(.*\) (offset .*/\1/p;}" l >o.rpaths &&
	grep -q "cmd LC_CODE_SIGNATURE" l &&
	llvm-otool-14 -L "x/$lib" | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >o.dylibs &&
	echo 12.0 >want && compare want o.minos && compare o.minos v.minos &&
	echo @rpath/libtf_m1.dylib >want && compare want o.id && compare o.id v.id &&
	echo @loader_path/../tensorflow >want &&
	compare want o.rpaths && compare o.rpaths v.rpaths &&
	printf "%s\n" /usr/lib/libSystem.B.dylib @rpath/libtensorflow_cc.2.dylib \
		@rpath/libtensorflow_framework.2.dylib >want &&
	compare want o.dylibs && compare o.dylibs v.dylibs
'

# The rpath from site-packages/tensorflow-plugins/ reaches tensorflow/,
# where the macOS wheel the build used has both dylibs under the names
# the plugin loads.
site=$(tf_built_site build-a macos-arm64)
expect_success 'the loads resolve in TensorFlow'"'"'s macOS wheel through the rpath' '
	test -d "$site/tensorflow" &&
	for d in libtensorflow_cc.2.dylib libtensorflow_framework.2.dylib; do
		llvm-otool-14 -D "$site/tensorflow/$d" | sed -n 2p >id &&
		echo "@rpath/$d" | compare - id || exit 1
	done
'

expect_success 'framework.json, Requires-Dist, libraries.json and the SBOM' '
	unzip -p "$w" tf_m1-0.1.0.dist-info/tfbuild/framework.json >fw &&
	unzip -p "$w" tf_m1-0.1.0.dist-info/tfbuild/libraries.json >libs &&
	unzip -p "$w" tf_m1-0.1.0.dist-info/sboms/tfbuild.cdx.json >sbom &&
	"$tools/python" - fw libs sbom "$SRC_ROOT/recipes/tf-m1.lock.json" <<-\EOF &&
	import json, sys
	fw = json.load(open(sys.argv[1]))["framework"]
	assert fw["name"] == "tensorflow" and fw["version"] == "2.21.0", fw
	assert fw["requires-dist"] == "tensorflow<2.22,>=2.21.0", fw
	assert fw["c-api"]["version"] == "0.0.1", fw
	assert [p["soname"] for p in fw["providers"]] == \
	    ["libtensorflow_cc.2.dylib", "libtensorflow_framework.2.dylib"], fw
	libs = json.load(open(sys.argv[2]))["libraries"]
	got = sorted((l["soname"], l["resolution"], l["requirement"]) for l in libs)
	assert got == [(s, "framework", "tensorflow<2.22,>=2.21.0") for s in
	    ("libtensorflow_cc.2.dylib", "libtensorflow_framework.2.dylib")], got
	comps = {c["bom-ref"]: c for c in json.load(open(sys.argv[3]))["components"]}
	assert comps["framework:tensorflow"]["version"] == "2.21.0", comps
	pin = [p for p in json.load(open(sys.argv[4]))["pins"] if p["target"] == "macos-arm64"]
	assert len(pin) == 1, pin
	tw = comps["target-wheel:" + pin[0]["file"]]
	assert tw["hashes"][0]["content"] == pin[0]["sha256"], tw
	EOF
	unzip -p "$w" tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" | compare - got
'

expect_success 'verify --framework: the macOS site passes it, the x86_64 one does not' '
	"$TFBUILD" verify --framework "$site" "$w" >out 2>err &&
	grep -qx "tfbuild: $w: built for tensorflow 2.21.0 (.*), and resolves against .$site." err &&
	xsite=$(tf_built_site build-a x86_64) &&
	expect_code 6 "$TFBUILD" verify --framework "$xsite" "$w" 2>err &&
	grep -q "^tfbuild: $w: built for tensorflow 2.21.0 (.*), which provides libtensorflow_cc.2.dylib; .$xsite. has tensorflow 2.21.0, which does not$" err
'

# A copy of the checkout whose plugin calls a function TensorFlow does
# not have, linked so that the linker lets it through.
expect_success 'the framework check refuses a symbol TensorFlow'"'"'s dylibs do not define' '
	tf_checkout bad &&
	printf "%s\n" "void TF_NoSuchApi(void);" \
		"TF_M1_EXPORT void m1_tf_probe(void) { TF_NoSuchApi(); }" \
		>>bad/backend/tf_m1/src/ops.c &&
	sed -i "s|LDFLAGS=\"\$LDFLAGS\"|LDFLAGS=\"\$LDFLAGS -Wl,-undefined,dynamic_lookup\"|" \
		bad/recipes/tf-m1.yaml &&
	grep -q dynamic_lookup bad/recipes/tf-m1.yaml &&
	tf_targets=macos-arm64 &&
	expect_code 6 tf_build bad bad/build bad/wheels 2>err &&
	grep -q "^tfbuild: wheel .tf_m1.: $lib: undefined symbol ._TF_NoSuchApi. is looked up in every image at load time (flat namespace or -undefined dynamic_lookup), and neither the framework.s dylibs (tensorflow 2.21.0) nor another file of the wheel defines it$" err &&
	! ls bad/wheels/*.whl
'

# A site of zig-built stand-ins under TensorFlow's install names, whose
# libtensorflow_cc.2.dylib exports TF_Version alone: the real one
# re-exports libtensorflow_framework's C API, so the linker bound most
# of the plugin's TensorFlow symbols to it (by ordinal), and this one
# lacks them.
expect_success 'the framework check refuses a symbol the dylib it is bound to lacks' '
	mkdir -p fake/tensorflow &&
	ln -s "$site/tensorflow/include" fake/tensorflow/include &&
	ln -s "$site/tensorflow-2.21.0.dist-info" fake/ &&
	echo "void TF_NewStatus(void) {}" >framework.c &&
	echo "void TF_Version(void) {}" >cc.c &&
	for l in framework cc; do
		zig_cc -target aarch64-macos.12.0 -shared -s \
			-Wl,-install_name,@rpath/libtensorflow_$l.2.dylib \
			-o fake/tensorflow/libtensorflow_$l.2.dylib $l.c || exit 1
	done &&
	tf_checkout other &&
	sed -i "s|site-packages: \${target_site}|site-packages: $TRASH/fake|" \
		other/recipes/tf-m1.yaml &&
	grep -q "site-packages: $TRASH/fake" other/recipes/tf-m1.yaml &&
	tf_targets=macos-arm64 &&
	expect_code 6 tf_build other other/build other/wheels 2>err &&
	grep -q "^tfbuild: wheel .tf_m1.: $lib: undefined symbol ._TF_AllocateOutput. is bound to @rpath/libtensorflow_cc\.2\.dylib, which does not define it (tensorflow 2\.21\.0.s [^ ]*/fake/tensorflow/libtensorflow_cc\.2\.dylib): built against other framework headers?$" err &&
	! ls other/wheels/*.whl
'

expect_success 'twine check --strict passes the wheel' '
	"$tools/twine" check --strict "$w"
'

# The plugin from a local folder, TensorFlow's closure from the index pip
# is configured with: the release the window admits, for the Mac.
expect_success 'pip resolves it for macosx_12_0_arm64 with TensorFlow 2.21.0, the pinned wheel' '
	mkdir -p local && cp "$w" local/ &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip install -q --dry-run \
		--only-binary=:all: --platform macosx_12_0_arm64 \
		--python-version 3.11 --implementation cp --target site \
		--find-links local --report r.json tf-m1 &&
	"$tools/python" - r.json "$SRC_ROOT/recipes/tf-m1.lock.json" <<-\EOF
	import json, sys
	inst = {i["metadata"]["name"].lower().replace("_", "-"): i
	        for i in json.load(open(sys.argv[1]))["install"]}
	assert inst["tf-m1"]["metadata"]["version"] == "0.1.0", inst["tf-m1"]
	assert inst["tf-m1"]["download_info"]["url"].endswith("/tf_m1-0.1.0-py3-none-macosx_12_0_arm64.whl")
	tf = inst["tensorflow"]
	assert tf["metadata"]["version"] == "2.21.0", tf["metadata"]["version"]
	pin = [p for p in json.load(open(sys.argv[2]))["pins"] if p["target"] == "macos-arm64"][0]
	assert tf["download_info"]["url"].endswith("/" + pin["file"]), tf["download_info"]
	assert tf["download_info"]["archive_info"]["hashes"]["sha256"] == pin["sha256"], tf["download_info"]
	EOF
'

test_done
