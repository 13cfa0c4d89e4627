#!/bin/sh
# A large library's code is scanned in parts, one thread each, starting
# on function starts (x86-64) or words (aarch64): the report, first
# instructions, counts and run-time checks included, is the one a
# single scan gives. TFBUILD_ISA_THREADS forces the number of parts.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/dispatch"

# same FILE...: test-isa scan in 1, 2, 3 and 7 parts says the same.
same() {
	TFBUILD_ISA_THREADS=1 "$TOOL_DIR/test-isa" scan "$@" >one &&
	grep -v ": nothing to audit\$" one >/dev/null &&
	for n in 2 3 7; do
		TFBUILD_ISA_THREADS=$n "$TOOL_DIR/test-isa" scan "$@" >parts &&
		compare one parts || return 1
	done
}

expect_success 'x86-64: gcc-built kernels, dispatch and AVX code' '
	gcc -O2 -fPIC -shared -I"$fix" -o libifunc.so "$fix/ifunc.c" &&
	gcc -O3 -fPIC -shared -I"$fix" -o libclones.so "$fix/clones.c" &&
	gcc -O2 -fPIC -shared -I"$fix" -mavx2 -DAVX2_NAME=sum_wide \
		-o libbuilt.so "$fix/cpuid.c" &&
	same libifunc.so libclones.so libbuilt.so &&
	grep "libbuilt.so: x86-64-v3: avx" one
'

expect_success 'x86-64: libraries of the system, with thousands of functions' '
	for l in libcrypto.so.3 libcapstone.so.4 libc.so.6; do
		f=$(gcc -print-file-name=$l) &&
		test -f "$f" &&
		cp "$f" . || return 1
	done &&
	same libcrypto.so.3 libcapstone.so.4 libc.so.6 &&
	grep "libcrypto.so.3: x86-64 extensions: .*run-time checks: cpuid at 0x" one
'

if command -v aarch64-linux-gnu-gcc >/dev/null; then
	expect_success 'aarch64: a library of the system and the dispatch fixture' '
		aarch64-linux-gnu-gcc -O2 -fPIC -shared -mno-outline-atomics \
			-o libhw.so "$fix/hwcap.c" &&
		cp "$(aarch64-linux-gnu-gcc -print-file-name=libc.so.6)" libc-a64.so &&
		same libhw.so libc-a64.so &&
		grep "libhw.so: armv8.4-a: " one
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

test_done
