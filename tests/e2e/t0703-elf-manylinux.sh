#!/bin/sh
# manylinux through test-elf check: a requested policy refuses symbol
# versions newer than it allows, naming the version and a symbol that
# needs it; without a platform the wheel gets the lowest policy all its
# files satisfy, as PEP 600 tag plus legacy alias.
. "$(dirname "$0")/../lib/test-lib.sh"

check() { "$TOOL_DIR/test-elf" check --context "wheel 'demo'" "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libtiny.so x86/libnew.so x86/main x86/libvec.so x86/libwithm.so ||
	exit 1
cxx=yes
build x86/libcxx.so 2>/dev/null || cxx=
cross=yes
build arm/libtiny.so arm/libnew.so 2>/dev/null || cross=

expect_success 'a GLIBC_2.36 symbol is newer than manylinux_2_17 allows' '
	echo "tfbuild: wheel '\''demo'\'': demo/libnew.so: needs GLIBC_2.36 (symbol '\''arc4random'\''), newer than manylinux_2_17 allows (GLIBC_2.17)" >expect &&
	expect_code 1 check --platform manylinux_2_17_x86_64 \
		fx/x86/libnew.so=demo/libnew.so 2>actual &&
	compare expect actual &&
	expect_code 1 check \
		--platform manylinux_2_17_x86_64.manylinux2014_x86_64 \
		fx/x86/libnew.so=demo/libnew.so 2>actual &&
	compare expect actual
'

expect_success 'the same library passes under manylinux_2_36' '
	echo "platform: manylinux_2_36_x86_64" >expect &&
	check --platform manylinux_2_36_x86_64 \
		fx/x86/libnew.so=demo/libnew.so >actual &&
	compare expect actual
'

expect_success 'an executable needs __libc_start_main@GLIBC_2.34' '
	echo "tfbuild: wheel '\''demo'\'': demo/bin/tool: needs GLIBC_2.34 (symbol '\''__libc_start_main'\''), newer than manylinux_2_28 allows (GLIBC_2.28)" >expect &&
	expect_code 1 check --platform manylinux_2_28_x86_64 \
		fx/x86/main=demo/bin/tool 2>actual &&
	compare expect actual
'

expect_success 'the computed tag is the lowest policy every file fits' '
	echo "platform: manylinux_2_5_x86_64.manylinux1_x86_64" >expect &&
	check --compute x86_64 fx/x86/libtiny.so=demo/libtiny.so >actual &&
	compare expect actual &&
	echo "platform: manylinux_2_34_x86_64" >expect &&
	check --compute x86_64 fx/x86/libtiny.so=demo/libtiny.so \
		fx/x86/main=demo/bin/tool >actual &&
	compare expect actual &&
	echo "platform: manylinux_2_36_x86_64" >expect &&
	check --compute x86_64 fx/x86/libnew.so=demo/a.so \
		fx/x86/main=demo/bin/tool fx/x86/libtiny.so=demo/b.so >actual &&
	compare expect actual
'

expect_success 'with -v, the file and version that decided it are named' '
	cat >expect <<-\EOT &&
	tfbuild: wheel '\''demo'\'': platform manylinux_2_36_x86_64: demo/a.so needs GLIBC_2.36 (symbol '\''arc4random'\'')
	EOT
	"$TOOL_DIR/test-elf" -v check --context "wheel '\''demo'\''" \
		--compute x86_64 fx/x86/main=demo/bin/tool \
		fx/x86/libnew.so=demo/a.so 2>actual >/dev/null &&
	compare expect actual
'

expect_success 'with -v, nothing decides the oldest policy' '
	echo "tfbuild: platform manylinux_2_5_x86_64.manylinux1_x86_64: no file needs a newer policy" >expect &&
	"$TOOL_DIR/test-elf" -v check --compute x86_64 \
		fx/x86/libwithm.so=demo/a.so 2>actual >/dev/null &&
	compare expect actual
'

expect_success 'a library in newer allow-lists only raises the policy' '
	cat >expect <<-\EOT &&
	tfbuild: wheel '\''demo'\'': platform manylinux_2_24_x86_64: demo/vec.so needs '\''libmvec.so.1'\''
	EOT
	"$TOOL_DIR/test-elf" -v check --context "wheel '\''demo'\''" \
		--compute x86_64 fx/x86/libvec.so=demo/vec.so >out 2>actual &&
	compare expect actual &&
	echo "platform: manylinux_2_24_x86_64" >expect &&
	compare expect out &&
	echo "tfbuild: wheel '\''demo'\'': demo/vec.so: needs '\''libmvec.so.1'\'' (DT_NEEDED), which is neither in the manylinux_2_17 allow-list nor shipped in the wheel on an \$ORIGIN RUNPATH" >expect &&
	expect_code 1 check --platform manylinux2014_x86_64 \
		fx/x86/libvec.so=demo/vec.so 2>actual &&
	compare expect actual
'

expect_success 'without ELF files the oldest policy is computed' '
	printf "x = 1\n" >mod.py &&
	echo "platform: manylinux_2_17_aarch64.manylinux2014_aarch64" >expect &&
	check --compute aarch64 mod.py=demo/mod.py >actual &&
	compare expect actual
'

expect_success 'a policy that was never published is refused' '
	echo "tfbuild: wheel '\''demo'\'': platform '\''manylinux_2_29_x86_64'\'': no published manylinux policy for glibc 2.29 on x86_64" >expect &&
	expect_code 1 check --platform manylinux_2_29_x86_64 \
		fx/x86/libtiny.so=demo/libtiny.so 2>actual &&
	compare expect actual
'

expect_success 'linux_ tags do not limit versions' '
	check --platform linux_x86_64 fx/x86/libnew.so=demo/libnew.so
'

if [ -n "$cxx" ]; then
	expect_success 'C++ libraries: GLIBCXX versions' '
		echo "tfbuild: wheel '\''demo'\'': demo/libcxx.so: needs GLIBCXX_3.4.21 (symbol '\''_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4sizeEv'\''), newer than manylinux_2_17 allows (GLIBCXX_3.4.19)" >expect &&
		expect_code 1 check --platform manylinux2014_x86_64 \
			fx/x86/libcxx.so=demo/libcxx.so 2>actual &&
		compare expect actual &&
		echo "platform: manylinux_2_24_x86_64" >expect &&
		check --compute x86_64 fx/x86/libcxx.so=demo/libcxx.so \
			>actual &&
		compare expect actual
	'
else
	skip 'g++ is not installed'
fi

if [ -n "$cross" ]; then
	expect_success 'aarch64: manylinux2014 allows GLIBC_2.18, not 2.36' '
		echo "tfbuild: wheel '\''demo'\'': demo/libnew.so: needs GLIBC_2.36 (symbol '\''arc4random'\''), newer than manylinux_2_17 allows (GLIBC_2.18)" >expect &&
		expect_code 1 check --platform manylinux2014_aarch64 \
			fx/arm/libnew.so=demo/libnew.so 2>actual &&
		compare expect actual &&
		echo "platform: manylinux_2_36_aarch64" >expect &&
		check --compute aarch64 fx/arm/libnew.so=demo/libnew.so \
			fx/arm/libtiny.so=demo/libtiny.so >actual &&
		compare expect actual
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

test_done
