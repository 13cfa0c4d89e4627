#!/bin/sh
# m1's operations as CUDA kernels (issue 38, item 4): gpu/cuda_m1
# built with the index's nvcc (tests/lib/cuda.sh) for sm_80, sm_90 and
# compute_90, libcudart.so.13 linked dynamically (never the static
# runtime), and its test program run here: without a GPU it prints the
# one line saying why (cudaGetErrorString of cudaGetDeviceCount's error)
# and exits 0; with one, relu, add and matmul must match the CPU. The GPU
# bench (bench/gpu/) is prepared the same way and, without a GPU, says
# so and exits 2.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cuda.sh"

cuda=$(cuda_root) || exit 1
m1=$SRC_ROOT/gpu/cuda_m1

expect_success 'gpu/cuda_m1 builds with the index nvcc' '
	make -s -C "$m1" CUDA="$cuda" O="$TRASH/o" >out 2>&1 &&
	test -x o/m1_cuda_test &&
	readelf -d o/libm1_cuda.so >dyn &&
	grep -q "NEEDED.*\[libcudart\.so\.13\]" dyn &&
	nm -D --defined-only o/libm1_cuda.so >defined &&
	! grep -q " cudaGetDeviceCount" defined &&
	grep -q " m1_cuda_matmul$" defined
'

expect_success 'its fatbinary carries sm_80, sm_90 and compute_90' '
	"$cuda/bin/cuobjdump" --list-elf o/libm1_cuda.so >elf &&
	"$cuda/bin/cuobjdump" --list-ptx o/libm1_cuda.so >ptx &&
	grep -q "sm_80\.cubin$" elf &&
	grep -q "sm_90\.cubin$" elf &&
	grep -q "sm_90\.ptx$" ptx &&
	! grep -q "sm_86" elf
'

expect_success 'without a GPU it says why in one line and exits 0' '
	o/m1_cuda_test >actual 2>err &&
	test ! -s err &&
	if grep -q "^m1 CUDA: " actual; then
		tail -n 1 actual >last &&
		echo "m1 CUDA: relu, add and matmul match the CPU" >expect &&
		compare expect last
	else
		test "$(wc -l <actual)" = 1 &&
		grep -Eqx "no CUDA device: [^:]+" actual
	fi
'

expect_success 'the GPU bench is prepared with it and says there is no GPU' '
	sh "$SRC_ROOT/bench/gpu/prepare.sh" "$cuda" gpu >out 2>&1 &&
	test -x gpu/m1_cuda_bench &&
	test -e gpu/lib/libcudart.so.13 &&
	readelf -d gpu/m1_cuda_bench >dyn &&
	grep -q "RUNPATH.*\[\$ORIGIN/lib\]" dyn &&
	if o/m1_cuda_test | grep -q "^no CUDA device: "; then
		o/m1_cuda_test >line &&
		expect_code 2 sh gpu/run.sh gpu >out 2>&1 &&
		tail -n 1 out >last &&
		compare line last
	fi
'

test_done
