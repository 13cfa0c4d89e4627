#!/bin/sh
# tier: expensive (jaxlib's release wheel; make test QUICK=1 skips it, CI runs it)
# The released jaxlib 0.10.2 x86_64 wheel from the index, if
# bench/third-party-verify.sh already put it in its cache (CI does not
# download gigabytes for this): verify finishes and says that
# libjax_common.so needs AVX, naming the instruction, though it checks
# the CPU (docs/frameworks.md, "tfbuild verify on released framework
# wheels").
. "$(dirname "$0")/../lib/test-lib.sh"

cache=${TFBUILD_BENCH_CACHE:-/var/cache/tfbuild-bench}
w=$cache/jaxlib-0.10.2-cp311-cp311-manylinux_2_27_x86_64.whl
if test -f "$w"; then
	expect_success 'released jaxlib: libjax_common.so needs AVX though it checks the CPU' '
		expect_code 6 "$TFBUILD" verify "$w" 2>err &&
		grep "jaxlib/libjax_common.so: needs x86-64 extensions (avx: vmovd in _ZNK3xla14HloComputation13AcceptOrdered.*: the code outside its run-time choices is built for it ([0-9]* such instructions, [0-9]* SSE/SSE2), though the file checks the CPU (cpuid in OPENSSL_cpuid_setup+0x" err
	'
else
	skip "$w is not in the bench cache (bench/third-party-verify.sh downloads it)"
fi

test_done
