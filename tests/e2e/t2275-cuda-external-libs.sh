#!/bin/sh
# Libraries taken from other wheels (issue 38, item 2): a CUDA recipe's
# wheel declares `external-libraries: {libcudart.so.13:
# nvidia-cuda-runtime}`, the runtime being a target wheel pinned in the
# lock (the index's wheel, by the digest tests/requirements/
# cuda-toolchain.txt pins: the download is the one tests/lib/cuda.sh
# keeps). tfbuild neither vendors nor refuses libcudart: it finds it in
# the runtime's RECORD (nvidia/cu13/lib/libcudart.so.13), writes the
# RUNPATH that reaches it from the plugin ($ORIGIN/../nvidia/cu13/lib),
# or keeps the one the build wrote, requires nvidia-cuda-runtime from
# the pinned version to the next major, and records it in
# libraries.json and the SBOM. verify passes the wheel and refuses
# copies whose RUNPATH misses libcudart, which carry libcudart, or whose
# Requires-Dist lacks the runtime or excludes the pinned version; the
# recipe's own mistakes stop it at their FILE:LINE:COL. In a fresh venv
# pip brings nvidia-cuda-runtime with the wheel and the plugin loads
# libcudart from site-packages through its RUNPATH (no GPU needed); the
# copy with the wrong RUNPATH does not load.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cuda.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

cuda=$(cuda_root) || exit 1
req=$SRC_ROOT/tests/requirements/cuda-toolchain.txt
wheels=$(cuda_wheels "$req") || exit 1
TFBUILD_CUOBJDUMP=$cuda/bin/cuobjdump
export TFBUILD_CUOBJDUMP
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
runtime=$(echo "$wheels"/nvidia_cuda_runtime-13.5.37-*.whl)
unset LD_LIBRARY_PATH

mkdir -p p && cp "$SRC_ROOT/tests/fixtures/cuda/relu.cu" p/relu.cu

# recipe DIST [LINK [REQUIRES]]: p/m1cuda.yaml, whose step links the
# kernels against libcudart (LINK: more nvcc flags) and whose wheel takes
# libcudart.so.13 from DIST.
recipe() {
	cat >p/m1cuda.yaml <<-EOF
	schema: 1
	name: m1cuda
	version: 1.0.0
	sandbox: {read: ["$cuda"]}
	target-wheels:
	  x86_64: ["nvidia-cuda-runtime==13.5.37"]
	steps:
	  - name: kernels
	    run: |
	      mkdir -p "\$STAGE/m1cuda"
	      env -u CUDA_HOME -u CUDA_PATH "$cuda/bin/nvcc" -shared -Xcompiler -fPIC \\
	        -cudart shared -gencode arch=compute_80,code=sm_80 ${2:-} \\
	        -o "\$STAGE/m1cuda/libm1cuda.so" "$TRASH/p/relu.cu"
	wheels:
	  - name: m1cuda
	    version: 1.0.0
	    cuda-archs: [sm_80]
	    requires-dist: [${3:-}]
	    external-libraries:
	      libcudart.so.13: $1
	    files:
	      - {from: kernels, src: m1cuda, dst: .}
	EOF
}

stage=p/build/m1cuda/x86_64/stage/kernels/m1cuda/libm1cuda.so
# The build's own RUNPATH, as the recipe writes it ($$ is a literal $).
keep_flag='-Xlinker -rpath=\$$ORIGIN/../nvidia/cu13/lib'
so=m1cuda/libm1cuda.so
# runpath FILE: its DT_RUNPATH, or nothing.
runpath() {
	readelf -d "$1" | sed -n "s/.*(RUNPATH).*\[\(.*\)\]$/\1/p"
}

expect_success 'lock pins the runtime the index serves (the digest cuda-toolchain.txt pins)' '
	recipe nvidia-cuda-runtime &&
	PIP_NO_INDEX=1 PIP_FIND_LINKS=$wheels "$TFBUILD" lock p/m1cuda.yaml >out 2>err &&
	digest=$(sed -n "/^nvidia-cuda-runtime==/,/hash/s/.*sha256:\([0-9a-f]*\).*/\1/p" "$req") &&
	echo "x86_64 nvidia-cuda-runtime==13.5.37: pinned $(basename "$runtime") (sha256 $digest)" >expect &&
	compare expect out
'

expect_success 'the wheel builds; tfbuild writes the RUNPATH that reaches libcudart' '
	"$TFBUILD" -q recipe --out w p/m1cuda.yaml 2>err &&
	whl=$(cd w && echo m1cuda-1.0.0-*_x86_64.whl) &&
	test -f "w/$whl" &&
	runpath $stage >actual &&
	test ! -s actual &&
	rm -rf x && mkdir x && (cd x && unzip -q "../w/$whl") &&
	runpath x/$so >actual &&
	echo "\$ORIGIN/../nvidia/cu13/lib" >expect &&
	compare expect actual &&
	readelf -d x/$so | grep -q "NEEDED.*\[libcudart.so.13\]" &&
	! find x -name "libcudart*" | grep .
'
whl=$(cd w 2>/dev/null && echo m1cuda-1.0.0-*_x86_64.whl)

expect_success 'Requires-Dist: the runtime from the pinned version to the next major' '
	unzip -p "w/$whl" m1cuda-1.0.0.dist-info/METADATA | grep "^Requires-Dist" >actual &&
	echo "Requires-Dist: nvidia-cuda-runtime<14,>=13.5.37" >expect &&
	compare expect actual
'

expect_success 'libraries.json and the SBOM record it, the path and hash from the runtime'"'"'s RECORD' '
	unzip -p "$runtime" "nvidia_cuda_runtime-13.5.37.dist-info/RECORD" |
		grep "/libcudart.so.13," | cut -d, -f1,2 >expect &&
	test "$(wc -l <expect)" = 1 &&
	unzip -p "w/$whl" m1cuda-1.0.0.dist-info/tfbuild/libraries.json >libs.json &&
	"$PYTHON" -c "
import json, sys
[l] = json.load(open(\"libs.json\"))[\"libraries\"]
assert l[\"resolution\"] == \"external\", l
assert l[\"distribution\"] == \"nvidia-cuda-runtime\" and l[\"version\"] == \"13.5.37\", l
assert l[\"requirement\"] == \"nvidia-cuda-runtime<14,>=13.5.37\", l
print(l[\"file\"] + \",\" + l[\"hash\"])
" >actual &&
	compare expect actual &&
	unzip -p "w/$whl" m1cuda-1.0.0.dist-info/sboms/tfbuild.cdx.json >sbom.json &&
	"$PYTHON" -c "
import json
d = json.load(open(\"sbom.json\"))
[c] = [c for c in d[\"components\"] if c[\"name\"] == \"nvidia-cuda-runtime\"]
props = {p[\"name\"]: p[\"value\"] for p in c[\"properties\"]}
print(c[\"scope\"], props[\"tfbuild:use\"], props[\"tfbuild:external-libraries\"])
" >actual &&
	echo "required build run libcudart.so.13" >expect &&
	compare expect actual
'

expect_success 'verify passes the wheel and says where libcudart comes from' '
	"$TFBUILD" verify -v "w/$whl" >out 2>err &&
	grep "needs .libcudart.so.13.: external" err >actual &&
	echo "tfbuild: w/$whl: $so: needs '"'"'libcudart.so.13'"'"': external, nvidia/cu13/lib/libcudart.so.13 from nvidia-cuda-runtime 13.5.37" >expect &&
	compare expect actual
'

# bad NAME EDIT...: a copy of the wheel under bad/NAME, edited by rewheel.py.
bad() {
	name=$1 && shift &&
	mkdir -p "bad/$name" &&
	"$PYTHON" "$TESTS_DIR/lib/rewheel.py" "w/$whl" "bad/$name/$whl" "$@"
}

expect_success 'verify refuses a RUNPATH that does not reach libcudart inside nvidia-cuda-runtime' '
	bad runpath "sub|$so|\$ORIGIN/../nvidia/cu13/lib|\$ORIGIN/../nvidia/cu12/lib" &&
	expect_code 6 "$TFBUILD" verify "bad/runpath/$whl" 2>actual &&
	echo "tfbuild: bad/runpath/$whl: $so: needs '"'"'libcudart.so.13'"'"' (DT_NEEDED), external, from nvidia-cuda-runtime 13.5.37 at '"'"'nvidia/cu13/lib/libcudart.so.13'"'"' (its RECORD), but its RUNPATH ('"'"'\$ORIGIN/../nvidia/cu12/lib'"'"') does not reach it there ('"'"'\$ORIGIN/../nvidia/cu13/lib'"'"' would)" >expect &&
	compare expect actual
'

expect_success 'verify refuses a wheel that vendors libcudart while declaring it external' '
	unzip -p "$runtime" nvidia/cu13/lib/libcudart.so.13 >libcudart.so.13 &&
	bad vendored "add:m1cuda/libcudart.so.13:libcudart.so.13" &&
	expect_code 6 "$TFBUILD" verify "bad/vendored/$whl" 2>actual &&
	echo "tfbuild: bad/vendored/$whl: m1cuda/libcudart.so.13: the wheel carries '"'"'libcudart.so.13'"'"', which it declares external (from nvidia-cuda-runtime 13.5.37 at '"'"'nvidia/cu13/lib/libcudart.so.13'"'"'): it must not vendor it" >expect &&
	compare expect actual
'

expect_success 'verify refuses an external library whose distribution is not in Requires-Dist' '
	bad unrequired "drop-line:*/METADATA:Requires-Dist: nvidia-cuda-runtime" &&
	expect_code 6 "$TFBUILD" verify "bad/unrequired/$whl" 2>actual &&
	echo "tfbuild: bad/unrequired/$whl: m1cuda-1.0.0.dist-info/tfbuild/libraries.json: external library '"'"'libcudart.so.13'"'"' is from nvidia-cuda-runtime, which is not in Requires-Dist" >expect &&
	compare expect actual &&
	bad older "sub:*/METADATA:nvidia-cuda-runtime<14,>=13.5.37:nvidia-cuda-runtime<13.5,>=13" &&
	expect_code 6 "$TFBUILD" verify "bad/older/$whl" 2>actual &&
	echo "tfbuild: bad/older/$whl: m1cuda-1.0.0.dist-info/tfbuild/libraries.json: external library '"'"'libcudart.so.13'"'"' is from nvidia-cuda-runtime 13.5.37, which Requires-Dist '"'"'nvidia-cuda-runtime<13.5,>=13'"'"' does not admit" >expect &&
	compare expect actual
'

expect_success 'a RUNPATH the build wrote that reaches it is kept; the file is packed as built' '
	recipe nvidia-cuda-runtime "$keep_flag" &&
	"$TFBUILD" -q recipe --out w2 p/m1cuda.yaml 2>err &&
	echo "\$ORIGIN/../nvidia/cu13/lib" >expect &&
	runpath $stage >actual &&
	compare expect actual &&
	rm -rf x2 && mkdir x2 && (cd x2 && unzip -q "../w2/$whl") &&
	cmp $stage x2/$so
'

expect_success 'the recipe'"'"'s mistakes stop it at their place, before anything runs' '
	recipe nvidia-cublas &&
	expect_code 3 "$TFBUILD" recipe --out w3 p/m1cuda.yaml 2>actual &&
	echo "tfbuild: p/m1cuda.yaml:20:24: external library '"'"'libcudart.so.13'"'"' is from '"'"'nvidia-cublas'"'"', which is not a target wheel of target x86_64 (add '"'"'nvidia-cublas==VERSION'"'"' to target-wheels and pin it in p/m1cuda.lock.json with '"'"'tfbuild lock'"'"')" >expect &&
	compare expect actual &&
	recipe nvidia-cuda-runtime "" "\"nvidia-cuda-runtime>=13.6\"" &&
	expect_code 3 "$TFBUILD" recipe --out w3 p/m1cuda.yaml 2>actual &&
	echo "tfbuild: p/m1cuda.yaml:18:21: requires-dist '"'"'nvidia-cuda-runtime>=13.6'"'"' does not admit nvidia-cuda-runtime 13.5.37, which provides external library '"'"'libcudart.so.13'"'"' and was pinned for the build" >expect &&
	compare expect actual &&
	recipe "\"not a name!\"" &&
	expect_code 3 "$TFBUILD" recipe --out w3 p/m1cuda.yaml 2>actual &&
	echo "tfbuild: p/m1cuda.yaml:20:24: '"'"'not a name!'"'"' is not a distribution name (a target wheel'"'"'s: nvidia-cuda-runtime)" >expect &&
	compare expect actual &&
	recipe nvidia-cuda-runtime &&
	sed "s/^    cuda-archs: .*/&\n    libraries: {libcudart.so.13: system}/" p/m1cuda.yaml >p/dup.yaml &&
	expect_code 3 "$TFBUILD" recipe --out w3 p/dup.yaml 2>actual &&
	echo "tfbuild: p/dup.yaml:21:7: '"'"'libcudart.so.13'"'"' is in '"'"'external-libraries'"'"' and in '"'"'libraries'"'"' (at p/dup.yaml:18:17): resolve it one way" >expect &&
	compare expect actual &&
	test ! -d w3
'

# venv DIR WHEEL: a fresh venv with WHEEL installed by pip, its runtime
# from the index pip is configured with (at the pinned version).
venv() {
	/usr/bin/python3 -m venv --without-pip "$1" &&
	echo "nvidia-cuda-runtime==13.5.37" >constraints.txt &&
	"$tools/python" -m pip --disable-pip-version-check --python "$1/bin/python" \
		install -q -c constraints.txt "$2"
}
load='import ctypes, sysconfig
ctypes.CDLL(sysconfig.get_paths()["platlib"] + "/m1cuda/libm1cuda.so")
print("loaded")'

expect_success 'pip brings nvidia-cuda-runtime; the plugin loads libcudart from site-packages' '
	venv v "w/$whl" &&
	v/bin/python -c "import importlib.metadata as m; print(m.version(\"nvidia-cuda-runtime\"))" >actual &&
	echo 13.5.37 >expect &&
	compare expect actual &&
	site=$(v/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"platlib\"])") &&
	(cd / && LD_DEBUG=libs "$TRASH/v/bin/python" -c "$load") >out 2>debug &&
	echo loaded >expect &&
	compare expect out &&
	grep "calling init: .*libcudart" debug | sed "s/.*calling init: //" >actual &&
	echo "$site/m1cuda/../nvidia/cu13/lib/libcudart.so.13" >expect &&
	compare expect actual
'

# Without the RUNPATH the loader finds no libcudart, or the machine's
# (this one has /usr/local/lib/libcudart.so.13 in ld.so.cache): never
# the one pip installed.
expect_success 'the copy whose RUNPATH misses it does not load the runtime pip installed' '
	venv vbad "bad/runpath/$whl" &&
	site=$(vbad/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"platlib\"])") &&
	test -f "$site/nvidia/cu13/lib/libcudart.so.13" &&
	if (cd / && LD_DEBUG=libs "$TRASH/vbad/bin/python" -c "$load") >out 2>debug
	then
		grep "calling init: .*libcudart" debug >inits &&
		! grep -q "$site" inits
	else
		grep -q "libcudart.so.13: cannot open shared object file" debug
	fi
'

test_done
