#!/bin/sh
# libgcc's outline atomics that .symtab does not name (docs/isa.md,
# "Run-time dispatch the audit recognises"): a library using several
# atomic operations (GCC's default -moutline-atomics links several
# helpers) with some helper symbols stripped is accepted on the code's
# evidence, -v names the unnamed helpers, and it runs on a Cortex-A53
# (armv8.0-a, no LSE). Refused as before: inline LSE in an unnamed
# function beside them, a helper-shaped guard on another byte, a
# "helper" whose fallback uses LSE too, and a file stripped of .symtab.
# What llvm-bolt leaves of a helper it moved (its entry patched to jump
# to the new copy) is accepted.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/isa"
cc=aarch64-linux-gnu-gcc
strip=aarch64-linux-gnu-strip
# The helpers t2230 strips; __aarch64_cas8_acq, __aarch64_ldset8_rel and
# __aarch64_ldadd4_relax keep their names.
some="-N __aarch64_cas4_acq_rel -N __aarch64_ldadd8_acq_rel -N __aarch64_swp8_acq_rel"

# audit NAME.so [-v]: test-isa's audit, as tfbuild verify would.
audit() {
	"$TOOL_DIR/test-isa" ${2-} audit "$1.so=x/$1.so"
}

expect_success 'some helpers stripped: accepted, -v names them, runs on cortex-a53' '
	mkdir -p lib &&
	$cc -O2 -fPIC -shared -o full.so "$fix/atomics.c" &&
	$strip $some -o lib/libatomics.so full.so &&
	aarch64-linux-gnu-readelf -sW lib/libatomics.so >syms &&
	! grep "__aarch64_cas4_acq_rel" syms &&
	grep "__aarch64_cas8_acq\$" syms &&
	cp lib/libatomics.so part.so &&
	audit part -v >out 2>err &&
	grep "^ok: x/part.so\$" out &&
	grep "x/part.so: isa armv8.0-a; accepted: lse x6 (first cas in __aarch64_cas8_acq+0x10 at 0x[0-9a-f]*), libgcc.s outline atomics, chosen at run time by __aarch64_have_lse_atomics; 3 of them where no helper.s name covers them: 0x[0-9a-f]*-0x[0-9a-f]* unnamed, same guard as __aarch64_cas8_acq; 0x[0-9a-f]*-0x[0-9a-f]* unnamed, same guard as __aarch64_cas8_acq; 0x[0-9a-f]*-0x[0-9a-f]* unnamed, same guard as __aarch64_cas8_acq\$" err &&
	$cc -O2 -o t "$fix/atomics_test.c" -Llib -latomics &&
	qemu-aarch64 -cpu cortex-a53 -L /usr/aarch64-linux-gnu \
		-E LD_LIBRARY_PATH="$TRASH/lib" ./t >run &&
	printf "add 42 3\nswap 42 7\ncas 1 9 7 8\nor 24\n" >expect &&
	compare expect run
'

expect_success 'every helper stripped, the flag kept: accepted on the flag' '
	$strip $some -N __aarch64_cas8_acq -N __aarch64_ldset8_rel \
		-N __aarch64_ldadd4_relax -o none.so full.so &&
	! aarch64-linux-gnu-readelf -sW none.so | grep "__aarch64_[cls]" &&
	audit none -v >out 2>err &&
	grep "^ok: x/none.so\$" out &&
	grep "accepted: lse x6 (first cas in (no symbol) at 0x[0-9a-f]*), .*; 6 of them where no helper.s name covers them: 0x[0-9a-f]*-0x[0-9a-f]* unnamed, guarded by __aarch64_have_lse_atomics;" err
'

expect_success 'inline LSE in an unnamed function beside stripped helpers is refused' '
	$cc -O2 -fPIC -shared -DINLINE -o inline-full.so "$fix/atomics.c" "$fix/atomics_fake.c" &&
	$strip $some -N fake_op -o inline.so inline-full.so &&
	expect_code 1 audit inline -v 2>err &&
	grep "x/inline.so: isa armv8.1-a: lse x1 (first ldaddal in (no symbol) at 0x[0-9a-f]*); accepted: lse x6 " err &&
	grep "x/inline.so: needs armv8.1-a (lse: ldaddal in (no symbol) at 0x[0-9a-f]*), above armv8.0-a, and does not declare run-time dispatch (wheels\[\].isa.dispatch)\$" err
'

expect_success 'an unnamed helper-shaped guard on another byte is refused' '
	$cc -O2 -fPIC -shared -DOTHER_BYTE -o other.so "$fix/atomics.c" "$fix/atomics_fake.c" &&
	expect_code 1 audit other -v 2>err &&
	grep "x/other.so: isa armv8.1-a: lse x1 (first swpal in (no symbol) at 0x[0-9a-f]*); accepted: lse x6 " err &&
	grep "x/other.so: needs armv8.1-a (lse: swpal in (no symbol) at " err
'

expect_success 'an unnamed "helper" whose fallback uses LSE too is refused' '
	$cc -O2 -fPIC -shared -DLSE_FALLBACK -o fallback.so "$fix/atomics.c" "$fix/atomics_fake.c" &&
	expect_code 1 audit fallback -v 2>err &&
	grep "x/fallback.so: isa armv8.1-a: lse x2 (first swpal in (no symbol) at 0x[0-9a-f]*); accepted: lse x6 " err
'

expect_success 'fully stripped (no .symtab): refused with the hint, as before' '
	$strip --strip-all -o all.so full.so &&
	expect_code 1 audit all 2>err &&
	grep "x/all.so: needs armv8.1-a (lse: cas in (no symbol) at 0x[0-9a-f]*), .*; its LSE instructions are guarded as in libgcc.s outline atomics, which the audit accepts only where .symtab names them" err
'

expect_success 'a helper llvm-bolt moved, its old entry patched to jump to the copy: accepted' '
	$cc -O2 -fPIC -shared -DBOLT_PATCHED -o bolt.so "$fix/atomics.c" "$fix/atomics_fake.c" &&
	audit bolt -v >out 2>err &&
	grep "^ok: x/bolt.so\$" out &&
	grep "accepted: lse x7 .*; 1 of them where no helper.s name covers them: 0x[0-9a-f]*-0x[0-9a-f]* unreached: BOLT.s patched entry jumps to its new copy, __aarch64_swp8_acq_rel\$" err
'

test_done
