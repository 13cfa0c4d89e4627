#!/bin/sh
# tf_elf_read through test-elf info: what libelf finds in libraries and
# executables built here for x86-64 and aarch64 (headers, DT_NEEDED,
# RUNPATH/RPATH, PT_LOAD alignment, needed versions with a symbol each,
# exports, the x86 ISA note); files that are not ELF; malformed ELF.
. "$(dirname "$0")/../lib/test-lib.sh"

elf() { "$TOOL_DIR/test-elf" "$@"; }
build() { sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx "$@"; }

build x86/libtiny.so x86/libnew.so x86/main x86/libv3.so \
	x86/libusefoo-runpath.so x86/libusefoo-rpath.so x86/obj.o || exit 1
cross=yes
build arm/libtiny.so arm/libtiny4k.so arm/libnew.so 2>/dev/null || cross=

expect_success 'an x86-64 shared library: header, soname, alignment, exports' '
	cat >expect <<-\EOT &&
	class: 64
	byte-order: little-endian
	machine: x86-64
	type: DYN
	soname: libtiny.so
	min-load-align: 4096
	export: tfm_add
	EOT
	elf info fx/x86/libtiny.so >actual &&
	compare expect actual
'

expect_success 'needed versions are grouped by library, each with a symbol' '
	elf info fx/x86/libnew.so >out &&
	grep "^version: libc.so.6 GLIBC_2.36 arc4random\$" out &&
	grep "^needed: libc.so.6\$" out &&
	grep "^export: tfm_seed\$" out
'

expect_success 'an executable needs __libc_start_main@GLIBC_2.34' '
	elf info fx/x86/main >out &&
	grep "^type: DYN\$" out &&
	grep "^version: libc.so.6 GLIBC_2.34 __libc_start_main\$" out
'

expect_success 'RUNPATH and RPATH are told apart' '
	elf info fx/x86/libusefoo-runpath.so >out &&
	grep "^runpath: \$ORIGIN/../lib\$" out &&
	! grep "^rpath:" out &&
	grep "^needed: libfoo.so.1\$" out &&
	grep "^version: libfoo.so.1 GLIBCXX_3.4.99 foo_value\$" out &&
	elf info fx/x86/libusefoo-rpath.so >out &&
	grep "^rpath: \$ORIGIN/../lib\$" out &&
	! grep "^runpath:" out
'

expect_success 'the x86 ISA level needed comes from the GNU property note' '
	elf info fx/x86/libv3.so >out &&
	grep "^x86-isa-needed: x86-64-v3\$" out &&
	elf info fx/x86/libtiny.so >out &&
	! grep "^x86-isa-needed:" out
'

expect_success 'an object file is ELF too, with no load segments' '
	elf info fx/x86/obj.o >out &&
	grep "^type: REL\$" out &&
	grep "^min-load-align: 0\$" out
'

if [ -n "$cross" ]; then
	expect_success 'aarch64 libraries and their page alignment' '
		elf info fx/arm/libtiny.so >out &&
		grep "^machine: aarch64\$" out &&
		grep "^min-load-align: 65536\$" out &&
		elf info fx/arm/libtiny4k.so >out &&
		grep "^min-load-align: 4096\$" out &&
		elf info fx/arm/libnew.so >out &&
		grep "^version: libc.so.6 GLIBC_2.36 arc4random\$" out
	'
else
	skip 'aarch64-linux-gnu-gcc is not installed'
fi

expect_success 'files that are not ELF are not an error' '
	echo "not ELF" >expect &&
	printf "print(1)\n" >mod.py &&
	elf info mod.py >actual &&
	compare expect actual &&
	: >empty &&
	elf info empty >actual &&
	compare expect actual &&
	printf "\177EL" >short &&
	elf info short >actual &&
	compare expect actual
'

expect_success 'a truncated ELF file is malformed, named in the message' '
	head -c 3000 fx/x86/libtiny.so >cut.so &&
	echo "tfbuild: cut.so: malformed ELF: section headers lie outside the file" >expect &&
	expect_code 1 elf info cut.so 2>actual &&
	compare expect actual &&
	head -c 100 fx/x86/libtiny.so >head.so &&
	echo "tfbuild: head.so: malformed ELF: program headers lie outside the file" >expect &&
	expect_code 1 elf info head.so 2>actual &&
	compare expect actual
'

expect_success 'without section headers the dynamic section cannot be checked' '
	"$PYTHON" -c "
import sys
d = bytearray(open(sys.argv[1], \"rb\").read())
d[0x28:0x30] = bytes(8)  # e_shoff
d[0x3c:0x40] = bytes(4)  # e_shnum, e_shstrndx
open(sys.argv[2], \"wb\").write(d)
" fx/x86/libnew.so stripped.so &&
	echo "tfbuild: stripped.so: malformed ELF: dynamic segment without a dynamic section (section headers stripped?)" >expect &&
	expect_code 1 elf info stripped.so 2>actual &&
	compare expect actual
'

expect_success 'a missing file is reported with the reason' '
	echo "tfbuild: nope.so: cannot open '\''nope.so'\'': No such file or directory" >expect &&
	expect_code 1 elf info nope.so 2>actual &&
	compare expect actual
'

test_done
