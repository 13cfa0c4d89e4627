#!/bin/sh
# Issue 39, a new user's point 2: kernels named for the CPU GCC builds
# them for (simdjson's westmere and haswell, target("arch=CPU")) and
# chosen by __builtin_cpu_supports are run-time choices for every CPU
# name GCC's -march knows that the audit lists (isa_dispatch.c), and
# only for that CPU's features: a "westmere" kernel holding AVX2 is not
# one (docs/isa.md).
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/dispatch"
tag=py3-none-manylinux_2_17_x86_64

# wheel NAME [CFLAGS...]: libNAME.so of cpunames.c, in a wheel.
wheel() {
	name=$1 &&
	shift &&
	gcc -O3 -fPIC -shared "$@" -o "lib$name.so" "$fix/cpunames.c" &&
	"$TOOL_DIR/test-wheel" pack w --name "$name" --version 1 --tag $tag \
		"lib$name.so=$name/lib$name.so"
}

expect_success 'westmere and haswell kernels chosen by __builtin_cpu_supports: baseline' '
	w=$(wheel simd) &&
	objdump -d libsimd.so >dis &&
	sed -n "/<sum_westmere>:/,/^\$/p" dis | grep -w crc32 &&
	sed -n "/<sum_westmere>:/,/^\$/p" dis | grep -w pclmullqlqdq &&
	! sed -n "/<sum_westmere>:/,/^\$/p" dis | grep -w "v[a-z]*" &&
	sed -n "/<sum_haswell>:/,/^\$/p" dis | grep -q ymm &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out &&
	! grep undecided err &&
	grep "simd/libsimd.so: x86-64-v1, with paths for sse4.2, popcnt, avx, avx2, pclmul chosen at run time (.*uses __cpu_model)" err &&
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep "chosen at run time: sse4.2 x1 (first crc32 in sum_westmere+0x[0-9a-f]* at 0x[0-9a-f]*, a function named for its extension)" err
'

expect_success 'each CPU name GCC knows is a choice for its own features' '
	for cpu in nehalem:-DNO_PCLMUL core2:-DNO_PCLMUL sandybridge ivybridge \
		broadwell silvermont goldmont znver1 znver2 znver3 skylake \
		icelake-client:-DWNAME=sum_icelake cascadelake; do
		arch=${cpu%%:*} &&
		flags=$(echo "$cpu" | sed -n "s/^[^:]*://p") &&
		case $arch in core2) flags="$flags -DNO_CRC" ;; esac &&
		w=$(wheel "k$arch" -DWEST=$arch -DWNAME=sum_$arch $flags) &&
		"$TFBUILD" verify "$w" >out 2>err &&
		grep -q "x86-64-v1, with paths for .* chosen at run time" err &&
		! grep undecided err || { echo "$arch:"; cat err; exit 1; }
	done
'

expect_success 'a kernel named westmere that holds AVX2 is no choice: undecided' '
	w=$(wheel over -DWEST=haswell) &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out &&
	grep "warning: .*over/libover.so: undecided: [0-9]* instructions of x86-64-v3 (first avx[2]*: v[a-z]* in sum_westmere+0x[0-9a-f]* at 0x[0-9a-f]*) in functions the audit cannot tie to the file.s run-time checks" err
'

expect_success 'with no run-time check at all the CPU names count for nothing (exit 6)' '
	w=$(wheel bare -DUNGUARDED) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "bare/libbare.so: needs x86-64 extensions (avx[2]*: v[a-z]* in sum_haswell+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1, and does not declare run-time dispatch" err
'

test_done
