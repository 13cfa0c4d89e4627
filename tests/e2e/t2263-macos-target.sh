#!/bin/sh
# Issue 36 item 1: the macos-arm64 target. A C library of the test's own
# (tests/fixtures/macos) built by zig through tfbuild's launchers, with
# --target macos-arm64 and with --target all:
#   - the wheel is py3-none-macosx_12_0_arm64 (the default minimum,
#     macos-minimum: 12.0); llvm-otool-14 shows minos 12.0, the install
#     name @rpath/libdemo.dylib, no build path in any byte; `tfbuild
#     verify` passes it, twine check --strict too, and pip resolves it
#     for macosx_12_0_arm64; a second run runs nothing; another build
#     tree writes the same bytes; its test is skipped, saying why;
#   - macos-minimum: "13.0" gives minos 13.0 and macosx_13_0; a minimum
#     below 11.0 or not MAJOR.MINOR is refused at its place;
#   - zig alone leaves a 0-byte output behind a failed link; the
#     launcher leaves none;
#   - a build path as install name (the caller's own, which wins) fails
#     the pack: the Mach-O audit runs there.
# zig's cache is the suite's (tests/lib/macho.sh), filled once.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/macho.sh"

twine=$TOOLS_BIN/twine
fix=$SRC_ROOT/tests/fixtures/macos
export ZIG_GLOBAL_CACHE_DIR="$zig_cache"

# recipe FILE [TOP-LEVEL-LINE] [INSTALL-NAME-FLAG] [EXPORT]
recipe() {
	cat >"$1" <<-EOF
	schema: 1
	name: demo
	version: 1.0.0
	targets: [x86_64, macos-arm64]
	source-date-epoch: 1700000000
	${2-}
	sources:
	  - name: src
	    path: $fix
	steps:
	  - name: lib
	    source: src
	    run: |
	      echo "deployment target: \$MACOSX_DEPLOYMENT_TARGET"
	      \$CC \$CFLAGS -fvisibility=hidden -c -o "\$BUILDDIR/scale.o" scale.c
	      \$AR rc "\$BUILDDIR/libscale.a" "\$BUILDDIR/scale.o"
	      \$RANLIB "\$BUILDDIR/libscale.a"
	      mkdir -p "\$STAGE/demo"
	      \$CC \$CFLAGS -fvisibility=hidden -shared \
	        -o "\$STAGE/demo/libdemo.dylib" demo.c "\$BUILDDIR/libscale.a" ${3-}
	tests:
	  - name: loads
	    run: "true"
	wheels:
	  - name: demo
	    version: 1.0.0
	    python: py3
	    abi: none
	    summary: a C library for macOS, built here
	    license: MIT
	    files:
	      - from: lib
	        src: demo
	        dst: .
	    exports:
	      demo/libdemo.dylib: [${4:-demo_value}]
	EOF
}

expect_success 'zig'"'"'s cache is ready (the suite pays its first build once)' '
	zig_cc -target aarch64-macos.12.0 -O2 -shared -o warm.dylib "$fix/scale.c" &&
	test -s warm.dylib
'

w=out/demo-1.0.0-py3-none-macosx_12_0_arm64.whl
expect_success '--target macos-arm64 writes a macosx_12_0_arm64 wheel; its test is skipped' '
	recipe r.yaml &&
	"$TFBUILD" recipe --target macos-arm64 --out out r.yaml 2>err &&
	test -f $w &&
	grep -qx "tfbuild: test .loads. for macos-arm64 skipped: no emulator runs macOS code on this machine" err &&
	grep -qx "tfbuild: 1 of 3 steps ran, 2 skipped" err &&
	test "$(ls out/*.whl)" = $w
'

lib=build/r/macos-arm64/stage/lib/demo/libdemo.dylib
expect_success 'llvm-otool-14: minos 12.0, install name @rpath/libdemo.dylib, no build path' '
	llvm-otool-14 -l $lib >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >minos &&
	echo 12.0 >want && compare want minos &&
	sed -n "/cmd LC_ID_DYLIB/{n;n;s/^ *name \(.*\) (offset .*/\1/p;}" l >id &&
	echo @rpath/libdemo.dylib >want && compare want id &&
	! grep -q "cmd LC_RPATH" l &&
	grep -q "cmd LC_CODE_SIGNATURE" l &&
	llvm-nm-14 -gU $lib >syms &&
	grep -q " T _demo_value$" syms &&
	! grep -q demo_scale syms &&
	! grep -qa "$TRASH" $lib &&
	! grep -qa "/tfbuild/" $lib &&
	grep -qx "deployment target: 12.0" build/r/macos-arm64/logs/lib.log
'

expect_success 'tfbuild verify, twine check --strict and pip (for macosx_12_0_arm64) take it' '
	"$TFBUILD" verify -v $w 2>verr >vout &&
	grep -qx "ok  $w" vout &&
	grep -q "demo/libdemo.dylib: arm64 dylib: minos 12.0, .*install name @rpath/libdemo.dylib, code signature present$" verr &&
	"$twine" check --strict $w &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip install --dry-run \
		--no-index --only-binary=:all: --platform macosx_12_0_arm64 \
		--python-version 3.11 --target site $w >pip.out 2>&1 &&
	grep -q "Would install demo-1.0.0" pip.out
'

expect_success 'a second run runs nothing; another build tree writes the same bytes' '
	"$TFBUILD" recipe --target macos-arm64 --out out r.yaml 2>err &&
	grep -qx "tfbuild: 0 of 3 steps ran, 1 up to date, 2 skipped" err &&
	! grep -q "^tfbuild: building" err &&
	"$TFBUILD" recipe --target macos-arm64 --build-dir b2 --out out2 r.yaml &&
	cmp $w out2/$(basename $w)
'

expect_success '--target all builds the recipe'"'"'s Linux target and macOS' '
	"$TFBUILD" recipe --target all --out all r.yaml 2>err &&
	ls all/*.whl >wheels &&
	grep -qx "all/demo-1.0.0-py3-none-macosx_12_0_arm64.whl" wheels &&
	grep -q "all/demo-1.0.0-py3-none-manylinux_.*x86_64.whl" wheels &&
	test $(wc -l <wheels) = 2 &&
	cmp $w all/$(basename $w)
'

expect_success 'macos-minimum: "13.0" gives minos 13.0 and the tag macosx_13_0' '
	recipe r13.yaml "macos-minimum: \"13.0\"" &&
	"$TFBUILD" recipe --target macos-arm64 --out out13 r13.yaml &&
	test -f out13/demo-1.0.0-py3-none-macosx_13_0_arm64.whl &&
	llvm-otool-14 -l build/r13/macos-arm64/stage/lib/demo/libdemo.dylib >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >minos &&
	echo 13.0 >want && compare want minos &&
	grep -q "aarch64-macos.13.0" build/r13/macos-arm64/toolchain/zig/cc &&
	grep -q "CMAKE_OSX_DEPLOYMENT_TARGET \"13.0\"" build/r13/macos-arm64/toolchain/toolchain.cmake &&
	grep -q "^system = .darwin.$" build/r13/macos-arm64/toolchain/meson-cross.ini
'

expect_success 'a minimum below 11.0, or not MAJOR.MINOR, is refused at its place' '
	recipe old.yaml "macos-minimum: \"10.15\"" &&
	expect_code 3 "$TFBUILD" recipe --target macos-arm64 old.yaml 2>err &&
	grep -qx "tfbuild: old.yaml:6:16: .macos-minimum. is .10.15.: the macos-arm64 target needs macOS 11.0 or later (the first on Apple silicon)" err &&
	recipe bare.yaml "macos-minimum: \"12\"" &&
	expect_code 3 "$TFBUILD" recipe --target macos-arm64 bare.yaml 2>err &&
	grep -qx "tfbuild: bare.yaml:6:16: .macos-minimum. is .12., not a macOS version MAJOR.MINOR (\"12.0\")" err
'

# builds FILE: libdemo.dylib by CMake and by Meson, one wheel each.
builds() {
	cat >"$1" <<-EOF
	schema: 1
	name: demo-builds
	version: 1.0.0
	targets: [macos-arm64]
	source-date-epoch: 1700000000
	sources:
	  - name: src
	    path: $fix
	steps:
	  - name: cmake
	    source: src
	    run: |
	      cmake -S . -B "\$BUILDDIR/b" -DCMAKE_INSTALL_PREFIX="\$STAGE" -DCMAKE_BUILD_TYPE=Release
	      cmake --build "\$BUILDDIR/b"
	      cmake --install "\$BUILDDIR/b"
	  - name: meson
	    source: src
	    run: |
	      meson setup \${meson_args} --prefix="\$STAGE" "\$BUILDDIR/m"
	      meson install -C "\$BUILDDIR/m"
	wheels:
	  - name: demo_cmake
	    version: 1.0.0
	    python: py3
	    abi: none
	    files:
	      - from: cmake
	        src: demo
	        dst: demo
	  - name: demo_meson
	    version: 1.0.0
	    python: py3
	    abi: none
	    files:
	      - from: meson
	        src: demo
	        dst: demo
	EOF
}

expect_success 'CMake and Meson projects build through the toolchain and cross files' '
	builds b.yaml &&
	"$TFBUILD" recipe --target macos-arm64 --out ob b.yaml &&
	for k in cmake meson; do
		test -f ob/demo_$k-1.0.0-py3-none-macosx_12_0_arm64.whl &&
		llvm-otool-14 -D build/b/macos-arm64/stage/$k/demo/libdemo.dylib >id &&
		echo @rpath/libdemo.dylib >want && sed 1d id >got &&
		compare want got &&
		llvm-nm-14 -gU build/b/macos-arm64/stage/$k/demo/libdemo.dylib >syms &&
		grep -q " T _demo_value$" syms && ! grep -q demo_scale syms || return 1
	done
'

expect_success 'zig alone leaves a 0-byte file behind a failed link; the launcher none' '
	cc=build/r/macos-arm64/toolchain/zig/cc &&
	! zig_cc -target aarch64-macos.12.0 -shared -o alone.dylib \
		"$fix/unresolved.c" 2>/dev/null &&
	test -f alone.dylib && ! test -s alone.dylib &&
	! $cc -shared -o launched.dylib "$fix/unresolved.c" 2>err &&
	grep -q "undefined symbol: _demo_missing" err &&
	! test -e launched.dylib
'

expect_success 'a build path as install name fails the pack, as verify refuses it' '
	recipe abs.yaml "" "-Wl,-install_name,\$BUILDDIR/libdemo.dylib" &&
	expect_code 6 "$TFBUILD" recipe --target macos-arm64 --out outabs abs.yaml 2>err &&
	grep -q "^tfbuild: wheel .demo.: demo/libdemo.dylib: arm64 slice: install name .$TRASH/build/abs/macos-arm64/work/lib/libdemo.dylib. is an absolute path outside /usr/lib/ and /System/Library/" err &&
	! ls outabs/*.whl 2>/dev/null
'

expect_success 'a declared export the dylib does not export fails the pack' '
	recipe hid.yaml "" "" demo_scale &&
	expect_code 6 "$TFBUILD" recipe --target macos-arm64 --out outhid hid.yaml 2>err &&
	grep -qx "tfbuild: wheel .demo.: demo/libdemo.dylib: must export .demo_scale. but its arm64 slice does not (._demo_scale.)" err &&
	! ls outhid/*.whl 2>/dev/null
'

test_done
