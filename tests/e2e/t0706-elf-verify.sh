#!/bin/sh
# The checks `tfbuild verify` makes of a wheel's ELF entries, through
# test-elf verify: rules come from the wheel's platform tag alone (its
# architecture, manylinux policy, aarch64 pages, no libpython, baseline
# x86-64) and the wheel's entry names (for shipped libraries).
. "$(dirname "$0")/../lib/test-lib.sh"

verify() { "$TOOL_DIR/test-elf" verify --context dist/demo.whl "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libtiny.so x86/libnew.so x86/libv3.so x86/libusefoo-runpath.so \
	x86/libpyext.so || exit 1
cross=yes
build arm/libtiny.so arm/libtiny4k.so 2>/dev/null || cross=
printf "x = 1\n" >mod.py

expect_success 'sound entries pass; entries that are not ELF are skipped' '
	cat >expect <<-\EOT &&
	ok: demo/libtiny.so
	skip: demo/mod.py (not ELF)
	EOT
	verify --platform manylinux_2_17_x86_64.manylinux2014_x86_64 \
		fx/x86/libtiny.so=demo/libtiny.so mod.py=demo/mod.py >actual &&
	compare expect actual
'

expect_success 'the manylinux policy comes from the tag' '
	echo "tfbuild: dist/demo.whl: demo/libnew.so: needs GLIBC_2.36 (symbol '\''arc4random'\''), newer than manylinux_2_17 allows (GLIBC_2.17)" >expect &&
	expect_code 1 verify --platform manylinux2014_x86_64 \
		fx/x86/libnew.so=demo/libnew.so 2>actual &&
	compare expect actual &&
	verify --platform manylinux_2_36_x86_64 fx/x86/libnew.so=demo/libnew.so
'

expect_success 'the architecture comes from the tag' '
	echo "tfbuild: dist/demo.whl: demo/libtiny.so: ELF machine x86-64 does not match platform aarch64" >expect &&
	expect_code 1 verify --platform linux_aarch64 \
		fx/x86/libtiny.so=demo/libtiny.so 2>actual &&
	compare expect actual &&
	echo "tfbuild: dist/demo.whl: demo/libtiny.so: ELF machine x86-64 does not match platform any" >expect &&
	expect_code 1 verify --platform any \
		fx/x86/libtiny.so=demo/libtiny.so 2>actual &&
	compare expect actual
'

expect_success 'x86_64 wheels must run on baseline x86-64' '
	echo "tfbuild: dist/demo.whl: demo/libv3.so: needs x86-64-v3 (GNU property), above the allowed x86-64-v1" >expect &&
	expect_code 1 verify --platform linux_x86_64 \
		fx/x86/libv3.so=demo/libv3.so 2>actual &&
	compare expect actual
'

expect_success 'libraries must be allowed or shipped among the entries' '
	echo "tfbuild: dist/demo.whl: demo/ext/_foo.so: needs '\''libfoo.so.1'\'' (DT_NEEDED), which is neither in the manylinux_2_17 allow-list nor shipped in the wheel on an \$ORIGIN RUNPATH" >expect &&
	expect_code 1 verify --platform manylinux2014_x86_64 \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so 2>actual &&
	compare expect actual &&
	verify --platform manylinux2014_x86_64 --entry demo/lib/libfoo.so.1 \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so &&
	echo "tfbuild: dist/demo.whl: demo/_ext.so: links '\''libpython3.11.so.1.0'\'' (DT_NEEDED); Python extension modules must not link libpython" >expect &&
	expect_code 1 verify --platform linux_x86_64 \
		fx/x86/libpyext.so=demo/_ext.so 2>actual &&
	compare expect actual
'

expect_success 'linux_ tags are not audited against the manylinux allow-list' '
	verify --platform linux_x86_64 \
		fx/x86/libusefoo-runpath.so=demo/ext/_foo.so
'

expect_success 'platforms without a policy here are not checked' '
	cat >expect <<-\EOT &&
	ok: demo/libtiny.so
	EOT
	verify --platform win_amd64 fx/x86/libtiny.so=demo/libtiny.so \
		>actual &&
	compare expect actual
'

expect_success 'a tag that cannot hold is reported with the wheel' '
	echo "tfbuild: dist/demo.whl: platform '\''linux_x86_64.linux_aarch64'\'': mixes architectures x86_64 and aarch64" >expect &&
	expect_code 1 verify --platform linux_x86_64.linux_aarch64 \
		fx/x86/libtiny.so=demo/libtiny.so 2>actual &&
	compare expect actual &&
	echo "tfbuild: dist/demo.whl: platform '\''manylinux_2_29_x86_64'\'': no published manylinux policy for glibc 2.29 on x86_64" >expect &&
	expect_code 1 verify --platform manylinux_2_29_x86_64 \
		fx/x86/libtiny.so=demo/libtiny.so 2>actual &&
	compare expect actual
'

if [ -n "$cross" ]; then
	expect_success 'aarch64 wheels: 64 KiB pages' '
		echo "tfbuild: dist/demo.whl: demo/libm1.so: is linked for 4096-byte pages; aarch64 wheels need 65536 (link with -Wl,-z,max-page-size=65536)" >expect &&
		expect_code 1 verify --platform manylinux_2_17_aarch64 \
			fx/arm/libtiny4k.so=demo/libm1.so 2>actual &&
		compare expect actual &&
		verify --platform manylinux_2_17_aarch64 \
			fx/arm/libtiny.so=demo/libm1.so
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

test_done
