#!/bin/sh
# tier: expensive (TensorFlow; make test QUICK=1 skips it, CI runs it)
# A TensorFlow PluggableDevice's framework record (docs/frameworks.md):
# `framework: {name: tensorflow}` reads the release from the site's
# metadata (tensorflow or tensorflow-cpu), the StreamExecutor C API from
# stream_executor.h and the libraries in tensorflow/; the wheel's
# framework.json, its Requires-Dist (the minor release's window, as
# packaging 26 writes it), the provenance and verify's line say so. A
# recipe requires-dist wider than the window is refused at its position;
# verify refuses a plugin wheel whose Requires-Dist is missing or wider,
# and one whose library does not export SE_InitPlugin. A small fake
# site-packages stands in for the 270 MB wheel.
. "$(dirname "$0")/../lib/test-lib.sh"

fx=$SRC_ROOT/tests/e2e/abi
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
plat=manylinux_2_5_x86_64.manylinux1_x86_64
wheel=tf_m1-0.1.0-py3-none-$plat.whl
se=tensorflow/c/experimental/stream_executor/stream_executor.h

# site DIR DIST: a site-packages with TensorFlow 2.21.0 as distribution DIST.
site() {
	mkdir -p "$1/$2-2.21.0.dist-info" "$1/tensorflow/include/${se%/*}" &&
	printf "Metadata-Version: 2.4\nName: %s\nVersion: 2.21.0\n" "$2" \
		>"$1/$2-2.21.0.dist-info/METADATA" &&
	printf "/* the C API */\n#define SE_MAJOR 0\n#define SE_MINOR 0\n#define SE_PATCH 1  // patch\n" \
		>"$1/tensorflow/include/$se" &&
	cc -shared -fPIC -Wl,-soname,libtensorflow_framework.so.2 \
		-o "$1/tensorflow/libtensorflow_framework.so.2" "$fx/framework.c"
}

# recipe FILE [REQUIRES-DIST]: the plugin, built against ${site}.
recipe() {
	mkdir -p src && cp "$fx/plugin.c" src/ &&
	cat >"$1" <<-EOF
	schema: 1
	name: tf-m1
	version: 0.1.0
	targets: [x86_64]
	variables:
	  site: /nonexistent
	  extra: ""
	sources:
	  - name: src
	    path: src
	steps:
	  - name: plugin
	    source: src
	    run: |
	      eval "\$CC \$CFLAGS -shared -fPIC \${extra} -o \"\\\$STAGE/libtf_m1.so\" plugin.c -L\${site}/tensorflow -l:libtensorflow_framework.so.2 \$LDFLAGS"
	wheels:
	  - name: tf_m1
	    version: \${version}
	    python: py3
	    abi: none
	    license: MIT
	    ${2:+requires-dist: [\"$2\"]}
	    framework: { name: tensorflow, site-packages: "\${site}" }
	    files:
	      - { from: plugin, src: libtf_m1.so, dst: tensorflow-plugins }
	EOF
}

# repack WHEEL OUT SED [RM]: the wheel with METADATA edited by SED (and
# .dist-info/RM removed), RECORD rewritten by wheel pack, into OUT/.
repack() {
	rm -rf rp "$2" && mkdir -p rp "$2" && (cd rp && unzip -q "../$1") &&
	sed -i "$3" rp/*.dist-info/METADATA &&
	if test -n "${4:-}"; then rm rp/*.dist-info/$4; fi &&
	"$tools/wheel" pack rp -d "$2" >/dev/null
}

expect_success 'the record: framework.json, Requires-Dist, provenance, verify' '
	site tf tensorflow && recipe r.yaml &&
	"$TFBUILD" -q recipe --out out --set site="$TRASH/tf" r.yaml &&
	unzip -p out/$wheel "tf_m1-0.1.0.dist-info/tfbuild/framework.json" >got &&
	sha=$(sha256sum "tf/tensorflow/include/$se" | cut -c1-64) &&
	cat >want <<-EOF &&
	{
	 "framework": {
	  "c-api": {
	   "header": "tensorflow/include/$se",
	   "header-sha256": "$sha",
	   "name": "StreamExecutor C API",
	   "version": "0.0.1"
	  },
	  "name": "tensorflow",
	  "providers": [
	   {
	    "exports-sha256": "$(printf "TF_NewStatus\n" | sha256sum | cut -c1-64)",
	    "soname": "libtensorflow_framework.so.2"
	   }
	  ],
	  "requires-dist": "tensorflow<2.22,>=2.21.0",
	  "version": "2.21.0"
	 },
	 "schema": 1
	}
	EOF
	compare want got &&
	unzip -p out/$wheel tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >want &&
	compare want got &&
	"$tools/python" - out/tf-m1.intoto.json "$wheel" <<-EOF &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	deps = {d["name"]: d for d in doc["predicate"]["buildDefinition"]["resolvedDependencies"]}
	d = deps["framework:" + sys.argv[2]]
	assert d["uri"] == "pkg:pypi/tensorflow@2.21.0", d
	assert d["annotations"]["requires-dist"] == "tensorflow<2.22,>=2.21.0", d
	assert d["annotations"]["c-api"]["version"] == "0.0.1", d
	EOF
	"$TFBUILD" verify out/$wheel 2>err &&
	grep -qx "tfbuild: out/$wheel: built for tensorflow 2.21.0 (StreamExecutor C API 0.0.1)" err &&
	"$TFBUILD" verify --provenance out/tf-m1.intoto.json
'

expect_success 'packaging 26 reads the Requires-Dist and agrees with the window' '
	unzip -p out/$wheel tf_m1-0.1.0.dist-info/METADATA | sed -n "s/^Requires-Dist: //p" >req &&
	vs="2.20.9 2.21.0rc1 2.21.0 2.21.0.post1 2.21.1 2.21.99.dev3 2.22.0.dev0 2.22.0rc1 2.22.0 3.0 1!2.21.0" &&
	"$TOOL_DIR/test-pep440" has "<2.22,>=2.21.0" $vs >ours &&
	"$tools/python" - "$(cat req)" $vs >theirs <<-EOF &&
	import sys
	from packaging.requirements import Requirement
	r = Requirement(sys.argv[1])
	assert str(r) == sys.argv[1] and r.name == "tensorflow", str(r)
	for v in sys.argv[2:]:
	    print(v, int(r.specifier.contains(v, prereleases=True)))
	EOF
	compare theirs ours &&
	grep -qx "2.21.1 1" ours && grep -qx "2.22.0rc1 0" ours
'

expect_success 'tensorflow-cpu is TensorFlow: the requirement names it' '
	site tfcpu tensorflow_cpu &&
	"$TFBUILD" -q recipe --out out-cpu --set site="$TRASH/tfcpu" r.yaml &&
	unzip -p out-cpu/$wheel tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow-cpu<2.22,>=2.21.0" >want &&
	compare want got &&
	"$TFBUILD" verify out-cpu/$wheel 2>err &&
	grep -q "built for tensorflow_cpu 2.21.0 (StreamExecutor C API 0.0.1)" err
'

expect_success 'a header without the SE macros is refused, naming it' '
	site tfbad tensorflow &&
	sed -i "/SE_PATCH/d" "tfbad/tensorflow/include/$se" &&
	expect_code 6 "$TFBUILD" -q recipe --out out-bad --set site="$TRASH/tfbad" r.yaml 2>err &&
	cat err &&
	grep -q "framework tensorflow: .*tfbad/tensorflow/include/$se: no .#define SE_PATCH NUMBER. line" err
'

expect_success 'a recipe requires-dist wider than the window: refused at its position' '
	recipe wide.yaml "tensorflow>=2.21" &&
	expect_code 6 "$TFBUILD" -q recipe --out out-wide --set site="$TRASH/tf" wide.yaml 2>err &&
	cat err &&
	line=$(grep -n "requires-dist:" wide.yaml | cut -d: -f1) &&
	grep -q "wide.yaml:$line:[0-9]*: requires-dist: .tensorflow>=2.21. is wider than the window .<2.22,>=2.21.0." err &&
	recipe narrow.yaml "tensorflow==2.21.0" &&
	"$TFBUILD" -q recipe --out out-narrow --set site="$TRASH/tf" narrow.yaml &&
	unzip -p out-narrow/$wheel tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: tensorflow==2.21.0" >want &&
	compare want got &&
	recipe other.yaml "tensorflow<2.21" &&
	expect_code 6 "$TFBUILD" -q recipe --out out-other --set site="$TRASH/tf" other.yaml 2>err &&
	grep -q "other.yaml:$line:[0-9]*: requires-dist: .tensorflow<2.21. excludes 2.21.0, the release it was built against" err
'

expect_success 'verify refuses a missing or wider Requires-Dist' '
	repack out/$wheel missing "/^Requires-Dist/d" &&
	expect_code 6 "$TFBUILD" verify missing/*.whl 2>err &&
	cat err &&
	grep -q "missing/[^ ]*\.whl: tensorflow-plugins/libtf_m1.so: needs .libtensorflow_framework.so.2. (DT_NEEDED) from framework .tensorflow<2.22,>=2.21.0., which is not in Requires-Dist" err &&
	repack out/$wheel missing2 "/^Requires-Dist/d" tfbuild/libraries.json &&
	expect_code 6 "$TFBUILD" verify missing2/*.whl 2>err &&
	cat err &&
	grep -q "libtensorflow_framework.so.2" err &&
	repack out/$wheel wider "s/^Requires-Dist: .*/Requires-Dist: tensorflow>=2.21.0/" &&
	expect_code 6 "$TFBUILD" verify wider/*.whl 2>err &&
	cat err &&
	grep -q "wider/[^ ]*\.whl: METADATA: Requires-Dist .tensorflow>=2.21.0. is wider than the window .<2.22,>=2.21.0.: tensorflow-plugins/libtf_m1.so (a TensorFlow PluggableDevice) was built against tensorflow 2.21.0" err &&
	repack out/$wheel extra "s/^Requires-Dist: .*/Requires-Dist: tensorflow<2.22,>=2.21.0; extra == \"tf\"/" &&
	expect_code 6 "$TFBUILD" verify extra/*.whl 2>err &&
	grep -q "has no Requires-Dist on tensorflow" err &&
	repack out/$wheel judged "s/^Requires-Dist: .*/Requires-Dist: tensorflow===2.21.0/" &&
	expect_code 6 "$TFBUILD" verify judged/*.whl 2>err &&
	grep -q "(arbitrary equality) cannot be judged" err
'

# Made the way another tool would (tests/e2e/conventions/mkwheel.py): no
# record, and a library that leaves TF_NewStatus to the loader.
expect_success 'without a record: missing is refused, width cannot be judged (-v says so)' '
	cc -shared -fPIC -o se.so "$fx/plugin.c" &&
	mkw() { /usr/bin/python3 "$SRC_ROOT/tests/e2e/conventions/mkwheel.py" "$@"; } &&
	mkw tp-1.0-py3-none-linux_x86_64.whl tp 1.0 --requires "tensorflow>=1.0" \
		tensorflow-plugins/libtp.so=se.so &&
	"$TFBUILD" -v verify tp-1.0-py3-none-linux_x86_64.whl >out.txt 2>err &&
	grep -q "tp-1.0-py3-none-linux_x86_64.whl: Requires-Dist .tensorflow>=1.0.: its width cannot be judged: no .dist-info/tfbuild/framework.json" err &&
	mkw tq-1.0-py3-none-linux_x86_64.whl tq 1.0 --requires "numpy" \
		--requires "tensorflow-cpu; extra == \"cpu\"" tensorflow-plugins/libtq.so=se.so &&
	expect_code 6 "$TFBUILD" verify tq-1.0-py3-none-linux_x86_64.whl 2>err &&
	cat err &&
	grep -q "tq-1.0-py3-none-linux_x86_64.whl: tensorflow-plugins/libtq.so is a TensorFlow PluggableDevice, but METADATA has no Requires-Dist on tensorflow or tensorflow-cpu: a resolver may pair it with any release" err
'

expect_success 'a library without SE_InitPlugin: the recipe fails, verify refuses' '
	expect_code 6 "$TFBUILD" -q recipe --out out-nose --set site="$TRASH/tf" \
		--set extra=-DNO_SE r.yaml 2>err &&
	cat err &&
	grep -q "tensorflow-plugins/libtf_m1.so: a TensorFlow plugin library that does not export SE_InitPlugin" err &&
	mkdir -p nose && cp "$fx/plugin.c" nose/ &&
	cc -shared -fPIC -DNO_SE -o nose/libtf_m1.so nose/plugin.c &&
	rm -rf rp && mkdir rp && (cd rp && unzip -q ../out/$wheel) &&
	cp nose/libtf_m1.so rp/tensorflow-plugins/libtf_m1.so &&
	mkdir -p nose-out && "$tools/wheel" pack rp -d nose-out >/dev/null &&
	expect_code 6 "$TFBUILD" verify nose-out/*.whl 2>err &&
	grep -q "nose-out/[^ ]*\.whl: tensorflow-plugins/libtf_m1.so: a TensorFlow plugin library that does not export SE_InitPlugin" err
'

# torch keeps its record and exact pin byte for byte (the bytes tfbuild
# wrote before TensorFlow and JAX had records): no c-api, no window.
expect_success 'torch: the record and the requirement are unchanged' '
	mkdir -p torch/torch-1.13.0.dist-info torch/torch/lib tsrc &&
	printf "Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0\n" \
		>torch/torch-1.13.0.dist-info/METADATA &&
	printf "namespace c10 { void f(const char *) {} }\n" >fw.cc &&
	g++ -shared -fPIC -Wl,-soname,libc10.so -o torch/torch/lib/libc10.so fw.cc &&
	printf "namespace c10 { void f(const char *); }\nextern \"C\" int m1(void) { c10::f(\"x\"); return 0; }\n" >tsrc/m.cc &&
	cat >t.yaml <<-\EOF &&
	schema: 1
	name: tm
	version: 0.1.0
	targets: [x86_64]
	variables:
	  site: /nonexistent
	sources:
	  - name: src
	    path: tsrc
	steps:
	  - name: b
	    source: src
	    run: |
	      eval "$CXX $CXXFLAGS -shared -fPIC -o \"\$STAGE/_C.so\" m.cc -L${site}/torch/lib -lc10 $LDFLAGS"
	wheels:
	  - name: tm
	    version: ${version}
	    python: py3
	    abi: none
	    license: MIT
	    framework: { name: torch, site-packages: "${site}", version: "1.13" }
	    files:
	      - { from: b, src: _C.so, dst: tm }
	EOF
	"$TFBUILD" -q recipe --out out-torch --set site="$TRASH/torch" t.yaml &&
	w=out-torch/tm-0.1.0-py3-none-$plat.whl &&
	unzip -p $w tm-0.1.0.dist-info/tfbuild/framework.json >got &&
	cat >want <<-EOF &&
	{
	 "framework": {
	  "cxx11-abi": false,
	  "name": "torch",
	  "providers": [
	   {
	    "exports-sha256": "$(nm -D --defined-only torch/torch/lib/libc10.so | awk "\$2 == \"T\" { print \$3 }" | LC_ALL=C sort | sha256sum | cut -c1-64)",
	    "soname": "libc10.so"
	   }
	  ],
	  "version": "1.13.0"
	 },
	 "schema": 1
	}
	EOF
	compare want got &&
	unzip -p $w tm-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	echo "Requires-Dist: torch==1.13.0" >want &&
	compare want got &&
	"$TFBUILD" verify $w 2>err &&
	grep -qx "tfbuild: $w: built for torch 1.13.0 (pre-cxx11 ABI)" err
'

test_done
