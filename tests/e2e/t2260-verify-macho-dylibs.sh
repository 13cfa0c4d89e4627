#!/bin/sh
# Issue 36, the audit half: `tfbuild verify` reads every Mach-O file of
# a macOS wheel (by its magic, through LLVM's object library) and
# refuses, naming the file and why, a dylib whose minimum macOS is above
# the wheel's tag, a slice of the wrong architecture, a build path in a
# load command, rpath or install name, and an arm64 slice with no code
# signature or one whose page hashes do not match its bytes; `verify
# -v` lists what llvm-otool-14 lists. The dylibs are
# built here by zig (tests/lib/macho.sh), never committed.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/macho.sh"

fix="$SRC_ROOT/tests/fixtures/macho"

# dylib NAME TARGET [FLAGS...]: libNAME.dylib of plugin.c for TARGET.
dylib() {
	name=$1 && target=$2 && shift 2 &&
	zig_cc -target "$target" -O2 -shared -s -fvisibility=hidden "$@" \
		-o "$TRASH/lib$name.dylib" "$fix/plugin.c"
}
# wheel NAME PLATFORM [FILE=DST...]: NAME's wheel holding libNAME.dylib.
wheel() {
	name=$1 && plat=$2 && shift 2 &&
	"$TOOL_DIR/test-wheel" pack w --name "$name" --version 1 \
		--tag "py3-none-$plat" "lib$name.dylib=$name/lib$name.dylib" "$@"
}

expect_success 'zig links arm64 dylibs for macOS 12; verify passes them' '
	zig_cc -target aarch64-macos.12.0 -O2 -shared -s \
		-Wl,-install_name,@rpath/libdep.dylib -o libdep.dylib "$fix/dep.c" &&
	dylib good aarch64-macos.12.0 -DDEP -L. -ldep \
		-Wl,-install_name,@rpath/libgood.dylib \
		-Wl,-rpath,@loader_path -Wl,-rpath,@loader_path/../good &&
	w=$(wheel good macosx_12_0_arm64 libdep.dylib=good/libdep.dylib) &&
	"$TFBUILD" verify "$w" >out 2>err &&
	grep -qx "ok  $w" out &&
	! grep . err
'

# What verify -v says of good/libgood.dylib, and what llvm-otool-14 says.
expect_success 'verify -v lists the minos, dylibs, rpaths and install name llvm-otool-14 lists' '
	w=w/good-1-py3-none-macosx_12_0_arm64.whl &&
	"$TFBUILD" verify -v "$w" 2>err &&
	at="tfbuild: $w: good/libgood.dylib: arm64" &&
	sed -n "s|^$at dylib: minos \([^,]*\), .*|\1|p" err >v.minos &&
	sed -n "s|^$at dylib: .*, install name \([^,]*\), .*|\1|p" err >v.id &&
	sed -n "s|^$at: dylib \(.*\) (load)$|\1|p" err >v.dylibs &&
	sed -n "s|^$at: rpath ||p" err >v.rpaths &&
	grep -q "^$at dylib: .*, code signature present$" err &&
	llvm-otool-14 -l libgood.dylib >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >o.minos &&
	sed -n "/cmd LC_ID_DYLIB/{n;n;s/^ *name \(.*\) (offset .*/\1/p;}" l >o.id &&
	sed -n "/cmd LC_RPATH/{n;n;s/^ *path \(.*\) (offset .*/\1/p;}" l >o.rpaths &&
	grep -q "cmd LC_CODE_SIGNATURE" l &&
	llvm-otool-14 -L libgood.dylib | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >o.dylibs &&
	echo 12.0 >want && compare want o.minos && compare o.minos v.minos &&
	echo @rpath/libgood.dylib >want && compare want o.id && compare o.id v.id &&
	printf "@loader_path\n@loader_path/../good\n" >want &&
	compare want o.rpaths && compare o.rpaths v.rpaths &&
	printf "/usr/lib/libSystem.B.dylib\n@rpath/libdep.dylib\n" >want &&
	compare want o.dylibs && compare o.dylibs v.dylibs
'

# pack NAME FILE=DST...: a macosx_12_0_arm64 wheel of those files.
pack() {
	name=$1 && shift &&
	"$TOOL_DIR/test-wheel" pack w --name "$name" --version 1 \
		--tag py3-none-macosx_12_0_arm64 "$@"
}

expect_success 'each @rpath load resolves in the wheel, and exports what is bound to it' '
	dylib nodep aarch64-macos.12.0 -Wl,-install_name,@rpath/libdep.dylib &&
	w=$(pack miss libgood.dylib=miss/libgood.dylib libnodep.dylib=miss/libdep.dylib) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: miss/libgood.dylib: arm64 slice: 1 symbol is bound to .@rpath/libdep.dylib., which is .miss/libdep.dylib. in this wheel, but it does not export it: ._tf_host_value." err &&
	test $(grep -c "^tfbuild: $w" err) = 1 &&
	echo text >libdep.txt &&
	w=$(pack text libgood.dylib=text/libgood.dylib libdep.txt=text/libdep.dylib) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: text/libgood.dylib: arm64 slice: loads .@rpath/libdep.dylib., which is .text/libdep.dylib. in this wheel: not a Mach-O file with an arm64 slice" err &&
	w=$(pack alone libgood.dylib=alone/libgood.dylib) &&
	"$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: warning: $w: alone/libgood.dylib: arm64 slice: .@rpath/libdep.dylib. is no file of this wheel through its rpaths: another distribution must provide it" err &&
	grep -q "alone/libgood.dylib: arm64 slice: rpath .@loader_path/../good. leads to .good/., which this wheel does not have" err &&
	test $(grep -c . err) = 2
'

expect_success 'a dylib for macOS 13 in a macosx_12_0 wheel is refused (exit 6); tagged 13_0, it passes' '
	dylib new aarch64-macos.13.0 -Wl,-install_name,@rpath/libnew.dylib &&
	w=$(wheel new macosx_12_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: new/libnew.dylib: arm64 slice: needs macOS 13.0 (its minos), above the macOS 12.0 that the tag macosx_12_0_arm64 promises: build it for macOS 12.0, or tag the wheel macosx_13_0 or above" err &&
	w=$(wheel new macosx_13_0_arm64) &&
	"$TFBUILD" verify "$w" 2>err &&
	! grep . err
'

expect_success 'an x86_64 dylib in an arm64 wheel is refused; in an x86_64 wheel it passes' '
	dylib intel x86_64-macos.12.0 -Wl,-install_name,@rpath/libintel.dylib &&
	w=$(wheel intel macosx_12_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: intel/libintel.dylib: x86_64 slice: an architecture the wheel.s tag does not name (the tag is macosx_12_0_arm64)" err &&
	grep -qx "tfbuild: $w: intel/libintel.dylib: no arm64 slice, which the tag macosx_12_0_arm64 promises" err &&
	w=$(wheel intel macosx_12_0_x86_64) &&
	"$TFBUILD" verify -v "$w" 2>err &&
	grep -q "intel/libintel.dylib: x86_64 dylib: minos 12.0, .*, code signature absent$" err &&
	! grep -v "^tfbuild: $w: intel/libintel.dylib: x86_64[: ]" err
'

expect_success 'universal2: both slices or refused' '
	dylib a12 aarch64-macos.12.0 -Wl,-install_name,@rpath/libuni.dylib &&
	llvm-lipo-14 -create libintel.dylib liba12.dylib -output libuni.dylib &&
	w=$(wheel uni macosx_12_0_universal2) &&
	"$TFBUILD" verify "$w" 2>err &&
	! grep . err &&
	cp libnew.dylib libarm.dylib &&
	w=$(wheel arm macosx_13_0_universal2) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: arm/libarm.dylib: no x86_64 slice, which the tag macosx_13_0_universal2 promises" err
'

expect_success 'build paths in the install name, an rpath and a load command are refused' '
	dylib bp aarch64-macos.12.0 -Wl,-rpath,/home/build/lib &&
	w=$(wheel bp macosx_12_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: bp/libbp.dylib: arm64 slice: install name .$TRASH/libbp.dylib. is an absolute path outside /usr/lib/ and /System/Library/ (a build path?), where what links against it will look for it (use @rpath/NAME)" err &&
	grep -qx "tfbuild: $w: bp/libbp.dylib: arm64 slice: rpath ./home/build/lib. is an absolute path outside /usr/lib/ and /System/Library/ (a build path?), which exists only where it was built" err &&
	mkdir -p absdep &&
	zig_cc -target aarch64-macos.12.0 -O2 -shared -s \
		-o "$TRASH/absdep/libdep.dylib" "$fix/dep.c" &&
	dylib ld aarch64-macos.12.0 -DDEP -Labsdep -ldep \
		-Wl,-install_name,@rpath/libld.dylib &&
	w=$(wheel ld macosx_12_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: ld/libld.dylib: arm64 slice: LC_load dylib .$TRASH/absdep/libdep.dylib. is an absolute path outside /usr/lib/ and /System/Library/ (a build path?), which exists only where it was built" err &&
	test $(grep -c "^tfbuild: $w" err) = 1
'

expect_success 'an arm64 dylib without a code signature is refused' '
	"$PYTHON" "$fix/unsign.py" libnew.dylib libuns.dylib &&
	llvm-otool-14 -l libuns.dylib >l &&
	! grep -q LC_CODE_SIGNATURE l &&
	w=$(wheel uns macosx_13_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: uns/libuns.dylib: arm64 slice: no code signature (LC_CODE_SIGNATURE): macOS on Apple silicon refuses to load unsigned arm64 code (link with a linker that signs, or sign it ad hoc)" err
'

# The signature's page hashes are checked against the bytes: one byte
# of __TEXT,__text flipped after linking (as a patch or a strip after
# the linker would) is refused, naming the page; the file as the linker
# signed it passes, so every page of zig's ad-hoc signature matched.
expect_success 'a byte flipped under the code signature is refused, naming its page' '
	cp libnew.dylib libflip.dylib &&
	w=$(wheel flip macosx_13_0_arm64) &&
	"$TFBUILD" verify "$w" >out 2>err && ! grep . err &&
	off=$(llvm-otool-14 -l libflip.dylib |
		sed -n "/sectname __text/,/offset/s/^ *offset //p") &&
	test -n "$off" &&
	"$PYTHON" -c "import sys; f = open(sys.argv[1], \"r+b\"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 1]))" libflip.dylib "$off" &&
	! cmp -s libnew.dylib libflip.dylib &&
	w=$(wheel flip macosx_13_0_arm64) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -q "^tfbuild: $w: flip/libflip.dylib: arm64 slice: its code signature does not hold for its bytes: page [0-9]* (bytes [0-9]*-[0-9]*) does not match its hash: the bytes changed after signing (macOS kills a process when it maps such a page: sign it again after the last change)$" err &&
	page=$(sed -n "s/.*: page \([0-9]*\) (bytes \([0-9]*\)-\([0-9]*\)).*/\1 \2 \3/p" err) &&
	set -- $page && test "$2" -le "$off" && test "$off" -le "$3"
'

expect_success 'symbols bound by dynamic lookup are named in a warning' '
	dylib host aarch64-macos.12.0 -DHOST -undefined dynamic_lookup \
		-Wl,-install_name,@rpath/libhost.dylib &&
	w=$(wheel host macosx_12_0_arm64) &&
	"$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: warning: $w: host/libhost.dylib: arm64 slice: 1 undefined symbol is bound by dynamic lookup (-undefined dynamic_lookup), so nothing records which library provides it (._tf_host_value.)" err
'

expect_success 'Mach-O is found by its magic, not by its name; ELF wheels do not read it' '
	w=$("$TOOL_DIR/test-wheel" pack w --name magic --version 1 \
		--tag py3-none-macosx_12_0_arm64 libnew.dylib=magic/blob.dat) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -q "^tfbuild: $w: magic/blob.dat: arm64 slice: needs macOS 13.0" err &&
	w=$("$TOOL_DIR/test-wheel" pack w --name linux --version 1 \
		--tag py3-none-manylinux_2_17_x86_64 libnew.dylib=linux/libnew.dylib) &&
	"$TFBUILD" verify "$w" 2>err &&
	! grep . err
'

expect_success 'a Mach-O plugin library must export its framework.s entry point' '
	touch init.py &&
	dylib pjrt aarch64-macos.12.0 -DPJRT -Wl,-install_name,@rpath/libpjrt.dylib &&
	dylib nopjrt aarch64-macos.12.0 -Wl,-install_name,@rpath/libpjrt.dylib &&
	for lib in pjrt nopjrt; do
		"$TOOL_DIR/test-wheel" pack w$lib --name jmac --version 1 \
			--tag py3-none-macosx_12_0_arm64 --requires jax==0.10.2 \
			--requires jaxlib==0.10.2 \
			--entry-point jax_plugins:jmac=jax_plugins.jmac \
			init.py=jax_plugins/jmac/__init__.py \
			lib$lib.dylib=jax_plugins/jmac/libpjrt.dylib >/dev/null || return 1
	done &&
	w=wpjrt/jmac-1-py3-none-macosx_12_0_arm64.whl &&
	"$TFBUILD" verify "$w" 2>err &&
	! grep . err &&
	w=wnopjrt/jmac-1-py3-none-macosx_12_0_arm64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -q "^tfbuild: $w: jax_plugins/jmac/libpjrt.dylib: a PJRT plugin library that does not export GetPjrtApi" err &&
	dylib se aarch64-macos.12.0 -DSE -Wl,-install_name,@rpath/libse.dylib &&
	w=$(pack tmac --requires tensorflow==2.21.0 libse.dylib=tensorflow-plugins/libtmac.dylib) &&
	"$TFBUILD" verify "$w" 2>err &&
	! grep . err &&
	w=$(pack tnone --requires tensorflow==2.21.0 libpjrt.dylib=tensorflow-plugins/libtnone.dylib) &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	grep -q "^tfbuild: $w: tensorflow-plugins/libtnone.dylib: a TensorFlow plugin library that does not export SE_InitPlugin" err
'

expect_success 'without its reader (libtfmacho.so) a Mach-O file cannot be checked: said, refused' '
	w=w/new-1-py3-none-macosx_13_0_arm64.whl &&
	expect_code 6 env TFBUILD_LIBTFMACHO="$TRASH/nonexistent.so" \
		"$TFBUILD" verify "$w" 2>err &&
	grep -qx "tfbuild: $w: new/libnew.dylib: cannot read it as Mach-O: cannot load libtfmacho.so, which reads Mach-O files through LLVM (build it with .make.; it needs Debian.s libllvm14): $TRASH/nonexistent.so: not there" err
'

expect_success 'make install puts the reader in PREFIX/lib/tfbuild/, where the installed binary finds it' '
	mkdir -p mk/docs mk/contrib/completion mk/obj &&
	cp "$SRC_ROOT/Makefile" mk/ && cp "$SRC_ROOT/docs/tfbuild.1" mk/docs/ &&
	cp "$SRC_ROOT"/contrib/completion/* mk/contrib/completion/ &&
	cp "$TFBUILD" mk/tfbuild && cp "$TOOL_DIR/../libtfmacho.so" mk/obj/ &&
	make -s -C mk -o tfbuild -o obj/libtfmacho.so BIN=tfbuild install \
		DESTDIR="$TRASH/inst" PREFIX=/usr >/dev/null &&
	w=w/new-1-py3-none-macosx_12_0_arm64.whl &&
	expect_code 6 inst/usr/bin/tfbuild verify "$w" 2>err &&
	grep -q "^tfbuild: $w: new/libnew.dylib: arm64 slice: needs macOS 13.0" err &&
	mkdir -p alone/bin && cp inst/usr/bin/tfbuild alone/bin/ &&
	expect_code 6 alone/bin/tfbuild verify "$w" 2>err &&
	grep -q "cannot load libtfmacho.so, .*: $TRASH/alone/bin/obj[-a-z]*/libtfmacho.so: not there; $TRASH/alone/bin/../libtfmacho.so: not there; $TRASH/alone/bin/../lib/tfbuild/libtfmacho.so: not there$" err
'

test_done
