#!/bin/sh
# The GPU-code audit (issue 38, item 3): `tfbuild verify` lists the SASS
# and PTX architectures of every ELF file with a .nv_fatbin section
# (cuobjdump from the index's nvidia-cuda-cuobjdump wheel, given as
# TFBUILD_CUOBJDUMP) and checks them against the wheel's
# .dist-info/tfbuild/cuda-archs. The library is compiled here by nvcc from
# the index's nvidia-cuda-nvcc wheel, with /usr/local/cuda out of reach,
# for sm_80 and sm_90 with PTX for compute_90.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cuda.sh"

expect_success 'nvcc from the index compiles without /usr/local/cuda' '
	cp "$SRC_ROOT/tests/fixtures/cuda/relu.cu" relu.cu &&
	cat >add.cu <<-\EOF &&
	__global__ void add(const float *a, const float *b, float *c, int n)
	{
		int i = blockIdx.x * blockDim.x + threadIdx.x;
		if (i < n)
			c[i] = a[i] + b[i];
	}
	extern "C" int m1_add(const float *a, const float *b, float *c, int n)
	{
		add<<<(n + 255) / 256, 256>>>(a, b, c, n);
		return 0;
	}
	EOF
	set -- -shared -Xcompiler -fPIC \
		-gencode arch=compute_80,code=sm_80 \
		-gencode "arch=compute_90,code=[sm_90,compute_90]" \
		-o libm1cuda.so relu.cu add.cu &&
	cuda_nvcc --dryrun "$@" >dry 2>&1 &&
	! grep /usr/local/cuda dry &&
	cuda_nvcc "$@" &&
	readelf -S libm1cuda.so >sections &&
	grep -q "\.nv_fatbin" sections
'

TFBUILD_CUOBJDUMP=$(cuda_root)/bin/cuobjdump
export TFBUILD_CUOBJDUMP
maker=$TESTS_DIR/lib/cuda-wheel.py
whl=py3-none-manylinux_2_36_x86_64.whl

expect_success 'a wheel that declares what its GPU code carries passes' '
	"$PYTHON" "$maker" . good 1.0 libm1cuda.so sm_80 sm_90 compute_90 &&
	tfbuild verify -v good-1.0-$whl 2>err &&
	grep "GPU code" err >actual &&
	echo "tfbuild: good-1.0-$whl: good/libm1cuda.so: GPU code: sm_80 sm_90 compute_90" >expect &&
	compare expect actual
'

expect_success 'a wheel whose GPU code lacks a declared architecture is refused' '
	"$PYTHON" "$maker" . missing 1.0 libm1cuda.so sm_80 sm_86 sm_90 &&
	expect_code 6 tfbuild verify missing-1.0-$whl 2>actual &&
	echo "tfbuild: missing-1.0-$whl: missing/libm1cuda.so: its GPU code lacks the declared architecture sm_86 (it carries sm_80 sm_90 compute_90)" >expect &&
	compare expect actual
'

expect_success 'PTX is not SASS: compute_80 is not carried' '
	"$PYTHON" "$maker" . ptx 1.0 libm1cuda.so compute_80 &&
	expect_code 6 tfbuild verify ptx-1.0-$whl 2>actual &&
	echo "tfbuild: ptx-1.0-$whl: ptx/libm1cuda.so: its GPU code lacks the declared architecture compute_80 (it carries sm_80 sm_90 compute_90)" >expect &&
	compare expect actual
'

expect_success 'a tfbuild wheel with GPU code and no declaration is refused' '
	"$PYTHON" "$maker" . undeclared 1.0 libm1cuda.so &&
	expect_code 6 tfbuild verify undeclared-1.0-$whl 2>actual &&
	echo "tfbuild: undeclared-1.0-$whl: undeclared/libm1cuda.so: carries GPU code (sm_80 sm_90 compute_90) but the wheel declares no CUDA architectures (cuda-archs)" >expect &&
	compare expect actual
'

expect_success 'a declaration that is not an architecture is refused' '
	"$PYTHON" "$maker" . bad 1.0 libm1cuda.so sm_80 sm80 &&
	expect_code 6 tfbuild verify bad-1.0-$whl 2>actual &&
	echo "tfbuild: bad-1.0-$whl: bad-1.0.dist-info/tfbuild/cuda-archs: '"'"'sm80'"'"' is not a CUDA architecture (sm_NN or compute_NN)" >expect &&
	compare expect actual
'

expect_success 'without cuobjdump a declared wheel cannot pass unaudited' '
	expect_code 6 env -u TFBUILD_CUOBJDUMP "$TFBUILD" verify \
		good-1.0-$whl 2>actual &&
	echo "tfbuild: good-1.0-$whl: good/libm1cuda.so: carries GPU code (.nv_fatbin) and no cuobjdump is given to list it (TFBUILD_CUOBJDUMP)" >expect &&
	compare expect actual
'

test_done
