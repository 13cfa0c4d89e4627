#!/bin/sh
# The aarch64 counterpart of t1101 (docs/isa.md): a dot-product kernel
# (-march=armv8.2-a+dotprod) with no dispatch is refused by the audit;
# declared as dispatching when it does not, its test passes under the
# default qemu-aarch64 CPU and dies on the baseline one (cortex-a53).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/isa.sh"

fix="$SRC_ROOT/tests/fixtures/isa"

# recipe NAME ISA-YAML [notest]: libdot built for dotprod, and a test.
recipe() {
	isa_recipe "$1" aarch64 dot \
		"\$CC \$CFLAGS -march=armv8.2-a+dotprod \$LDFLAGS -shared -o \"\$STAGE/dot/libdot.so\" dot.c" \
		"$2" "${3-}"
}

recipe plain "" notest
recipe liar "    isa: {dispatch: [dot/libdot.so]}"

expect_success 'dotprod code without dispatch is refused, naming function and instruction' '
	expect_code 6 "$TFBUILD" recipe --target aarch64 --build-dir b-plain --out w-plain plain.yaml 2>err &&
	grep "wheel .dot.: dot/libdot.so: needs armv8.4-a (dotprod: udot in dot_u8+0x[0-9a-f]* at 0x[0-9a-f]*), above armv8.0-a, and does not declare run-time dispatch" err
'

expect_success 'declared but not dispatching: caught under qemu-aarch64 -cpu cortex-a53' '
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir b-liar --out w-liar liar.yaml 2>err &&
	grep "building run for aarch64" err &&
	! grep "step .run. for aarch64 failed" err &&
	grep "test .run@baseline. for aarch64 hit an illegal instruction on the baseline CPU (qemu-aarch64 -cpu cortex-a53)" err &&
	grep "suspect: .*/stage/lib/dot/libdot.so: .*dotprod x1 (first udot in dot_u8+0x" err
'

test_done
