#!/bin/sh
# tier: expensive (530 MB of CUDA wheels audited; make test QUICK=1 skips it, CI runs it)
# The GPU-code audit on real wheels from the index (issue 38, item 3):
# `tfbuild verify -v` lists the architectures of jax-cuda13-pjrt's
# plugin and of cuBLAS's two libraries, pinned by sha256
# (tests/requirements/cuda-audit-real.txt), downloaded once per test
# cache. Neither is a tfbuild wheel and neither declares cuda-archs, so
# the lists are reported, not checked; jax's plugin is refused by the
# CPU-side ISA audit (docs/frameworks.md), which this test does not
# repeat.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cuda.sh"

TFBUILD_CUOBJDUMP=$(cuda_root)/bin/cuobjdump
export TFBUILD_CUOBJDUMP
real=$(cuda_wheels "$SRC_ROOT/tests/requirements/cuda-audit-real.txt")

# gpu_lines WHEEL: the GPU lines verify -v wrote to err, the wheel's
# path dropped.
gpu_lines() {
	sed -n "s|^tfbuild: $1: \(.*GPU code: .*\)|\1|p" err
}

expect_success 'jax-cuda13-pjrt: its plugin'"'"'s SASS and PTX are listed' '
	jax=$(echo "$real"/jax_cuda13_pjrt-0.12.0.1-*.whl) &&
	expect_code 6 "$TFBUILD" verify -v "$jax" >out 2>err &&
	gpu_lines "$jax" >actual &&
	cat >expect <<-\EOF &&
	jax_plugins/xla_cuda13/xla_cuda_plugin.so: GPU code: sm_75 sm_80 sm_90 sm_100 sm_110 sm_120 compute_120
	EOF
	compare expect actual
'

expect_success 'nvidia-cublas: passes, each library listed' '
	cublas=$(echo "$real"/nvidia_cublas-13.10.0.20-*.whl) &&
	"$TFBUILD" verify -v "$cublas" >out 2>err &&
	gpu_lines "$cublas" >actual &&
	cat >expect <<-\EOF &&
	nvidia/cu13/lib/libcublas.so.13: GPU code: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120
	nvidia/cu13/lib/libcublasLt.so.13: GPU code: sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_103 sm_120 sm_121 compute_75 compute_120
	EOF
	compare expect actual
'

test_done
