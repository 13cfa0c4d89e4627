#!/bin/sh
# Issue 36: `tfbuild verify` on jax-mps 0.10.11 (a PJRT plugin for
# Apple GPUs; the newest for CPython 3.11), from the index by its
# sha256, kept in the test cache: its one Mach-O library needs macOS
# 14.0 under a macosx_14_0 tag, has an @rpath install name and an
# @loader_path rpath, is signed, and exports GetPjrtApi, which the
# plugin conventions now find in a Mach-O library: the wheel passes
# (t2260 shows a Mach-O PJRT library without it refused). llvm-otool-14
# and llvm-nm-14 agree.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/macho.sh"

req="$SRC_ROOT/tests/requirements/jax-mps-0.10.11-macos.txt"
dir=$TEST_CACHE/macos-wheels
whl=$dir/jax_mps-0.10.11-py3-none-macosx_14_0_arm64.whl
lib=jax_plugins/mps/lib/libpjrt_plugin_mps.dylib

expect_success 'jax-mps 0.10.11 from the index, by its hash' '
	with_lock "$dir.lock" macos_wheel_fetch "$req" macosx_14_0_arm64 "$whl" &&
	echo "5b777da81b48a5c9504ad40e16747083a61ccf8edd45a65e749831edf39b0e35  $whl" |
		sha256sum -c -
'

at="tfbuild: $whl: $lib"
expect_success 'verify passes it and -v lists what llvm-otool-14 lists' '
	"$TFBUILD" verify -v "$whl" >out 2>err &&
	grep -qx "ok  $whl" out &&
	! grep "warning\|refus" err &&
	grep -qx "$at: arm64 dylib: minos 14.0, sdk 26.5, install name @rpath/libpjrt_plugin_mps.dylib, code signature present" err &&
	sed -n "s|^$at: arm64: dylib \(.*\) ([a-z]*)$|\1|p" err >v.dylibs &&
	grep -qx "$at: arm64: dylib /System/Library/Frameworks/Foundation.framework/Versions/C/Foundation (weak)" err &&
	sed -n "s|^$at: arm64: rpath ||p" err >v.rpaths &&
	unzip -q -o "$whl" "$lib" &&
	llvm-otool-14 -l "$lib" >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >o.minos &&
	echo 14.0 >want && compare want o.minos &&
	sed -n "/cmd LC_RPATH/{n;n;s/^ *path \(.*\) (offset .*/\1/p;}" l >o.rpaths &&
	compare o.rpaths v.rpaths &&
	grep -q "cmd LC_LOAD_WEAK_DYLIB" l &&
	llvm-otool-14 -L "$lib" | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >o.dylibs &&
	compare o.dylibs v.dylibs &&
	llvm-nm-14 -gU "$lib" | grep -q " T _GetPjrtApi$"
'

test_done
