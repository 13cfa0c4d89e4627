#!/bin/sh
# Selection works (docs/variants.md): variantlib, given the variants JSON
# and a provider plugin that reads the CPU it runs on, picks x86_64_v1 on
# a CPU model without AVX2 (qemu -cpu Nehalem) and x86_64_v3 on one with
# it (Haswell); armv8_0a on a Cortex-A53 and armv8_2a_dp on a model with
# dotprod (Cortex-A76). Each selected wheel's library then runs the smoke
# test on that CPU model; the v3 one dies on Nehalem, which is why the
# label matters. The plugin (tests/fixtures/variants/tfbuild_test_cpu.py)
# is our test code: WheelNext's providers read /proc/cpuinfo, which
# qemu-user shows of the host, not of the emulated model.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/variants"
vpy="$TOOLS_BIN/python"
if ! "$vpy" -c "import variantlib" 2>/dev/null; then
	skip "variantlib is not in $TOOLS_BIN (make deps)"
	test_done
fi
for q in qemu-x86_64 qemu-aarch64 aarch64-linux-gnu-gcc; do
	if ! command -v $q >/dev/null; then
		skip "no $q"
		test_done
	fi
done

# select PROBE EMULATOR: the label variantlib picks on that CPU.
select() {
	TFBUILD_TEST_PROBE="$PWD/$1" TFBUILD_TEST_CPU="$2" \
		PYTHONPATH="$fix" "$vpy" "$fix/check.py" select w "$vpy"
}

# smoke ARCH LABEL CC EMULATOR...: the smoke test linked against the
# library of the wheel labelled LABEL, run under EMULATOR.
smoke() {
	arch=$1 label=$2 cc=$3 &&
	shift 3 &&
	d="u-$label" &&
	rm -rf "$d" && mkdir "$d" &&
	(cd "$d" && unzip -q ../w/dot8-1.0.0-*_$arch-$label.whl) &&
	$cc -O2 -o "$d/smoke" "$fix/smoke.c" -L"$d/dot8" -ldot8 &&
	LD_LIBRARY_PATH="$d/dot8" "$@" "$d/smoke" >"out-$label"
}

expect_success 'build the variants' '
	cp -R "$fix" r &&
	"$TFBUILD" recipe --target all r/recipe.yaml --out w 2>err &&
	gcc -O2 -o probe-x86 "$fix/probe.c" &&
	aarch64-linux-gnu-gcc -O2 -static -o probe-arm "$fix/probe.c"
'

expect_success 'x86-64: Nehalem gets x86_64_v1, Haswell x86_64_v3' '
	test "$(select probe-x86 "qemu-x86_64 -cpu Nehalem")" = x86_64_v1 &&
	test "$(select probe-x86 "qemu-x86_64 -cpu Haswell")" = x86_64_v3
'

expect_success 'each selected x86-64 wheel runs the smoke test on its CPU model' '
	smoke x86_64 x86_64_v1 gcc qemu-x86_64 -cpu Nehalem &&
	smoke x86_64 x86_64_v3 gcc qemu-x86_64 -cpu Haswell &&
	compare out-x86_64_v1 out-x86_64_v3 &&
	grep "^dot8 -\{0,1\}[0-9]*$" out-x86_64_v1 &&
	! smoke x86_64 x86_64_v3 gcc qemu-x86_64 -cpu Nehalem 2>err
'

expect_success 'aarch64: Cortex-A53 gets armv8_0a, Cortex-A76 armv8_2a_dp' '
	test "$(select probe-arm "qemu-aarch64 -cpu cortex-a53")" = armv8_0a &&
	test "$(select probe-arm "qemu-aarch64 -cpu cortex-a76")" = armv8_2a_dp
'

expect_success 'each selected aarch64 wheel runs the smoke test on its CPU model' '
	cc=aarch64-linux-gnu-gcc &&
	export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu &&
	smoke aarch64 armv8_0a $cc qemu-aarch64 -cpu cortex-a53 &&
	smoke aarch64 armv8_2a_dp $cc qemu-aarch64 -cpu cortex-a76 &&
	compare out-armv8_0a out-armv8_2a_dp &&
	! smoke aarch64 armv8_2a_dp $cc qemu-aarch64 -cpu cortex-a53 2>err
'

test_done
