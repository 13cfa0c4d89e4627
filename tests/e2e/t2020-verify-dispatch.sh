#!/bin/sh
# tfbuild verify on wheels no recipe declared dispatch for (docs/isa.md,
# "Run-time dispatch in wheels from elsewhere"): the audit recognises
# ifuncs, GCC's target_clones, cpuid checks beside kernels named for
# their extension and, on aarch64, getauxval(AT_HWCAP); says "undecided"
# (exit 0) where it sees a check but cannot tie the code to it; refuses
# AVX2 code with no check at all, and code built for AVX beside a check.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/dispatch"
tag=py3-none-manylinux_2_17_x86_64

# wheel NAME SOURCE [CFLAGS...]: libNAME.so built with gcc, in a wheel.
wheel() {
	name=$1 src=$2 &&
	shift 2 &&
	gcc -O2 -fPIC -shared -I"$fix" "$@" -o "lib$name.so" "$fix/$src" &&
	"$TOOL_DIR/test-wheel" pack w --name "$name" --version 1 --tag $tag \
		"lib$name.so=$name/lib$name.so"
}

expect_success 'an ifunc choosing an AVX2 candidate: baseline, and said why' '
	w=$(wheel ifn ifunc.c) &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out &&
	grep "ifn/libifn.so: x86-64-v1, with paths for avx, avx2 chosen at run time (.*1 ifunc (sum))" err &&
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep "ifn/libifn.so: isa x86-64-v3: .*chosen at run time: avx x[0-9]* (first v[a-z]* in add_wide+0x[0-9a-f]* at 0x[0-9a-f]*, an ifunc.s candidate)" err
'

expect_success 'target_clones("avx2", "default"): baseline with a chosen version' '
	w=$(wheel clones clones.c -O3) &&
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep "^ok " out &&
	grep "clones/libclones.so: isa .*first v[a-z0-9]* in sum.avx2+0x" err &&
	grep "clones/libclones.so: x86-64-v1, with paths for avx, avx2 chosen at run time (.*uses __cpu_model, 1 ifunc (sum))" err
'

expect_success 'cpuid before a kernel named for AVX2: baseline, naming the check' '
	w=$(wheel cpuid cpuid.c) &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out &&
	grep "cpuid/libcpuid.so: x86-64-v1, with paths for avx, avx2 chosen at run time (cpuid in sum+0x[0-9a-f]*)" err
'

expect_success 'cpuid, but a kernel whose name says nothing: undecided, exit 0' '
	w=$(wheel anon cpuid.c -DAVX2_NAME=sum_wide) &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out &&
	grep "warning: .*anon/libanon.so: undecided: [0-9]* instructions of x86-64-v3 (first avx: v[a-z]* in sum_wide+0x[0-9a-f]* at 0x[0-9a-f]*) in functions the audit cannot tie to the file.s run-time checks (cpuid in sum+0x[0-9a-f]*); not refused" err
'

expect_success 'AVX2 code with no run-time check at all is refused (exit 6)' '
	w=$(wheel bare cpuid.c -DUNGUARDED) &&
	! objdump -d libbare.so | grep -w cpuid &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "bare/libbare.so: needs x86-64-v3 (avx: v[a-z]* in sum_avx2+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1, and does not declare run-time dispatch" err
'

expect_success 'a library built for AVX beside a cpuid check needs AVX (exit 6)' '
	w=$(wheel built cpuid.c -mavx2 -DAVX2_NAME=sum_wide) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "built/libbuilt.so: needs x86-64-v3 (avx[2]*: v[a-z0-9]* in [a-z_0-9]*+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1: the code outside its run-time choices is built for it ([0-9]* such instructions, 0 SSE/SSE2), though the file checks the CPU (cpuid in sum+0x" err
'

if command -v aarch64-linux-gnu-gcc >/dev/null; then
	expect_success 'aarch64: getauxval(AT_HWCAP) before dot-product and LSE kernels' '
		aarch64-linux-gnu-gcc -O2 -fPIC -shared -mno-outline-atomics \
			-o libhw.so "$fix/hwcap.c" &&
		w=$("$TOOL_DIR/test-wheel" pack w --name hw --version 1 \
			--tag py3-none-manylinux_2_17_aarch64 libhw.so=hw/libhw.so) &&
		"$TFBUILD" verify -v "$w" >out 2>err &&
		grep "^ok " out &&
		grep "hw/libhw.so: isa armv8.4-a: .*chosen at run time: lse x1 (first ldaddal in add_lse+0x0 at 0x[0-9a-f]*, a function named for its extension); dotprod x1 (first udot in dot_dotprod+0x" err &&
		grep "hw/libhw.so: armv8.0-a, with paths for lse, dotprod chosen at run time (links getauxval)" err
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

test_done
