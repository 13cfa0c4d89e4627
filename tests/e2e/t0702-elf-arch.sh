#!/bin/sh
# tf_elf_verify_wheel through test-elf check: the architecture a wheel's
# platform names, aarch64's 64 KiB pages and the x86-64 ISA level, on
# libraries built here with the host gcc and aarch64-linux-gnu-gcc.
# Each refusal names the wheel, the file inside it, the rule and the value.
. "$(dirname "$0")/../lib/test-lib.sh"

check() { "$TOOL_DIR/test-elf" check --context "wheel 'demo'" "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libtiny.so x86/libv3.so x86/x32.o x86/obj.o || exit 1
cross=yes
build arm/libtiny.so arm/libtiny4k.so arm/be.o arm/obj.o 2>/dev/null ||
	cross=

expect_success 'an x86-64 library passes in an x86_64 wheel' '
	echo "platform: linux_x86_64" >expect &&
	check --platform linux_x86_64 fx/x86/libtiny.so=demo/libtiny.so \
		>actual &&
	compare expect actual
'

expect_success 'an x86-64 library in an aarch64 wheel is refused' '
	echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: ELF machine x86-64 does not match platform aarch64" >expect &&
	expect_code 1 check --platform manylinux_2_17_aarch64 \
		fx/x86/libtiny.so=demo/libm1.so 2>actual &&
	compare expect actual
'

expect_success 'native code in an "any" wheel is refused' '
	echo "tfbuild: wheel '\''demo'\'': demo/_x.so: ELF machine x86-64 does not match platform any" >expect &&
	expect_code 1 check --platform any fx/x86/libtiny.so=demo/_x.so \
		2>actual &&
	compare expect actual
'

expect_success 'x86-64 code for 32-bit pointers (x32) is refused' '
	echo "tfbuild: wheel '\''demo'\'': demo/x.o: ELF class 32-bit does not match platform x86_64 (64-bit)" >expect &&
	expect_code 1 check --platform linux_x86_64 fx/x86/x32.o=demo/x.o \
		2>actual &&
	compare expect actual
'

expect_success 'files that are not ELF and matching objects pass' '
	printf "x = 1\n" >mod.py &&
	echo "platform: linux_x86_64" >expect &&
	check --platform linux_x86_64 mod.py=demo/mod.py \
		fx/x86/obj.o=demo/obj.o >actual &&
	compare expect actual
'

expect_success 'an x86-64-v3 library needs its ISA level allowed' '
	echo "tfbuild: wheel '\''demo'\'': demo/libv3.so: needs x86-64-v3 (GNU property), above the allowed x86-64-v1" >expect &&
	expect_code 1 check --platform linux_x86_64 \
		fx/x86/libv3.so=demo/libv3.so 2>actual &&
	compare expect actual &&
	echo "tfbuild: wheel '\''demo'\'': demo/libv3.so: needs x86-64-v3 (GNU property), above the allowed x86-64-v2" >expect &&
	expect_code 1 check --platform linux_x86_64 --isa-level 2 \
		fx/x86/libv3.so=demo/libv3.so 2>actual &&
	compare expect actual &&
	check --platform linux_x86_64 --isa-level 3 \
		fx/x86/libv3.so=demo/libv3.so
'

if [ -n "$cross" ]; then
	expect_success 'an aarch64 library passes in an aarch64 wheel' '
		echo "platform: manylinux_2_17_aarch64.manylinux2014_aarch64" >expect &&
		check --compute aarch64 fx/arm/libtiny.so=demo/libm1.so \
			fx/arm/obj.o=demo/m1.o >actual &&
		compare expect actual
	'

	expect_success 'an aarch64 library in an x86_64 wheel is refused' '
		echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: ELF machine aarch64 does not match platform x86_64" >expect &&
		expect_code 1 check --compute x86_64 \
			fx/arm/libtiny.so=demo/libm1.so 2>actual &&
		compare expect actual &&
		echo "tfbuild: wheel '\''demo'\'': demo/m1.o: ELF machine aarch64 does not match platform x86_64" >expect &&
		expect_code 1 check --platform linux_x86_64 \
			fx/arm/obj.o=demo/m1.o 2>actual &&
		compare expect actual
	'

	expect_success 'aarch64 linked for 4 KiB pages is refused' '
		echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: is linked for 4096-byte pages; aarch64 wheels need 65536 (link with -Wl,-z,max-page-size=65536)" >expect &&
		expect_code 1 check --platform manylinux2014_aarch64 \
			fx/arm/libtiny4k.so=demo/libm1.so 2>actual &&
		compare expect actual
	'

	expect_success 'big-endian aarch64 is refused' '
		echo "tfbuild: wheel '\''demo'\'': demo/be.o: ELF byte order big-endian does not match platform aarch64 (little-endian)" >expect &&
		expect_code 1 check --platform linux_aarch64 \
			fx/arm/be.o=demo/be.o 2>actual &&
		compare expect actual
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

expect_success 'the first bad file stops the check' '
	echo "tfbuild: wheel '\''demo'\'': demo/b/libv3.so: needs x86-64-v3 (GNU property), above the allowed x86-64-v1" >expect &&
	expect_code 1 check --platform linux_x86_64 \
		fx/x86/libtiny.so=demo/a/libtiny.so \
		fx/x86/libv3.so=demo/b/libv3.so \
		fx/x86/x32.o=demo/c/x.o 2>actual &&
	compare expect actual
'

test_done
