#!/bin/sh
# Target packages and build-system integration (issue 8 items 1-2,
# issue 14 item 5): a tiny CMake project and a tiny Meson project link
# zlib from `target-packages` (zlib1g-dev:arm64 unpacked into a cached
# root, not the build machine's) through the toolchain files, for both
# targets; their configure logs name only aarch64 tools; the aarch64
# programs run under qemu; $TARGET_PYTHON is an aarch64 CPython; a
# package the archive lacks is named before anything builds.
. "$(dirname "$0")/../lib/test-lib.sh"

# The .debs and roots are kept outside the repository across runs.
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE
cp -R "$TESTS_DIR/e2e/env/zdemo" "$TESTS_DIR/e2e/env/zdemo.yaml" .

"$TFBUILD" recipe --target all -j 2 --out out zdemo.yaml >log 2>&1 || { cat log; exit 1; }
A=build/zdemo/aarch64 X=build/zdemo/x86_64
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR='\(.*\)'$/\1/p" $A/toolchain/pkg-config)

expect_success 'the aarch64 root holds zlib1g-dev:arm64, from the cache outside the build' '
	case $root in "$TF_SYSROOT_CACHE"/arm64-*) ;; *) echo "root: $root"; exit 1 ;; esac &&
	grep -q "^zlib1g-dev:arm64=" "$root/.tfbuild-packages" &&
	grep -q "^zlib1g:arm64=" "$root/.tfbuild-packages" &&
	! grep -q "^libc6-dev:" "$root/.tfbuild-packages" &&
	file -L "$root/usr/lib/aarch64-linux-gnu/libz.so" | grep -q "ARM aarch64" &&
	test -L "$root/lib" && test -f "$root/etc/ld.so.cache" && test ! -s "$root/etc/ld.so.cache"
'

expect_success 'CMake (via $CMAKE_TOOLCHAIN_FILE) and Meson (via ${meson_args}) build and run both' '
	for t in $A $X; do
		for s in cmake meson; do
			grep -q "^zlib 1.2.13 round trip ok$" $t/stage/$s/run.txt || exit 1
		done
	done &&
	for s in cmake meson; do
		file $A/stage/$s/bin/zdemo | grep -q "ARM aarch64" &&
		file $X/stage/$s/bin/zdemo | grep -q "x86-64" || exit 1
	done
'

expect_success 'the aarch64 CMake configuration names only aarch64 tools and the target root' '
	c=$A/stage/cmake/CMakeCache.txt &&
	grep -E "^CMAKE_(C_COMPILER|C_COMPILER_AR|C_COMPILER_RANLIB|AR|RANLIB|STRIP|NM|OBJCOPY|OBJDUMP|READELF|LINKER|ADDR2LINE)(:[A-Z]+)?=" $c >tools &&
	test $(wc -l <tools) -ge 10 &&
	! grep -v "=/usr/bin/aarch64-linux-gnu-" tools &&
	grep -qx "ZLIB_LIBRARY_RELEASE:FILEPATH=$root/usr/lib/aarch64-linux-gnu/libz.so" $c &&
	grep -qx "ZLIB_INCLUDE_DIR:PATH=$root/usr/include" $c
'

expect_success 'the aarch64 Meson log names only aarch64 tools for the host machine' '
	m=$A/stage/meson/meson-log.txt &&
	grep "for the host machine" $m >host &&
	test $(wc -l <host) -ge 2 &&
	! grep -v "/usr/bin/aarch64-linux-gnu-gcc" host &&
	grep -q "^Run-time dependency zlib found: YES 1.2.13" $m &&
	grep -q "Found pkg-config: $TRASH/$A/toolchain/pkg-config" $m &&
	grep -q "^C compiler for the build machine: /usr/bin/gcc -B/usr/bin/ " $m &&
	! grep -q "is the build machine'"'"'s" $m
'

expect_success '$TARGET_PYTHON is the target CPython: aarch64 and x86_64' '
	echo aarch64 >expect && compare expect $A/stage/python/machine.txt &&
	echo x86_64 >expect && compare expect $X/stage/python/machine.txt
'

expect_success 'a second run asks apt nothing and runs no step' '
	"$TFBUILD" -v recipe --target all -j 2 --out out zdemo.yaml >log 2>&1 &&
	grep -q "0 of 8 steps ran, 8 up to date" log &&
	! grep -q "^tfbuild: run: apt" log
'

expect_success 'a package the archive lacks is named at its position, before anything builds' '
	sed "s/target-packages: \[zlib1g-dev\]/target-packages: [zlib1g-dev, no-such-package-tfbuild-dev]/" zdemo.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" recipe --target aarch64 --build-dir bad-build bad.yaml 2>err &&
	echo "tfbuild: bad.yaml:5:31: target package '"'"'no-such-package-tfbuild-dev'"'"' is not in the apt archive for aarch64 (arm64)" >expect &&
	compare expect err && test ! -e bad-build/bad/aarch64/stage
'

expect_success 'natively the package must be installed: a missing one is named' '
	sed "s/target-packages: \[zlib1g-dev\]/target-packages: [zlib1g-dev, no-such-package-tfbuild-dev]/" zdemo.yaml >bad.yaml &&
	expect_code 5 "$TFBUILD" recipe --target x86_64 --build-dir bad-build bad.yaml 2>err &&
	grep -qx "tfbuild: bad.yaml:5:31: target package '"'"'no-such-package-tfbuild-dev'"'"' is not installed on this machine (the native target x86_64 uses the build machine'"'"'s packages); install it: apt-get install no-such-package-tfbuild-dev" err
'

expect_success 'a malformed package name is a recipe error when loading' '
	sed "s/target-packages: \[zlib1g-dev\]/target-packages: [\"zlib1g-dev; rm -rf\"]/" zdemo.yaml >bad2.yaml &&
	expect_code 3 "$TFBUILD" recipe --build-dir bad-build bad2.yaml 2>err &&
	grep -q "^tfbuild: bad2.yaml:5:19: '"'"'zlib1g-dev; rm -rf'"'"' is not a Debian package name (NAME or NAME=VERSION)$" err
'

test_done
