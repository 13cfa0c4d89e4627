#!/bin/sh
# One x86-64 host builds recipes/m1-plugin.yaml and recipes/tfmini.yaml
# for aarch64 and x86_64; tfbuild verify accepts every wheel; the aarch64
# wheels install with pip --platform/--target and pass the same smoke
# test as the x86-64 ones under qemu-aarch64, with an aarch64 CPython
# from Debian's arm64 packages unpacked into a sysroot (no system-wide
# install), and m1 reports NEON.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

smoke="$SRC_ROOT/tests/smoke/tfmini_smoke.py"
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
for r in m1-plugin tfmini; do
	"$TFBUILD" -q recipe --target all -j 2 --cache cache --build-dir "build-$r" \
		--out "$r" --set mirror="file://$TRASH/mirror" \
		"$SRC_ROOT/recipes/$r.yaml" || exit 1
done

# The arm64 CPython: Debian's packages, unpacked, kept across test runs.
. "$TESTS_DIR/lib/arm64.sh"
arm64_sysroot || exit 1
sysroot=$arm64_root

# wheel DIR NAME TARGET: the one wheel of distribution NAME for TARGET.
wheel() { ls "$1"/"$2"-*_"$3".whl; }

# install DIR WHEEL...: pip for another platform, into a plain directory.
# pip 23 takes --platform tags literally (manylinux_2_36 does not imply
# older policies), so name each wheel's own tags.
install_arm64() {
	dir=$1; shift
	plats=
	for w in "$@"; do
		tags=$(basename "$w" .whl); tags=${tags##*-}
		for t in $(echo "$tags" | tr . " "); do plats="$plats --platform $t"; done
	done
	tools_pip install -q --no-index --no-deps --target "$dir" $plats \
		--python-version 3.11 --implementation cp --only-binary=:all: "$@"
}

expect_success 'every target has both wheels of each recipe, manylinux-tagged' '
	for t in x86_64 aarch64; do
		test -f m1-plugin/tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17_$t.manylinux2014_$t.whl &&
		test -f m1-plugin/tfmini-1.0.0+m1-cp38-abi3-manylinux_2_34_$t.whl &&
		test -f tfmini/tfmini-1.0.0-cp38-abi3-manylinux_2_34_$t.whl || exit 1
	done
'

expect_success 'tfbuild verify accepts all of them' '
	"$TFBUILD" verify m1-plugin/*.whl tfmini/*.whl >out &&
	test "$(grep -c "^ok " out)" = 6
'

expect_success 'PyPI'"'"'s checkers pass every wheel (tests/lib/checkers.sh)' '
	check_wheels m1-plugin/*.whl tfmini/*.whl
'

expect_success 'the audit shows m1'"'"'s AVX2 kernels, behind declared dispatch' '
	"$TFBUILD" verify -v "$(wheel m1-plugin tfmini_m1_plugin x86_64)" >out 2>err &&
	grep "declared run-time dispatch: tfmini_m1_plugin/libtfmini_m1.so" err &&
	grep "tfmini_m1_plugin/libtfmini_m1.so: isa x86-64-v3: .*avx2 x[0-9]* (first [a-z0-9]* in [a-z0-9_]*avx2+0x.*(dispatches)\$" err &&
	"$TFBUILD" verify -v "$(wheel m1-plugin tfmini_m1_plugin aarch64)" >out 2>err &&
	grep "tfmini_m1_plugin/libtfmini_m1.so: isa armv8.0-a\( (dispatches)\)*\$" err
'

expect_success 'aarch64 wheels hold aarch64 code, x86_64 wheels x86-64 code' '
	for t in aarch64 x86_64; do
		w=$(wheel m1-plugin tfmini_m1_plugin $t) &&
		rm -rf x && mkdir x && (cd x && unzip -q "../$w") &&
		file -L x/tfmini_m1_plugin/libtfmini_m1.so >f &&
		case $t in
		aarch64) grep -q "ARM aarch64" f ;;
		x86_64) grep -q "x86-64" f ;;
		esac || { cat f; exit 1; }
	done
'

expect_success 'the arm64 CPython runs under qemu-aarch64' '
	py_arm64 -c "import platform; print(platform.machine())" >m &&
	echo aarch64 >expect && compare expect m
'

expect_success 'aarch64: custom tfmini+m1 alone computes like the CPU, with NEON' '
	install_arm64 site-custom "$(wheel m1-plugin "tfmini-1.0.0+m1" aarch64)" &&
	PYTHONPATH="$TRASH/site-custom" py_arm64 "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon --builtin
'

expect_success 'aarch64: stock tfmini + plugin wheel, found by its entry point' '
	install_arm64 site-plugin "$(wheel tfmini "tfmini-1.0.0" aarch64)" \
		"$(wheel m1-plugin tfmini_m1_plugin aarch64)" &&
	PYTHONPATH="$TRASH/site-plugin" py_arm64 "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon --plugin
'

expect_success 'aarch64: the stock framework alone has only the CPU' '
	install_arm64 site-stock "$(wheel tfmini "tfmini-1.0.0" aarch64)" &&
	PYTHONPATH="$TRASH/site-stock" py_arm64 -c "import tfmini; print(tfmini.devices())" >d &&
	grep -qx "\[.cpu:0.\]" d
'

expect_success 'x86_64: the same smoke test passes on the x86-64 wheels' '
	"$PYTHON" -m venv --without-pip vx &&
	tools_pip --python vx/bin/python install -q --no-index --no-deps \
		"$(wheel m1-plugin "tfmini-1.0.0+m1" x86_64)" &&
	vx/bin/python "$smoke" --devices cpu:0,m1:0 --device m1 --builtin
'

# The baseline CPUs (docs/isa.md): m1's AVX2 kernels sit behind cpuid,
# so on a CPU without AVX2 it must pick SSE2 and still compute right.
expect_success 'x86_64 on the baseline CPU (qemu64): m1 falls back to SSE2' '
	qemu-x86_64 -cpu qemu64 vx/bin/python "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa sse2 --builtin >out &&
	grep "^OK: " out
'

expect_success 'aarch64 on the baseline CPU (cortex-a53): the smoke test passes' '
	PYTHONPATH="$TRASH/site-custom" qemu-aarch64 -cpu cortex-a53 -L "$sysroot" \
		"$sysroot/usr/bin/python3.11" "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon --builtin >out &&
	grep "^OK: " out &&
	PYTHONPATH="$TRASH/site-plugin" qemu-aarch64 -cpu cortex-a53 -L "$sysroot" \
		"$sysroot/usr/bin/python3.11" "$smoke" --devices cpu:0,m1:0 \
		--device m1 --isa neon --plugin >out &&
	grep "^OK: " out
'

test_done
