#!/bin/sh
# The instruction-level ISA audit and the baseline run on x86-64
# (docs/isa.md): an AVX2 kernel with no dispatch is refused naming the
# function and instruction; declared and real dispatch passes, and its
# test takes the SSE2 path under qemu-x86_64 -cpu qemu64; declared but
# broken dispatch dies there with an illegal instruction naming the file.
# verify refuses hand-assembled wheels the same way, and an executable
# stack is refused.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/isa.sh"

fix="$SRC_ROOT/tests/fixtures/isa"

# recipe NAME CFLAGS ISA-YAML [notest]: a recipe building libvsum with
# CFLAGS, and a test running it.
recipe() {
	isa_recipe "$1" x86_64 vsum \
		"\$CC \$CFLAGS $2 -shared -o \"\$STAGE/vsum/libvsum.so\" vsum.c" \
		"$3" "${4-}"
}

recipe plain "-mavx2" "" notest
recipe dispatch "-DDISPATCH" "    isa: {dispatch: [vsum/*.so]}"
recipe broken "-DBROKEN" "    isa: {dispatch: [vsum/libvsum.so]}"
recipe stack "-DDISPATCH -Wl,-z,execstack" "    isa: {dispatch: [vsum/*.so]}" notest

expect_success 'AVX2 code without declared dispatch is refused at pack time (exit 6)' '
	expect_code 6 "$TFBUILD" recipe --build-dir b-plain --out w-plain plain.yaml 2>err &&
	grep "wheel .vsum.: vsum/libvsum.so: needs x86-64-v3 (avx2*: v[a-z0-9]* in vsum_avx2+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1, and does not declare run-time dispatch" err &&
	! ls w-plain/*.whl 2>/dev/null
'

expect_success 'declared dispatch: packed; its test ran natively and on qemu64, taking SSE2 there' '
	"$TFBUILD" recipe --build-dir b-disp --out w-disp dispatch.yaml 2>err &&
	grep "building run@baseline" err &&
	log=$(find b-disp -name "run@baseline*.log") &&
	grep "^sum 5050 path sse2\$" "$log" &&
	ls w-disp/vsum-1.0.0-py3-none-manylinux_*_x86_64.whl
'

expect_success 'the wheel records the declaration; verify -v prints it and what the audit found' '
	w=$(ls w-disp/*.whl) &&
	unzip -p "$w" vsum-1.0.0.dist-info/tfbuild-isa >rec &&
	printf "Record-Version: 1\nDispatch: vsum/*.so\n" >expect && compare expect rec &&
	"$TFBUILD" verify -v "$w" >out 2>err &&
	grep "declared run-time dispatch: vsum/\*.so" err &&
	grep "vsum/libvsum.so: isa x86-64-v3: .*avx2 x[0-9]* (first .* in vsum_avx2+0x" err &&
	grep "(dispatches)" err
'

expect_success 'broken dispatch: the baseline run dies of an illegal instruction naming the file' '
	expect_code 5 "$TFBUILD" recipe --build-dir b-broken --out w-broken broken.yaml 2>err &&
	grep "test .run@baseline. for x86_64 hit an illegal instruction on the baseline CPU (qemu-x86_64 -cpu qemu64)" err &&
	grep "suspect: .*/stage/lib/vsum/libvsum.so: x86-64-v3: .*avx2 .* in vsum_avx2+0x" err
'

expect_success 'a library asking for an executable stack is refused' '
	expect_code 6 "$TFBUILD" recipe --build-dir b-stack --out w-stack stack.yaml 2>err &&
	grep "vsum/libvsum.so: asks for an executable stack (PT_GNU_STACK has PF_X)" err
'

# Hand-assembled wheels, as another tool would make them.
lib_plain=$(find b-plain -path "*stage/lib/vsum/libvsum.so")
lib_stack=$(find b-stack -path "*stage/lib/vsum/libvsum.so")
tag=py3-none-manylinux_2_17_x86_64
expect_success 'verify refuses a wheel with AVX2 code and no declaration (exit 6)' '
	mkdir -p hand &&
	w=$("$TOOL_DIR/test-wheel" pack hand --name avx --version 1 --tag $tag \
		"$lib_plain=avx/libvsum.so") &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "$w: avx/libvsum.so: needs x86-64-v3 (avx2*: .* in vsum_avx2+0x" err
'

expect_success 'verify accepts it with a tfbuild-isa record declaring dispatch' '
	w=$("$TOOL_DIR/test-wheel" pack hand --name avxd --version 1 --tag $tag \
		--isa-record "Record-Version: 1
Dispatch: avx/*.so
" "$lib_plain=avx/libvsum.so") &&
	"$TFBUILD" verify "$w" >out && grep "^ok " out
'

expect_success 'verify: a declared minimum of x86-64-v3 allows AVX2 and is printed by -v' '
	w=$("$TOOL_DIR/test-wheel" pack hand --name avxm --version 1 --tag $tag \
		--isa-record "Record-Version: 1
Minimum: x86-64-v3
" "$lib_plain=avx/libvsum.so") &&
	"$TFBUILD" verify -v "$w" >out 2>err && grep "^ok " out &&
	grep "declared minimum ISA level x86-64-v3" err
'

expect_success 'verify refuses an executable-stack library and a malformed record' '
	w=$("$TOOL_DIR/test-wheel" pack hand --name xs --version 1 --tag $tag \
		--isa-record "Dispatch: x/*.so
" "$lib_stack=x/libvsum.so") &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "x/libvsum.so: asks for an executable stack" err &&
	w=$("$TOOL_DIR/test-wheel" pack hand --name bad --version 1 --tag $tag \
		--isa-record "Minimum: x86-64-v9
" "$lib_plain=x/libvsum.so") &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "bad-1.dist-info/tfbuild-isa: line 1: unknown level .x86-64-v9." err
'

expect_success 'recipe errors in isa are reported at FILE:LINE:COL (exit 3)' '
	recipe badisa "" "    isa: {minimum: x86-64-v9, dispatch: [/abs], speed: 1}" &&
	expect_code 3 "$TFBUILD" recipe --build-dir b-bad --out w-bad badisa.yaml 2>err &&
	grep "badisa.yaml:[0-9]*:[0-9]*: unknown ISA level .x86-64-v9. in .minimum." err &&
	grep "badisa.yaml:[0-9]*:[0-9]*: .dispatch. pattern ./abs. is not a relative path inside the wheel" err &&
	grep "badisa.yaml:[0-9]*:[0-9]*: unknown key .speed. in .wheels\[0\].isa." err
'

test_done
