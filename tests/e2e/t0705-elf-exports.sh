#!/bin/sh
# Required exports through test-elf check: a plugin must export the
# entry point the framework looks up; the file must be in the wheel and
# be ELF; hidden symbols do not count.
. "$(dirname "$0")/../lib/test-lib.sh"

check() { "$TOOL_DIR/test-elf" check --context "wheel 'demo'" "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libplugin.so x86/libplugin-hidden.so x86/libtiny.so || exit 1
entry=demo/libm1.so:TFM_GetDeviceApi

expect_success 'a plugin exporting its entry point passes' '
	echo "platform: manylinux_2_5_x86_64.manylinux1_x86_64" >expect &&
	check --compute x86_64 --export $entry \
		fx/x86/libplugin.so=demo/libm1.so \
		fx/x86/libtiny.so=demo/libtiny.so >actual &&
	compare expect actual
'

expect_success 'a hidden entry point is missing' '
	echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: does not export required symbol '\''TFM_GetDeviceApi'\''" >expect &&
	expect_code 1 check --compute x86_64 --export $entry \
		fx/x86/libplugin-hidden.so=demo/libm1.so 2>actual &&
	compare expect actual
'

expect_success 'another file exporting it does not count' '
	echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: does not export required symbol '\''TFM_GetDeviceApi'\''" >expect &&
	expect_code 1 check --compute x86_64 --export $entry \
		fx/x86/libtiny.so=demo/libm1.so \
		fx/x86/libplugin.so=demo/libother.so 2>actual &&
	compare expect actual
'

expect_success 'the file must be in the wheel' '
	echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: must export '\''TFM_GetDeviceApi'\'' but is not in the wheel" >expect &&
	expect_code 1 check --compute x86_64 --export $entry \
		fx/x86/libplugin.so=demo/libm2.so 2>actual &&
	compare expect actual
'

expect_success 'the file must be ELF' '
	printf "not a library\n" >m1.txt &&
	echo "tfbuild: wheel '\''demo'\'': demo/libm1.so: must export '\''TFM_GetDeviceApi'\'' but is not an ELF file" >expect &&
	expect_code 1 check --compute x86_64 --export $entry \
		m1.txt=demo/libm1.so 2>actual &&
	compare expect actual
'

test_done
