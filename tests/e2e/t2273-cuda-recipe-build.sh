#!/bin/sh
# A recipe that compiles CUDA (issue 38, items 1 and 3): its step runs
# the index's nvcc (tests/lib/cuda.sh), reached through the recipe's
# `sandbox: {read: [...]}`, for the architectures the wheel declares in
# `cuda-archs`; the wheel carries the record and `tfbuild verify` with
# the index's cuobjdump passes it. /usr/local/cuda is hidden from the
# whole run (a private mount namespace: the step sandbox binds /usr
# whole, so the test hides it), and the step shows it cannot see it;
# without the hiding the same probe sees /usr/local/cuda/bin/nvcc where
# the machine has it.
# The same recipe declaring an architecture its nvcc flags do not build
# packs, and verify refuses the wheel naming the architecture.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cuda.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }
if test -e /usr/local/cuda && ! unshare -m sh -c 'mount -t tmpfs none /usr/local/cuda' 2>/dev/null; then
	skip "/usr/local/cuda cannot be hidden here (unshare -m, mount: root only)"
	test_done
	exit 0
fi

cuda=$(cuda_root) || exit 1
TFBUILD_CUOBJDUMP=$cuda/bin/cuobjdump
export TFBUILD_CUOBJDUMP
SQ="'"

# hidden CMD...: CMD with every /usr/local/cuda* covered by an empty
# tmpfs, in a mount namespace of its own (the machine's stays as it is).
hidden() {
	unshare -m sh -c 'for d in /usr/local/cuda*; do
		test ! -d "$d" || mount -t tmpfs tfbuild-hidden "$d" || exit 1
	done && exec "$@"' sh "$@"
}

mkdir -p p && cp "$SRC_ROOT/tests/fixtures/cuda/relu.cu" p/relu.cu

# recipe ARCHS: p/m1cuda.yaml, whose step builds SASS for sm_80 and
# sm_90 and PTX for compute_90, and whose wheel declares ARCHS.
recipe() {
	cat >p/m1cuda.yaml <<-EOF
	schema: 1
	name: m1cuda
	version: 1.0.0
	sandbox: {read: ["$cuda"]}
	steps:
	  - name: kernels
	    run: |
	      if test -e /usr/local/cuda/bin/nvcc; then echo visible; else echo hidden; fi >"\$STAGE/usr-local-cuda"
	      mkdir -p "\$STAGE/m1cuda"
	      env -u CUDA_HOME -u CUDA_PATH "$cuda/bin/nvcc" -shared -Xcompiler -fPIC \\
	        -gencode arch=compute_80,code=sm_80 \\
	        -gencode "arch=compute_90,code=[sm_90,compute_90]" \\
	        -o "\$STAGE/m1cuda/libm1cuda.so" "$TRASH/p/relu.cu"
	wheels:
	  - name: m1cuda
	    version: 1.0.0
	    cuda-archs: $1
	    files:
	      - {from: kernels, src: m1cuda, dst: .}
	EOF
}

stage=p/build/m1cuda/x86_64/stage/kernels

expect_success 'the recipe builds with the index nvcc, /usr/local/cuda hidden' '
	recipe "[sm_80, sm_90, compute_90]" &&
	hidden "$TFBUILD" -q recipe --out w p/m1cuda.yaml 2>err &&
	echo hidden >expect &&
	compare expect $stage/usr-local-cuda &&
	readelf -S $stage/m1cuda/libm1cuda.so >sections &&
	grep -q "\.nv_fatbin" sections &&
	(cd w && ls m1cuda-1.0.0-py3-none-manylinux_*_x86_64.whl)
'

expect_success 'without the hiding the same step sees /usr/local/cuda (the probe is real)' '
	if test -e /usr/local/cuda/bin/nvcc; then echo visible; else echo hidden; fi >expect &&
	"$TFBUILD" -q recipe --force --out w-seen p/m1cuda.yaml 2>err &&
	compare expect $stage/usr-local-cuda
'

expect_success 'verify lists its GPU code and passes the wheel' '
	whl=$(cd w && echo m1cuda-1.0.0-*.whl) &&
	"$TFBUILD" verify -v w/$whl 2>err &&
	grep "GPU code" err >actual &&
	echo "tfbuild: w/$whl: m1cuda/libm1cuda.so: GPU code: sm_80 sm_90 compute_90" >expect &&
	compare expect actual &&
	unzip -p w/$whl m1cuda-1.0.0.dist-info/tfbuild/cuda-archs >actual &&
	printf "sm_80\nsm_90\ncompute_90\n" >expect &&
	compare expect actual
'

expect_success 'an architecture the flags do not build: packed, then refused by verify' '
	recipe "[sm_80, sm_86, sm_90, compute_90]" &&
	hidden "$TFBUILD" -q recipe --out w86 p/m1cuda.yaml 2>err &&
	whl=$(cd w86 && echo m1cuda-1.0.0-*.whl) &&
	expect_code 6 "$TFBUILD" verify w86/$whl 2>actual &&
	echo "tfbuild: w86/$whl: m1cuda/libm1cuda.so: its GPU code lacks the declared architecture sm_86 (it carries sm_80 sm_90 compute_90)" >expect &&
	compare expect actual
'

test_done
