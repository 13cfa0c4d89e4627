#!/bin/sh
# The emulator's root for a cross target without target packages
# (docs/cross.md "The emulator's root"): the guest's loader, libc and
# ld.so.cache all come from the cross toolchain, never the build
# machine's own libc for the target (libc6:arm64, which make deps
# installs with libpython3-dev:arm64), whose mix with the cross loader
# hangs the first pthread_create. Each way a step starts a target
# program: $EMULATOR, CMake's emulator (ctest), Meson's exe wrapper
# (meson test). A library only the build machine has for the target
# (zlib) is still found. Each test has a time limit, so the hang this
# fixes fails the run rather than the suite.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/emuroot"
cache=$PWD/cache
zlib=/usr/lib/aarch64-linux-gnu/libz.so.1

cat >emu.yaml <<EOF
schema: 1
name: emu
version: 1.0.0
targets: [aarch64]
sources:
  - name: fix
    path: $fix
steps:
  - name: progs
    source: fix
    run: |
      mkdir -p "\$STAGE/emu"
      \$CC \$CFLAGS \$LDFLAGS -pthread -o "\$STAGE/emu/threads" threads.c
      \$CXX \$CFLAGS \$LDFLAGS -pthread -o "\$STAGE/emu/threads_cxx" threads_cxx.cpp
      : >"\$STAGE/emu/__init__.py"
tests:
  - name: emulator
    needs: [progs]
    timeout: 60s
    run: |
      echo "prefix=\$QEMU_LD_PREFIX"
      \$EMULATOR "\${stage.progs}/emu/threads"
      \$EMULATOR "\${stage.progs}/emu/threads_cxx"
  - name: cmake
    source: fix
    timeout: 120s
    baseline: false
    run: |
      cmake -S . -B "\$BUILDDIR/b" >"\$BUILDDIR/configure.log" 2>&1 || { cat "\$BUILDDIR/configure.log"; exit 1; }
      cmake --build "\$BUILDDIR/b" >/dev/null
      cd "\$BUILDDIR/b" && ctest --output-on-failure --timeout 30
  - name: meson
    source: fix
    timeout: 120s
    baseline: false
    run: |
      meson setup \${meson_args} "\$BUILDDIR/b" >"\$BUILDDIR/configure.log" 2>&1 || { cat "\$BUILDDIR/configure.log"; exit 1; }
      meson test -C "\$BUILDDIR/b" --print-errorlogs -t 0.1
wheels:
  - name: emu
    version: 1.0.0
    files:
      - from: progs
        src: emu
        dst: .
EOF

expect_success 'a threaded C and C++ program run through $EMULATOR, ctest and meson test' '
	"$TFBUILD" -v recipe --target aarch64 --cache "$cache" --build-dir b --out w emu.yaml 2>out &&
	grep "^\[aarch64/emulator\] threads: 42$" out &&
	grep "^\[aarch64/emulator\] c++ threads: 42$" out &&
	grep "^\[aarch64/emulator@baseline\] threads: 42$" out &&
	grep "^\[aarch64/cmake\] 1/1 Test #1: threads .* Passed" out &&
	grep "^\[aarch64/meson\] 1/1 threads  *OK" out
'

expect_success 'the root is tfbuild'"'"'s: an empty ld.so.cache, the loader and lib/<triplet> linked to the cross toolchain' '
	prefix=$(sed -n "s/^\[aarch64\/emulator\] prefix=//p" out) &&
	test "$prefix" = "$TRASH/b/emu/aarch64/toolchain/emulator-root" &&
	test -f "$prefix/etc/ld.so.cache" && ! test -s "$prefix/etc/ld.so.cache" &&
	test "$(readlink "$prefix/lib/ld-linux-aarch64.so.1")" = /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 &&
	test "$(readlink "$prefix/lib/aarch64-linux-gnu")" = /usr/aarch64-linux-gnu/lib &&
	test "$(readlink "$prefix/usr/lib/aarch64-linux-gnu")" = /usr/aarch64-linux-gnu/lib &&
	grep -rlF -- "$prefix" b/emu/aarch64/toolchain >files &&
	grep "toolchain.cmake" files && grep "meson-cross.ini" files
'

expect_success 'the next run, with another cache, has nothing to do and writes nothing there' '
	"$TFBUILD" recipe --target aarch64 --cache "$cache-2" --build-dir b --out w emu.yaml 2>err2 &&
	grep -x "tfbuild: 0 of 5 steps ran, 5 up to date" err2 &&
	echo "$TRASH/b/emu/aarch64/toolchain/emulator-root" >roots && ! test -e "$cache-2/target-roots"
'

expect_success 'one half made, or for another toolchain, is made anew' '
	root=$(cat roots) &&
	echo "the emulator'"'"'s root for something else" >"$root/.tfbuild-emulator" && touch "$root/stale" &&
	"$TFBUILD" recipe --target aarch64 --cache "$cache" --build-dir b --out w --force emu.yaml 2>err4 &&
	test "$(head -n 1 "$root/.tfbuild-emulator")" = "the emulator'"'"'s root for /usr/aarch64-linux-gnu" &&
	! test -e "$root/stale" &&
	rm "$root/.tfbuild-emulator" &&
	"$TFBUILD" recipe --target aarch64 --cache "$cache" --build-dir b --out w --force emu.yaml 2>err5 &&
	test -f "$root/.tfbuild-emulator"
'

if test -e "$zlib"; then
	expect_success 'a library only the build machine has for the target is still found, with the cross libc' '
		sed -e "s|^  - name: emulator|  - name: zlib\n    source: fix\n    timeout: 60s\n    baseline: false\n    run: \\|\n      \\\$CC \\\$CFLAGS \\\$LDFLAGS -pthread -o \"\\\$BUILDDIR/zver\" zver.c $zlib\n      \\\$EMULATOR \"\\\$BUILDDIR/zver\"\n&|" emu.yaml >z.yaml &&
		"$TFBUILD" -v recipe --target aarch64 --cache "$cache" --build-dir bz --out wz z.yaml 2>zout &&
		grep "^\[aarch64/zlib\] zlib: 1\." zout
	'
else
	skip "the build machine has no zlib for aarch64 ($zlib)"
fi

test_done
