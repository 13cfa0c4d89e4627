#!/bin/sh
# GCC's outline atomics on aarch64 (docs/isa.md, "Run-time dispatch the
# audit recognises"): with GCC's defaults an atomic add calls libgcc's
# __aarch64_ldadd8_acq_rel, whose LDADDAL runs only where
# __aarch64_have_lse_atomics says the CPU has LSE. The audit accepts it
# without a declaration, says so with -v, and the test runs on the
# baseline CPU (cortex-a53). Inline LSE (-mno-outline-atomics
# -march=armv8.1-a) is still refused, and dies on cortex-a53; so is LSE
# in a library's own code beside the helpers, and in a function that is
# only named like a helper.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/isa.sh"

fix="$SRC_ROOT/tests/fixtures/isa"

# a53 BUILD-DIR NAME: run the recipe's test program on a Cortex-A53
# (armv8.0-a, no LSE) with the cross toolchain's arm64 libc.
a53() {
	qemu-aarch64 -cpu cortex-a53 -L /usr/aarch64-linux-gnu \
		-E LD_LIBRARY_PATH="$1/$2/aarch64/stage/lib/counter" \
		"$1/$2/aarch64/work/run/t"
}

# recipe NAME BUILD-COMMANDS ISA-YAML [notest]: a recipe building
# libcounter.so with BUILD-COMMANDS (lines after the first indented by
# six spaces), and a test calling it.
recipe() {
	isa_recipe "$1" aarch64 counter "$2" "$3" "${4-}"
}

lib='$CC $CFLAGS $LDFLAGS -shared -o "$STAGE/counter/libcounter.so"'
recipe outline "$lib counter.c" ""
recipe inline "$lib -mno-outline-atomics -march=armv8.1-a counter.c" "" notest
recipe liar "$lib -mno-outline-atomics -march=armv8.1-a counter.c" \
	"    isa: {dispatch: [counter/libcounter.so]}"
# Its own LSE code (counter_add_lse) beside libgcc's helpers.
recipe own '$CC $CFLAGS -mno-outline-atomics -march=armv8.1-a -Dcounter_add=counter_add_lse -c -o "$BUILDDIR/lse.o" counter.c
      '"$lib"' counter.c "$BUILDDIR/lse.o"' ""

expect_success 'outline atomics (GCC defaults): accepted, said so, and run on cortex-a53' '
	"$TFBUILD" -v recipe --target aarch64 --build-dir b-outline --out w-outline outline.yaml 2>err &&
	grep "counter/libcounter.so: isa armv8.0-a; accepted: lse x1 (first ldaddal in __aarch64_ldadd8_acq_rel+0x[0-9a-f]* at 0x[0-9a-f]*), libgcc.s outline atomics, chosen at run time by __aarch64_have_lse_atomics" err &&
	! grep "(dispatches)" err &&
	grep "building run@baseline for aarch64" err &&
	log=$(find b-outline -name "run@baseline*.log") &&
	grep "^counter 42\$" "$log" &&
	a53 b-outline outline >out &&
	grep "^counter 42\$" out &&
	w=$(ls w-outline/counter-1.0.0-py3-none-manylinux_*_aarch64.whl) &&
	! unzip -l "$w" | grep tfbuild-isa &&
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep "^ok " out &&
	grep "counter/libcounter.so: isa armv8.0-a; accepted: lse x1 (first ldaddal in __aarch64_ldadd8_acq_rel+0x" err
'

expect_success 'inline LSE (-mno-outline-atomics -march=armv8.1-a) is refused naming ldaddal' '
	expect_code 6 "$TFBUILD" recipe --target aarch64 --build-dir b-inline --out w-inline inline.yaml 2>err &&
	grep "wheel .counter.: counter/libcounter.so: needs armv8.1-a (lse: ldaddal in counter_add+0x[0-9a-f]* at 0x[0-9a-f]*), above armv8.0-a, and does not declare run-time dispatch" err &&
	! grep "outline atomics" err
'

expect_success 'inline LSE declared as dispatching dies on cortex-a53 (exit 132)' '
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir b-liar --out w-liar liar.yaml 2>err &&
	grep "test .run@baseline. for aarch64 hit an illegal instruction on the baseline CPU (qemu-aarch64 -cpu cortex-a53)" err &&
	grep "suspect: .*/stage/lib/counter/libcounter.so: armv8.1-a: lse x1 (first ldaddal in counter_add+0x" err &&
	log=$(find b-liar -name "run@baseline*.log") &&
	grep "uncaught target signal 4" "$log" &&
	expect_code 132 a53 b-liar liar
'

expect_success 'LSE in its own code beside the helpers is refused, naming its function' '
	expect_code 6 "$TFBUILD" -v recipe --target aarch64 --build-dir b-own --out w-own own.yaml 2>err &&
	grep "counter/libcounter.so: needs armv8.1-a (lse: ldaddal in counter_add_lse+0x[0-9a-f]* at 0x[0-9a-f]*), above armv8.0-a, and does not declare run-time dispatch" err &&
	grep "isa armv8.1-a: lse x1 (first ldaddal in counter_add_lse+0x[0-9a-f]* at 0x[0-9a-f]*); accepted: lse x1 (first ldaddal in __aarch64_ldadd8_acq_rel+0x" err
'

# Libraries built here, audited with test-isa (as tfbuild verify would).
cc=aarch64-linux-gnu-gcc
expect_success 'a helper name alone is not enough: no guard, or a flag of its own' '
	$cc -O2 -fPIC -shared -DUNGUARDED -o unguarded.so "$fix/counter.c" "$fix/counter_fake.c" &&
	$cc -O2 -fPIC -shared -DOTHER_FLAG -o otherflag.so "$fix/counter.c" "$fix/counter_fake.c" &&
	expect_code 1 "$TOOL_DIR/test-isa" audit unguarded.so=x/unguarded.so 2>err &&
	grep "x/unguarded.so: needs armv8.1-a (lse: swpa in __aarch64_swp4_acq+0x0 at 0x" err &&
	expect_code 1 "$TOOL_DIR/test-isa" audit otherflag.so=x/otherflag.so 2>err &&
	grep "x/otherflag.so: needs armv8.1-a (lse: swpa in __aarch64_swp4_acq+0xc at 0x" err
'

expect_success 'stripped, the helpers are refused with a hint; strip -w -K keeps them accepted' '
	lib=$(find b-outline -path "*stage/lib/counter/libcounter.so") &&
	aarch64-linux-gnu-strip -o stripped.so "$lib" &&
	expect_code 1 "$TOOL_DIR/test-isa" audit stripped.so=x/stripped.so 2>err &&
	grep "x/stripped.so: needs armv8.1-a (lse: ldaddal in (no symbol) at 0x[0-9a-f]*), .*; its LSE instructions are guarded as in libgcc.s outline atomics, which the audit accepts only where .symtab names them: strip with -w -K .__aarch64_\*., or declare dispatch" err &&
	aarch64-linux-gnu-strip -w -K "__aarch64_*" -o kept.so "$lib" &&
	"$TOOL_DIR/test-isa" audit kept.so=x/kept.so >out &&
	grep "^ok: x/kept.so\$" out
'

test_done
