#!/bin/sh
# The baseline-CPU run of a test (docs/isa.md, issue 29): every way a
# target program starts gets the baseline CPU, not only $EMULATOR: an
# inline LSE atomic (armv8.1-a) that the default qemu-aarch64 CPU runs
# dies on cortex-a53 through $TARGET_PYTHON, CMake's emulator (ctest)
# and Meson's exe wrapper (meson test). `baseline: COMMAND` reruns only
# COMMAND, where the test built; `baseline: false` reruns nothing.
. "$(dirname "$0")/../lib/test-lib.sh"

# The steps count their runs in a file outside their own directories,
# which the step sandbox forbids (t2120): they run without it.
export TFBUILD_SANDBOX=off

# The target roots (aarch64 CPython) are kept outside the repository.
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE
fix="$SRC_ROOT/tests/fixtures/baseline"

# recipe NAME TEST-BODY (the lines under `tests:`)
recipe() {
	cat >"$1.yaml" <<-EOF
	schema: 1
	name: $1
	version: 1.0.0
	targets: [aarch64]
	sources:
	  - name: fix
	    path: $fix
	steps:
	  - name: lib
	    source: fix
	    run: |
	      mkdir -p "\$STAGE/lib"
	      \$CC \$CFLAGS -march=armv8.1-a -mno-outline-atomics \$LDFLAGS -shared -fPIC -o "\$STAGE/lib/liblse.so" lse.c
	tests:
	$2
	wheels:
	  - name: lse
	    version: 1.0.0
	    isa: {dispatch: [lib/liblse.so]}
	    files:
	      - from: lib
	        src: lib
	        dst: .
	EOF
}

recipe py '  - name: py
    needs: [lib]
    run: |
      $TARGET_PYTHON -c "import ctypes; l = ctypes.CDLL(\"${stage.lib}/lib/liblse.so\"); n = ctypes.c_int(0); l.bump(ctypes.byref(n)); assert n.value == 1"'

recipe prog '  - name: prog
    source: fix
    needs: [lib]
    run: |
      $CC $CFLAGS $LDFLAGS -o "$BUILDDIR/t" lse_main.c -L${stage.lib}/lib -llse
      LD_LIBRARY_PATH=${stage.lib}/lib $EMULATOR "$BUILDDIR/t"'

recipe cm '  - name: cm
    source: fix
    run: |
      cmake -S . -B "$BUILDDIR/b" >"$BUILDDIR/configure.log" 2>&1 || { cat "$BUILDDIR/configure.log"; exit 1; }
      cmake --build "$BUILDDIR/b"
      cd "$BUILDDIR/b" && ctest --output-on-failure'

recipe ms '  - name: ms
    source: fix
    run: |
      meson setup ${meson_args} "$BUILDDIR/b" >"$BUILDDIR/configure.log" 2>&1 || { cat "$BUILDDIR/configure.log"; exit 1; }
      meson test -C "$BUILDDIR/b" --print-errorlogs'

# A test that builds (and counts its builds) then runs the program.
counting() {
	recipe "$1" "  - name: count
    source: fix
    $2
    run: |
      echo built >>\"\${recipe_dir}/$1.count\"
      \$CC \$CFLAGS -march=armv8.1-a -mno-outline-atomics \$LDFLAGS -o \"\$BUILDDIR/t\" lse_main.c lse.c
      \$EMULATOR \"\$BUILDDIR/t\""
}

counting cmd 'baseline: cd "$BUILDDIR" && $EMULATOR ./t'
counting off 'baseline: false'

baseline_sigill() {
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir "b-$1" --out "w-$1" "$1.yaml" 2>"err-$1" &&
	grep "building $2 for aarch64" "err-$1" &&
	! grep "step .$2. for aarch64 failed" "err-$1" &&
	grep "test .$2@baseline. for aarch64 hit an illegal instruction on the baseline CPU (qemu-aarch64 -cpu cortex-a53)" "err-$1"
}

expect_success 'as a program through $EMULATOR: passes, then SIGILL on the baseline CPU' '
	baseline_sigill prog prog
'

expect_success '$TARGET_PYTHON loading the same code: SIGILL on the baseline CPU' '
	baseline_sigill py py
'

expect_success 'CMake add_test run by ctest (CMAKE_CROSSCOMPILING_EMULATOR): SIGILL on the baseline CPU' '
	baseline_sigill cm cm
'

expect_success 'Meson test() run by meson test (exe_wrapper): SIGILL on the baseline CPU' '
	baseline_sigill ms ms
'

expect_success 'baseline: COMMAND builds once and runs COMMAND on the baseline CPU, where the test built' '
	baseline_sigill cmd count &&
	echo built >expect && compare expect cmd.count &&
	grep "suspect: .*/work/count/t: " err-cmd
'

expect_success 'baseline: false builds once and says the baseline run was skipped' '
	"$TFBUILD" recipe --target aarch64 --build-dir b-off --out w-off off.yaml 2>err-off &&
	echo built >expect && compare expect off.count &&
	grep "test .count. for aarch64: baseline run skipped by the recipe (baseline: false)" err-off &&
	! grep "count@baseline" err-off
'

expect_success 'a bad baseline value is refused at its position' '
	sed "s/^    baseline: false$/    baseline: true/" off.yaml >bad.yaml &&
	line=$(grep -n "baseline: true" bad.yaml | cut -d: -f1) &&
	expect_code 3 "$TFBUILD" recipe --target aarch64 --build-dir b-bad --out w-bad bad.yaml 2>err &&
	grep "bad.yaml:$line:15: .baseline. must be false (no run on the baseline CPU) or the command to run there, not .true." err
'

expect_success 'baseline on a build step is refused at its position' '
	sed "0,/^    source: fix$/s//    source: fix\n    baseline: false/" off.yaml >step.yaml &&
	line=$(grep -n "baseline: false" step.yaml | head -1 | cut -d: -f1) &&
	expect_code 3 "$TFBUILD" recipe --target aarch64 --build-dir b-st --out w-st step.yaml 2>err &&
	grep "step.yaml:$line:15: step .lib. has .baseline., which only tests have" err
'

test_done
