#!/bin/sh
# verify -v says the lowest manylinux tag a wheel's ELF files allow, the
# one `auditwheel show` says the wheel is consistent with; and every ELF
# file is checked and its code audited, each refusal said, before the
# wheel fails.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/dispatch"
aw="${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}/auditwheel"

# lib NAME SOURCE [CFLAGS...]: libNAME.so built with gcc.
lib() {
	name=$1 src=$2 &&
	shift 2 &&
	gcc -O2 -fPIC -shared -I"$fix" "$@" -o "lib$name.so" "$src"
}

# auditwheel_tag WHEEL: what `auditwheel show` says it is consistent with.
auditwheel_tag() {
	"$aw" show "$1" >aw.out 2>&1 &&
	tr "\n" " " <aw.out |
	sed -n "s/.*consistent with *the following *platform *tag: *\"\([^\"]*\)\".*/\1/p"
}

expect_success 'a library of old symbols: manylinux1, whatever the wheel says' '
	printf "int f(int x) { return x + 1; }\n" >old.c &&
	lib old old.c &&
	w=$("$TOOL_DIR/test-wheel" pack w --name old --version 1 \
		--tag py3-none-manylinux_2_27_x86_64 libold.so=old/libold.so) &&
	"$TFBUILD" -v verify "$w" >out 2>err &&
	grep "^ok " out &&
	grep "platform: its ELF files allow manylinux_2_5_x86_64.manylinux1_x86_64 (no file needs a newer policy)\$" err
'

expect_success 'memfd_create (GLIBC_2.27): manylinux_2_27, naming the symbol' '
	printf "#define _GNU_SOURCE\n#include <sys/mman.h>\nint g(void) { return memfd_create(\"x\", 0); }\n" >new.c &&
	lib new new.c &&
	w=$("$TOOL_DIR/test-wheel" pack w --name new --version 1 \
		--tag py3-none-manylinux_2_28_x86_64 libnew.so=new/libnew.so) &&
	"$TFBUILD" -v verify "$w" >out 2>err &&
	grep "platform: its ELF files allow manylinux_2_27_x86_64 (new/libnew.so needs GLIBC_2.27 (symbol .memfd_create.))\$" err
'

if test -x "$aw"; then
	expect_success 'auditwheel show says the same of both' '
		test "$(auditwheel_tag w/old-1-py3-none-manylinux_2_27_x86_64.whl)" = manylinux_2_5_x86_64 &&
		test "$(auditwheel_tag w/new-1-py3-none-manylinux_2_28_x86_64.whl)" = manylinux_2_27_x86_64
	'
else
	skip "$aw is not installed (make deps)"
fi

expect_success 'two libraries built for AVX2: both refused, then the platform' '
	lib a "$fix/cpuid.c" -DUNGUARDED &&
	lib b "$fix/cpuid.c" -DUNGUARDED -DAVX2_NAME=wide &&
	w=$("$TOOL_DIR/test-wheel" pack w --name two --version 1 \
		--tag py3-none-manylinux_2_17_x86_64 liba.so=two/liba.so \
		libb.so=two/libb.so) &&
	expect_code 6 "$TFBUILD" -v verify "$w" >out 2>err &&
	! grep "^ok " out &&
	grep "two/liba.so: needs x86-64-v3 (avx" err &&
	grep "two/libb.so: needs x86-64-v3 (avx" err &&
	grep "platform: its ELF files allow manylinux_2_5_x86_64" err
'

expect_success 'a library outside the allow-list, then AVX2 code: both said' '
	printf "int foo(void) { return 1; }\n" >foo.c &&
	printf "int foo(void);\nint bar(void) { return foo(); }\n" >bar.c &&
	lib foo foo.c &&
	gcc -O2 -fPIC -shared -o libbar.so bar.c -L. -lfoo &&
	w=$("$TOOL_DIR/test-wheel" pack w --name mix --version 1 \
		--tag py3-none-manylinux_2_17_x86_64 libbar.so=mix/libbar.so \
		libb.so=mix/libb.so) &&
	expect_code 6 "$TFBUILD" -v verify "$w" >out 2>err &&
	grep "mix/libbar.so: needs .libfoo.so. (DT_NEEDED), which is neither in the manylinux_2_17 allow-list" err &&
	grep "mix/libb.so: needs x86-64-v3 (avx" err &&
	grep "platform: its ELF files allow no manylinux tag (refused above)\$" err
'

expect_success 'a file the rules refuse still has its code audited' '
	gcc -O2 -fPIC -shared -I"$fix" -DUNGUARDED -o libboth.so \
		"$fix/cpuid.c" -Wl,--no-as-needed -L. -lfoo &&
	w=$("$TOOL_DIR/test-wheel" pack w --name both --version 1 \
		--tag py3-none-manylinux_2_17_x86_64 libboth.so=both/libboth.so) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep "both/libboth.so: needs .libfoo.so. (DT_NEEDED)" err &&
	grep "both/libboth.so: needs x86-64-v3 (avx" err
'

test_done
