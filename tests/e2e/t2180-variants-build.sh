#!/bin/sh
# Variant wheels (PEP 825, docs/variants.md): a recipe's `variants` give
# one wheel per declared build and target, each with its label in the
# filename and its variant.json in RECORD, and the index's variants.json
# beside SHA256SUMS; variantlib accepts every file; the step that does
# not use the variant is built once; a second run runs nothing; two
# checkouts give the same bytes; tfbuild verify checks the wheels against
# the variants JSON.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/variants"
vpy="$TOOLS_BIN/python"
if ! "$vpy" -c "import variantlib" 2>/dev/null; then
	skip "variantlib is not in $TOOLS_BIN (make deps)"
	test_done
fi

expect_success 'both targets: three labelled wheels each, the shared step once' '
	cp -R "$fix" a &&
	"$TFBUILD" recipe --target all a/recipe.yaml --out a/w >out 2>err &&
	grep "8 of 8 steps ran" err &&
	test $(grep -c "building notice for" err) = 2 &&
	grep "building lib@x86_64_v3 for x86_64" err &&
	grep "building lib@armv8_2a_dp for aarch64" err &&
	ls a/w >names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64-x86_64_v1.whl$" names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64-x86_64_v3.whl$" names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64-null.whl$" names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64-armv8_0a.whl$" names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64-armv8_2a_dp.whl$" names &&
	grep "^dot8-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64-null.whl$" names &&
	grep "  dot8-1.0.0-variants.json$" a/w/SHA256SUMS &&
	grep "\"name\": \"dot8-1.0.0-variants.json\"" a/w/dot8.intoto.json &&
	! grep -i warning err
'

expect_success 'variantlib validates every variant.json and the variants JSON' '
	"$vpy" "$fix/check.py" validate a/w >out &&
	test $(grep -c "^valid " out) = 6 &&
	"$vpy" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"variants\"][\"armv8_2a_dp\"] == {\"aarch64\": {\"dotprod\": [\"on\"], \"version\": [\"8.2a\"]}}, d; assert d[\"variants\"][\"null\"] == {}; assert d[\"default-priorities\"][\"namespace\"] == [\"x86_64\", \"aarch64\"]" a/w/dot8-1.0.0-variants.json
'

# (The provenance says how each step was had, so it is rewritten.)
expect_success 'a second run runs nothing and rewrites no wheel, sums or JSON' '
	ls -l --time-style=+%s.%N a/w/*.whl a/w/*-variants.json a/w/SHA256SUMS >before &&
	"$TFBUILD" recipe --target all a/recipe.yaml --out a/w 2>err &&
	grep "0 of 8 steps ran, 8 up to date" err &&
	ls -l --time-style=+%s.%N a/w/*.whl a/w/*-variants.json a/w/SHA256SUMS >after &&
	compare before after
'

expect_success 'two checkouts give byte-identical wheels and variants JSON' '
	cp -R "$fix" b &&
	"$TFBUILD" recipe --target all b/recipe.yaml --out b/w 2>err &&
	compare a/w/SHA256SUMS b/w/SHA256SUMS &&
	for f in a/w/*.whl a/w/*-variants.json; do
		cmp "$f" "b/w/${f#a/w/}" || return 1
	done
'

expect_success 'tfbuild verify checks each wheel against the variants JSON' '
	"$TFBUILD" verify -v a/w/*.whl >out 2>err &&
	test $(grep -c "^ok " out) = 6 &&
	grep "x86_64_v3.whl: variant .x86_64_v3., claiming x86-64-v3" err &&
	grep "armv8_2a_dp.whl: variant .armv8_2a_dp. as in a/w/dot8-1.0.0-variants.json" err &&
	"$TFBUILD" verify --sums a/w/SHA256SUMS --provenance a/w/dot8.intoto.json
'

expect_success 'verify refuses a wheel whose label the variants JSON maps elsewhere' '
	mkdir c &&
	cp a/w/*x86_64_v1.whl c/ &&
	sed "s/\"v1\"/\"v2\"/" a/w/dot8-1.0.0-variants.json >c/dot8-1.0.0-variants.json &&
	expect_code 6 "$TFBUILD" verify c/*.whl 2>err &&
	grep "variant .x86_64_v1. has other properties in c/dot8-1.0.0-variants.json than in the wheel.s variant.json" err
'

expect_success 'verify refuses a variant wheel renamed to another label' '
	mkdir d &&
	cp a/w/*x86_64_v1.whl d/dot8-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64-x86_64_v2.whl &&
	expect_code 6 "$TFBUILD" verify d/*.whl 2>err &&
	grep "variant.json: no variant .x86_64_v2." err
'

test_done
