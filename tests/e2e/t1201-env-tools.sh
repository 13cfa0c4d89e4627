#!/bin/sh
# A cross step sees the target's whole tool set (issue 14 item 4) and
# the build-system files of issue 8 item 1; bare host compiler and
# binutils names fail naming the variable to use; native steps keep
# the usual PATH.
. "$(dirname "$0")/../lib/test-lib.sh"

cat >r.yaml <<'EOF'
schema: 1
name: envtools
version: 1.0.0
targets: [x86_64, aarch64]
host-tools: [strings]
steps:
  - name: show
    run: |
      env | sort >$STAGE/env.txt
      echo "${cmake_toolchain} ${meson_cross} ${meson_args} ${host_triple} ${build_triple}" >$STAGE/vars.txt
      for t in gcc gfortran ranlib cc g++ ld ar strip nm; do
        if $t --version >/dev/null 2>>$STAGE/bare.txt; then echo "$t ran" >>$STAGE/bare.txt; else echo "$t: $?" >>$STAGE/bare.txt; fi
      done
      strings --version >/dev/null && echo "strings allowed" >>$STAGE/bare.txt
      printf 'int main(void) { return 0; }\n' >gen.c
      $HOSTCC -o gen gen.c && ./gen && echo "HOSTCC links" >>$STAGE/bare.txt
EOF
"$TFBUILD" -q recipe --target all r.yaml 2>err || { cat err; exit 1; }
A=build/r/aarch64 X=build/r/x86_64

expect_success 'an aarch64 step gets every tool variable pointing at aarch64 tools' '
	for v in CC CXX AR RANLIB NM STRIP OBJCOPY OBJDUMP READELF LD AS; do
		val=$(sed -n "s/^$v=//p" $A/stage/show/env.txt) &&
		case $val in aarch64-linux-gnu-*) ;; *) echo "$v=$val"; exit 1 ;; esac &&
		"$val" --version >/dev/null 2>&1 </dev/null || test $v = AS || { echo "$v: $val does not run"; exit 1; }
	done &&
	grep -qx "HOST_TRIPLE=aarch64-linux-gnu" $A/stage/show/env.txt &&
	grep -qx "BUILD_TRIPLE=x86_64-linux-gnu" $A/stage/show/env.txt &&
	grep -qx "HOSTCC=/usr/bin/gcc -B/usr/bin/" $A/stage/show/env.txt &&
	grep -qx "PKG_CONFIG=$TRASH/$A/toolchain/pkg-config" $A/stage/show/env.txt &&
	grep -qx "PKG_CONFIG_LIBDIR=/usr/aarch64-linux-gnu/lib/pkgconfig" $A/stage/show/env.txt &&
	grep -qx "CMAKE_TOOLCHAIN_FILE=$TRASH/$A/toolchain/toolchain.cmake" $A/stage/show/env.txt &&
	grep -qx "MESON_CROSS_FILE=$TRASH/$A/toolchain/meson-cross.ini" $A/stage/show/env.txt &&
	grep -qx "PATH=$TRASH/$A/host-tools" $A/stage/show/env.txt &&
	if command -v aarch64-linux-gnu-gfortran >/dev/null; then
		grep -qx "FC=aarch64-linux-gnu-gfortran" $A/stage/show/env.txt
	else
		! grep -q "^FC=" $A/stage/show/env.txt
	fi
'

expect_success 'the variables name the files and triplets' '
	echo "$TRASH/$A/toolchain/toolchain.cmake $TRASH/$A/toolchain/meson-cross.ini --cross-file $TRASH/$A/toolchain/meson-cross.ini aarch64-linux-gnu x86_64-linux-gnu" >expect &&
	compare expect $A/stage/show/vars.txt &&
	echo "$TRASH/$X/toolchain/toolchain.cmake $TRASH/$X/toolchain/meson-native.ini --native-file $TRASH/$X/toolchain/meson-native.ini x86_64-linux-gnu x86_64-linux-gnu" >expect &&
	compare expect $X/stage/show/vars.txt
'

expect_success 'bare gcc, gfortran, ranlib (and friends) fail naming the variable' '
	cat >expect <<-EOF &&
	tfbuild: '"'"'gcc'"'"' is the build machine'"'"'s compiler; in a cross step use \$CC (aarch64-linux-gnu-gcc) for code that runs on the target, \$HOSTCC for a tool the build runs on this machine
	gcc: 127
	EOF
	head -n 2 $A/stage/show/bare.txt >actual && compare expect actual &&
	grep -qx "tfbuild: '"'"'ranlib'"'"' is the build machine'"'"'s ranlib; in a cross step use \$RANLIB (aarch64-linux-gnu-ranlib) for code that runs on the target, \$RANLIB_FOR_BUILD for a tool the build runs on this machine" $A/stage/show/bare.txt &&
	grep -q "^tfbuild: '"'"'gfortran'"'"' is the build machine'"'"'s Fortran compiler; " $A/stage/show/bare.txt &&
	for t in gcc gfortran ranlib cc g++ ld ar strip nm; do grep -qx "$t: 127" $A/stage/show/bare.txt || exit 1; done &&
	grep -qx "strings allowed" $A/stage/show/bare.txt &&
	grep -qx "HOSTCC links" $A/stage/show/bare.txt
'

# Issue 29 trap 6: a cross step that compiles a generator to run here
# (OpenBLAS's getarch) was told to use $CC, the target's compiler.
expect_success 'a guard names the build machine'"'"'s compiler too, and when to use which' '
	grep -q "^tfbuild: '"'"'cc'"'"' .* use \$CC (aarch64-linux-gnu-gcc) for code that runs on the target, \$HOSTCC for a tool the build runs on this machine\$" $A/stage/show/bare.txt &&
	grep -q "^tfbuild: '"'"'g++'"'"' .* use \$CXX (aarch64-linux-gnu-g++) for code that runs on the target, \$HOSTCXX for a tool the build runs on this machine\$" $A/stage/show/bare.txt &&
	grep -q "^tfbuild: '"'"'ar'"'"' .* \$AR_FOR_BUILD for a tool the build runs on this machine\$" $A/stage/show/bare.txt &&
	grep -qx "tfbuild: '"'"'ld'"'"' is the build machine'"'"'s linker; in a cross step use \$LD (aarch64-linux-gnu-ld)" $A/stage/show/bare.txt
'

expect_success 'native steps keep the fixed PATH and the host tools' '
	grep -qx "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" $X/stage/show/env.txt &&
	grep -qx "CC=gcc" $X/stage/show/env.txt && grep -qx "RANLIB=ranlib" $X/stage/show/env.txt &&
	grep -qx "gcc ran" $X/stage/show/bare.txt && grep -qx "ranlib ran" $X/stage/show/bare.txt
'

expect_success 'the toolchain files name the target tools, flags and emulator' '
	t=$A/toolchain/toolchain.cmake &&
	grep -qx "set(CMAKE_SYSTEM_NAME \"Linux\")" $t &&
	grep -qx "set(CMAKE_SYSTEM_PROCESSOR \"aarch64\")" $t &&
	grep -qx "set(CMAKE_C_COMPILER \"/usr/bin/aarch64-linux-gnu-gcc\")" $t &&
	grep -qx "set(CMAKE_RANLIB \"/usr/bin/aarch64-linux-gnu-ranlib\" CACHE FILEPATH \"\")" $t &&
	grep -q "^set(CMAKE_C_FLAGS_INIT \".*-ffile-prefix-map=$TRASH/$A=/tfbuild/aarch64" $t &&
	grep -x "set(CMAKE_CROSSCOMPILING_EMULATOR \"qemu-aarch64;-L;$TRASH/$A/toolchain/emulator-root\")" $t &&
	grep -qx "set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY \"ONLY\")" $t &&
	m=$A/toolchain/meson-cross.ini &&
	grep -qx "c = '"'"'/usr/bin/aarch64-linux-gnu-gcc'"'"'" $m &&
	grep -x "exe_wrapper = \['"'"'qemu-aarch64'"'"', '"'"'-L'"'"', '"'"'$TRASH/$A/toolchain/emulator-root'"'"'\]" $m &&
	grep -qx "cpu_family = '"'"'aarch64'"'"'" $m &&
	grep -q "^c_args = .*-ffile-prefix-map=$TRASH/$A=/tfbuild/aarch64" $m
'

expect_success 'a second run rewrites no toolchain file and runs nothing' '
	ls -l --time-style=full-iso $A/toolchain $X/toolchain >before &&
	sleep 1 &&
	"$TFBUILD" recipe --target all r.yaml 2>err &&
	grep -q "0 of 2 steps ran" err &&
	ls -l --time-style=full-iso $A/toolchain $X/toolchain >after &&
	compare before after
'

expect_success 'a changed toolchain (cflags) changes the files and reruns the steps' '
	cat >tc.yaml <<-EOF &&
	toolchains:
	  aarch64:
	    cflags: -O1 -fPIC
	EOF
	"$TFBUILD" recipe --target all --toolchain tc.yaml r.yaml 2>err &&
	grep -q "building show for aarch64" err && ! grep -q "building show for x86_64" err &&
	grep -q "^set(CMAKE_C_FLAGS_INIT \"-O1 -fPIC" $A/toolchain/toolchain.cmake
'

expect_success 'a host tool that is not installed is named at its position' '
	sed "s/host-tools: \[strings\]/host-tools: [no-such-tool-here]/" r.yaml >bad.yaml &&
	expect_code 5 "$TFBUILD" recipe --target aarch64 bad.yaml 2>err &&
	grep -qx "tfbuild: bad.yaml:5:14: host tool '"'"'no-such-tool-here'"'"' is not installed on this machine" err
'

test_done
