#!/bin/sh
# DT_NEEDED through test-elf check: libraries outside the manylinux
# allow-list must be shipped in the wheel where the file's $ORIGIN
# RUNPATH (or RPATH) finds them, or be declared; libpython never; and a
# shipped library's own symbol versions are not the policy's business.
. "$(dirname "$0")/../lib/test-lib.sh"

check() { "$TOOL_DIR/test-elf" check --context "wheel 'demo'" "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libfoo.so.1 x86/libusefoo.so x86/libusefoo-runpath.so \
	x86/libusefoo-rpath.so x86/libpyext.so || exit 1
foo=fx/x86/libfoo.so.1
p=manylinux2014_x86_64

refused() { # file in wheel, allow-list shown
	echo "tfbuild: wheel 'demo': $1: needs 'libfoo.so.1' (DT_NEEDED), which is neither in the $2 allow-list nor shipped in the wheel on an \$ORIGIN RUNPATH"
}

expect_success 'a library outside the allow-list, not shipped, is refused' '
	refused demo/ext/_foo.so manylinux_2_17 >expect &&
	expect_code 1 check --platform $p \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so 2>actual &&
	compare expect actual &&
	refused demo/ext/_foo.so manylinux >expect &&
	expect_code 1 check --compute x86_64 \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so 2>actual &&
	compare expect actual
'

expect_success 'shipped where $ORIGIN/../lib finds it, it passes' '
	echo "platform: $p" >expect &&
	check --platform $p fx/x86/libusefoo-runpath.so=demo/ext/_foo.so \
		$foo=demo/lib/libfoo.so.1 >actual &&
	compare expect actual &&
	check --platform $p fx/x86/libusefoo-rpath.so=demo/ext/_foo.so \
		$foo=demo/lib/libfoo.so.1 >actual &&
	compare expect actual
'

expect_success 'shipped but elsewhere, it is refused' '
	refused demo/ext/_foo.so manylinux_2_17 >expect &&
	expect_code 1 check --platform $p \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so \
		$foo=demo/ext/libfoo.so.1 2>actual &&
	compare expect actual &&
	expect_code 1 check --platform $p \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so \
		$foo=lib/libfoo.so.1 2>actual &&
	compare expect actual
'

expect_success 'shipped beside it without a run path, it is refused' '
	refused demo/_foo.so manylinux_2_17 >expect &&
	expect_code 1 check --platform $p fx/x86/libusefoo.so=demo/_foo.so \
		$foo=demo/libfoo.so.1 2>actual &&
	compare expect actual
'

expect_success 'a run path leaving the wheel finds nothing' '
	refused _foo.so manylinux_2_17 >expect &&
	expect_code 1 check --platform $p \
		fx/x86/libusefoo-runpath.so=_foo.so $foo=lib/libfoo.so.1 \
		2>actual &&
	compare expect actual
'

expect_success 'a declared library passes, with its versions checked' '
	echo "tfbuild: wheel '\''demo'\'': demo/ext/_foo.so: needs GLIBCXX_3.4.99 (symbol '\''foo_value'\''), which no manylinux policy for x86_64 allows" >expect &&
	expect_code 1 check --platform $p --allow-needed libfoo.so.1 \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so 2>actual &&
	compare expect actual &&
	echo "platform: linux_x86_64" >expect &&
	check --platform linux_x86_64 --allow-needed libfoo.so.1 \
		fx/x86/libusefoo.so=demo/_foo.so >actual &&
	compare expect actual
'

expect_success 'libpython is refused, declared or not' '
	echo "tfbuild: wheel '\''demo'\'': demo/_ext.so: links '\''libpython3.11.so.1.0'\'' (DT_NEEDED); Python extension modules must not link libpython" >expect &&
	expect_code 1 check --platform linux_x86_64 \
		fx/x86/libpyext.so=demo/_ext.so 2>actual &&
	compare expect actual &&
	expect_code 1 check --platform linux_x86_64 \
		--allow-needed libpython3.11.so.1.0 \
		fx/x86/libpyext.so=demo/_ext.so 2>actual &&
	compare expect actual
'

test_done
