#!/bin/sh
# `meson test` in an aarch64 step runs build-machine scripts (issue 29
# trap 8): the target root holds an aarch64 python3 (target-packages
# plus $TARGET_PYTHON), and a test() whose runner starts with
# `#!/usr/bin/env python3` and takes the cross-built program as an
# argument still gets the build machine's python3. Meson 1.0 put the
# cross file's sys_root + /bin first on that test's PATH, so tfbuild's
# cross file names the root to the compilers, pkg-config and Meson's
# CMake (CMAKE_SYSROOT) but not as sys_root.
. "$(dirname "$0")/../lib/test-lib.sh"

# The .debs and roots are kept outside the repository across runs; the
# root is t1205's (zlib1g-dev and python3-minimal).
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE

mkdir mtp &&
cat >mtp/meson.build <<'EOF' &&
project('mtp', 'c')
zlib = dependency('ZLIB', method: 'cmake', modules: ['ZLIB::ZLIB'])
exe = executable('mtp', 'main.c', dependencies: zlib)
test('runner', find_program('runner.py'), args: [exe])
EOF
cat >mtp/main.c <<'EOF' &&
#include <stdio.h>
#include <zlib.h>
int main(void)
{
	printf("mtp zlib %s\n", zlibVersion());
	return 0;
}
EOF
cat >mtp/runner.py <<'EOF' &&
#!/usr/bin/env python3
import os, platform, shlex, subprocess, sys
print("runner machine:", platform.machine())
print("runner PATH:", os.environ["PATH"])
wrap = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))
sys.exit(subprocess.call(wrap + [sys.argv[1]]))
EOF
chmod +x mtp/runner.py &&
printf "[binaries]\ncmake = '/usr/bin/cmake'\n" >mtp/cmake.ini &&
cat >mtp.yaml <<'EOF' || exit 1
schema: 1
name: mtp
version: 1.0.0
targets: [aarch64]
target-packages: [zlib1g-dev]
sources:
  - name: proj
    path: mtp
steps:
  - name: meson
    source: proj
    run: |
      meson setup ${meson_args} --cross-file cmake.ini $BUILDDIR/b >$STAGE/configure.log 2>&1 ||
        { cat $STAGE/configure.log; exit 1; }
      cp $BUILDDIR/b/meson-logs/meson-log.txt $STAGE/
      ninja -C $BUILDDIR/b
      meson test -C $BUILDDIR/b -v >$STAGE/test.log 2>&1 || { cat $STAGE/test.log; exit 1; }
tests:
  - name: python
    run: |
      $TARGET_PYTHON -c 'import platform; print(platform.machine())' >$STAGE/machine.txt
EOF

"$TFBUILD" recipe --target aarch64 -j 2 --out out mtp.yaml >log 2>&1 || { cat log; exit 1; }
A=build/mtp/aarch64
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR='\(.*\)'$/\1/p" $A/toolchain/pkg-config)

expect_success 'meson test runs the build machine python3 and the aarch64 program' '
	case $root in "$TF_SYSROOT_CACHE"/arm64-*) ;; *) echo "root: $root"; exit 1 ;; esac &&
	file -L "$root/usr/bin/python3" | grep -q "ARM aarch64" &&
	echo aarch64 >expect && compare expect $A/stage/python/machine.txt &&
	grep -qx "runner machine: x86_64" $A/stage/meson/test.log &&
	grep -q "^mtp zlib 1.2.13$" $A/stage/meson/test.log &&
	grep -q "^1/1 runner  *OK" $A/stage/meson/test.log
'

expect_success 'no directory of the target root is a bin/ on the test PATH' '
	sed -n "s/^runner PATH: //p" $A/stage/meson/test.log | tr : "\n" >path &&
	test -s path &&
	! grep -E "^$root(/usr)?/s?bin/?$" path
'

expect_success 'the cross file has no sys_root; Meson'"'"'s CMake gets the root as CMAKE_SYSROOT' '
	! grep -q sys_root $A/toolchain/meson-cross.ini &&
	grep -qx "CMAKE_SYSROOT = '"'"'$root'"'"'" $A/toolchain/meson-cross.ini &&
	grep -q "^Run-time dependency zlib (modules: ZLIB::ZLIB) found: YES 1.2.13" $A/stage/meson/meson-log.txt &&
	grep -qx "set(CMAKE_SYSROOT \"$root\")" $A/work/meson/b/meson-private/cmake_ZLIB/CMakeMesonToolchainFile.cmake
'

test_done
