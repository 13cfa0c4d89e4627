#!/bin/sh
# Issue 36: `tfbuild verify` on an Apple-silicon wheel no one here
# built, tensorflow-metal 1.2.0 from the index (pinned by sha256, kept
# in the test cache), finishes and names what it finds: its dylib needs
# macOS 12.1 under a macosx_12_0 tag, its install name is a Bazel
# build path, its rpath leads to a Bazel folder no distribution
# installs, it loads TensorFlow's _pywrap_tensorflow_internal.so that
# no rpath of it finds, and 120 TensorFlow symbols are bound by dynamic
# lookup.
# llvm-otool-14 lists the same minos, dylibs, rpath and install name.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/macho.sh"

req="$SRC_ROOT/tests/requirements/tensorflow-metal-1.2.0-macos.txt"
dir=$TEST_CACHE/macos-wheels
whl=$dir/tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl
dylib=tensorflow-plugins/libmetal_plugin.dylib

expect_success 'tensorflow-metal 1.2.0 from the index, by its hash' '
	with_lock "$dir.lock" macos_wheel_fetch "$req" macosx_12_0_arm64 "$whl" &&
	echo "5fa7cee627031c14f45bd97ff0ef422cd6c3866199ff99cf29b94db6674ceb42  $whl" |
		sha256sum -c -
'

at="tfbuild: $whl: $dylib"
expect_success 'verify refuses it (exit 6) and names what it finds' '
	expect_code 6 "$TFBUILD" verify "$whl" >out 2>err &&
	cat err &&
	grep -qx "$at: arm64 slice: needs macOS 12.1 (its minos), above the macOS 12.0 that the tag macosx_12_0_arm64 promises: build it for macOS 12.0, or tag the wheel macosx_13_0 or above" err &&
	grep -qx "$at: arm64 slice: install name .bazel-out/darwin_arm64-opt/bin/metal_plugin/libmetal_plugin.dylib. is a relative path (a build path?), where what links against it will look for it (use @rpath/NAME)" err &&
	grep -qx "tfbuild: warning: $whl: $dylib: arm64 slice: rpath .@loader_path/../_solib_darwin_arm64/[^ ]*. leads to ._solib_darwin_arm64/[^ ]*/., which this wheel does not have (another distribution must install it)" err &&
	grep -qx "tfbuild: warning: $whl: $dylib: arm64 slice: 120 undefined symbols are bound by dynamic lookup (-undefined dynamic_lookup), so nothing records which library provides them (._TF_AllocateOutput., ._TF_AllocateTemp., ._TF_AllocateTensor., ...)" err &&
	grep -qx "tfbuild: warning: $whl: $dylib: arm64 slice: .@rpath/_pywrap_tensorflow_internal.so. is no file of this wheel through its rpaths: another distribution must provide it" err &&
	test $(grep -c "^tfbuild: $whl" err) = 2 &&
	! grep . out
'

expect_success 'verify -v lists what llvm-otool-14 lists' '
	expect_code 6 "$TFBUILD" verify -v "$whl" 2>err &&
	sed -n "s|^$at: arm64 dylib: minos \([^,]*\), .*|\1|p" err >v.minos &&
	sed -n "s|^$at: arm64 dylib: .*, install name \([^,]*\), .*|\1|p" err >v.id &&
	sed -n "s|^$at: arm64: dylib \(.*\) (load)$|\1|p" err >v.dylibs &&
	sed -n "s|^$at: arm64: rpath ||p" err >v.rpaths &&
	grep -q "^$at: arm64 dylib: minos 12.1, sdk 15.2, .*, code signature present$" err &&
	unzip -q -o "$whl" "$dylib" &&
	llvm-otool-14 -l "$dylib" >l &&
	sed -n "/cmd LC_BUILD_VERSION/,/minos/s/^ *minos //p" l >o.minos &&
	sed -n "/cmd LC_ID_DYLIB/{n;n;s/^ *name \(.*\) (offset .*/\1/p;}" l >o.id &&
	sed -n "/cmd LC_RPATH/{n;n;s/^ *path \(.*\) (offset .*/\1/p;}" l >o.rpaths &&
	llvm-otool-14 -L "$dylib" | sed "1,2d; s/^[[:space:]]*//; s/ (compat.*//" >o.dylibs &&
	echo 12.1 >want && compare want o.minos && compare o.minos v.minos &&
	compare o.id v.id && compare o.rpaths v.rpaths &&
	test $(wc -l <o.dylibs) = 9 && compare o.dylibs v.dylibs &&
	llvm-nm-14 -m "$dylib" | grep -c "(undefined) external .* (dynamically looked up)" >o.lookup &&
	echo 120 >want && compare want o.lookup
'

test_done
