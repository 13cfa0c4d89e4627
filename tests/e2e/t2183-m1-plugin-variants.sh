#!/bin/sh
# m1-plugin ships variants (docs/variants.md, docs/isa.md):
# recipes/m1-plugin-variants.yaml builds the m1 plugin for both targets,
# once per label with one kernel table (backend/Makefile ISA=...) and
# once as the dispatching null variant; its kernels test runs per
# variant and on the oldest CPU each label claims; variantlib validates
# every file; the audit accepts each label with the code it holds (v1:
# SSE2 only, v3: AVX2+FMA, null: both, chosen at run time); and each
# wheel's plugin, loaded as tfmini does on qemu CPU models, picks what
# its label says, or refuses a CPU below it with its own error.
. "$(dirname "$0")/../lib/test-lib.sh"

for q in qemu-x86_64 qemu-aarch64 aarch64-linux-gnu-gcc; do
	if ! command -v $q >/dev/null; then
		skip "no $q"
		test_done
	fi
done
recipe="$SRC_ROOT/recipes/m1-plugin-variants.yaml"
fix="$SRC_ROOT/tests/fixtures"
include="$SRC_ROOT/recipes/upstream/tfmini-1.0.0/include"
whl=tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1

# build OUT: the recipe for both targets, wheels in OUT.
build() {
	"$TFBUILD" recipe --target all -j 2 --build-dir build --out "$1" \
		--set mirror="file://$TRASH/mirror" "$recipe"
}

# plugin TARGET LABEL: the plugin library of that wheel, unpacked.
plugin() {
	d="x/$1-$2" &&
	if [ ! -d "$d" ]; then
		mkdir -p "$d" && (cd "$d" && unzip -q "../../w/$whl"_"$1".*"$1-$2.whl")
	fi &&
	echo "$d/tfmini_m1_plugin/libtfmini_m1.so"
}

expect_success 'both targets: a wheel per label and the null one, kernels tested per variant' '
	build w 2>err &&
	grep "15 of 15 steps ran" err &&
	grep "building backend@x86_64_v3 for x86_64" err &&
	grep "building kernels@baseline@x86_64_v3 for x86_64" err &&
	grep "building kernels@baseline@armv8_0a for aarch64" err &&
	! grep -i warning err &&
	ls w >names &&
	cat >expect <<-EOF &&
	SHA256SUMS
	m1-plugin-variants.intoto.json
	${whl}_aarch64.manylinux2014_aarch64-armv8_0a.whl
	${whl}_aarch64.manylinux2014_aarch64-null.whl
	${whl}_x86_64.manylinux2014_x86_64-null.whl
	${whl}_x86_64.manylinux2014_x86_64-x86_64_v1.whl
	${whl}_x86_64.manylinux2014_x86_64-x86_64_v3.whl
	tfmini_m1_plugin-1.0.0-variants.json
	EOF
	compare expect names &&
	grep "  tfmini_m1_plugin-1.0.0-variants.json$" w/SHA256SUMS
'

expect_success 'variantlib validates every variant.json and the variants JSON' '
	if ! "$TOOLS_BIN/python" -c "import variantlib" 2>/dev/null; then
		skip "variantlib is not in $TOOLS_BIN (make deps)" && return 0
	fi &&
	"$TOOLS_BIN/python" "$fix/variants/check.py" validate w >out &&
	test $(grep -c "^valid " out) = 5
'

expect_success 'the audit accepts each label with the code its build holds' '
	"$TFBUILD" verify -v w/*.whl >out 2>err &&
	test $(grep -c "^ok " out) = 5 &&
	grep "x86_64_v1.whl: tfmini_m1_plugin/libtfmini_m1.so: isa x86-64-v1;" err &&
	grep "x86_64_v3.whl: variant .x86_64_v3., claiming x86-64-v3$" err &&
	grep "x86_64_v3.whl: tfmini_m1_plugin/libtfmini_m1.so: isa x86-64-v3: .*fma x1 (first vfmadd231pd in matmul_avx2" err &&
	grep "x86_64-null.whl: tfmini_m1_plugin/libtfmini_m1.so: x86-64-v1, with paths for avx, avx2, fma chosen at run time" err &&
	grep "armv8_0a.whl: tfmini_m1_plugin/libtfmini_m1.so: isa armv8.0-a$" err &&
	"$TFBUILD" verify --sums w/SHA256SUMS --provenance w/m1-plugin-variants.intoto.json
'

expect_success 'each label has its one table, called by name; null has them all' '
	nm "$(plugin x86_64 x86_64_v1)" >v1 &&
	grep " add_sse2$" v1 && ! grep " add_avx2$" v1 && grep " m1_only_add$" v1 &&
	nm "$(plugin x86_64 x86_64_v3)" >v3 &&
	grep " add_avx2$" v3 && ! grep " add_sse2$" v3 && grep " m1_only_add$" v3 &&
	nm "$(plugin x86_64 null)" >null &&
	grep " add_avx2$" null && grep " add_sse2$" null && ! grep m1_only null &&
	aarch64-linux-gnu-nm "$(plugin aarch64 armv8_0a)" >a80 &&
	grep " add_neon$" a80 && grep " m1_only_add$" a80
'

# load CPU LABEL: m1_load on the x86-64 wheel LABEL under qemu -cpu CPU.
load() {
	qemu-x86_64 -cpu "$1" ./m1_load "$(plugin x86_64 "$2")"
}

expect_success 'loaded on CPU models, each wheel runs what its label says' '
	gcc -O2 -I"$include" -o m1_load "$fix/m1-variants/m1_load.c" -ldl &&
	test "$(load Nehalem x86_64_v1)" = "sse2 22.5" &&
	test "$(load Haswell x86_64_v1)" = "sse2 22.5" &&
	test "$(load Haswell x86_64_v3)" = "avx2 22.5" &&
	test "$(load Nehalem null)" = "sse2 22.5" &&
	test "$(load Haswell null)" = "avx2 22.5" &&
	aarch64-linux-gnu-gcc -O2 -I"$include" -o m1_load_arm "$fix/m1-variants/m1_load.c" -ldl &&
	test "$(qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu cortex-a53 ./m1_load_arm \
		"$(plugin aarch64 armv8_0a)")" = "neon 22.5"
'

# What keeps the v3 build off Nehalem is the label; should an installer
# ignore it, m1's own check refuses the CPU before a kernel runs.
expect_success 'the v3 wheel on a CPU without AVX2: m1 refuses it' '
	expect_code 1 load Nehalem x86_64_v3 >out &&
	grep "^error: this m1 build has only the avx2 kernels, which this CPU cannot run$" out
'

expect_success 'a second run runs nothing and rewrites no wheel' '
	ls -l --time-style=+%s.%N w/*.whl w/*-variants.json >before &&
	build w 2>err &&
	grep "0 of 15 steps ran, 15 up to date" err &&
	ls -l --time-style=+%s.%N w/*.whl w/*-variants.json >after &&
	compare before after
'

test_done
