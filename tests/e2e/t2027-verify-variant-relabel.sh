#!/bin/sh
# A variant label is judged by the audit of the code, never by a file in
# the wheel (docs/variants.md): a wheel built for x86-64-v3 and renamed
# -x86_64_v1, its variant.json rewritten and RECORD kept true, is refused
# by verify, whatever its tfbuild-isa says. The same rewrite that keeps
# the v3 label passes, so the refusal is the label's, not the rewrite's.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/variants"
rewheel="$TESTS_DIR/lib/rewheel.py"
plat=py3-none-manylinux_2_5_x86_64.manylinux1_x86_64

# relabel IN OUT EDIT...: IN's variant x86_64_v3 made x86_64_v1.
relabel() {
	in=$1 out=$2 &&
	shift 2 &&
	"$PYTHON" "$rewheel" "$in" "$out" \
		"sub:*/variant.json:\"x86_64_v3\":\"x86_64_v1\"" \
		"sub:*/variant.json:\"v3\":\"v1\"" "$@"
}

expect_success 'a real variants build: the v3 wheel verifies, and its record says v3' '
	cp -R "$fix" a &&
	sed "s/^targets: .*/targets: [x86_64]/" "$fix/recipe.yaml" >a/recipe.yaml &&
	"$TFBUILD" recipe --target x86_64 a/recipe.yaml --out a/w 2>err &&
	"$TFBUILD" verify a/w/dot8-1.0.0-$plat-x86_64_v3.whl &&
	unzip -p a/w/dot8-1.0.0-$plat-x86_64_v3.whl dot8-1.0.0.dist-info/tfbuild-isa >isa &&
	grep "^Minimum: x86-64-v3$" isa
'

expect_success 'the rewrite itself is sound: kept as v3 it passes' '
	mkdir same &&
	"$PYTHON" "$rewheel" a/w/dot8-1.0.0-$plat-x86_64_v3.whl \
		same/dot8-1.0.0-$plat-x86_64_v3.whl "sub:*/NOTICE:dot8:DOT8" &&
	"$TFBUILD" verify same/dot8-1.0.0-$plat-x86_64_v3.whl
'

expect_success 'relabelled x86_64_v1: refused, naming the AVX instruction and the label' '
	mkdir evil &&
	relabel a/w/dot8-1.0.0-$plat-x86_64_v3.whl evil/dot8-1.0.0-$plat-x86_64_v1.whl &&
	unzip -p evil/*.whl dot8-1.0.0.dist-info/variant.json >vj &&
	grep "\"x86_64_v1\"" vj &&
	! grep "v3" vj &&
	expect_code 6 "$TFBUILD" -v verify evil/dot8-1.0.0-$plat-x86_64_v1.whl 2>err &&
	grep "evil/dot8-1.0.0-$plat-x86_64_v1.whl: dot8-1.0.0.dist-info/tfbuild-isa: Minimum x86-64-v3 is above variant .x86_64_v1.: not counted, the code is held to the label" err &&
	grep "evil/dot8-1.0.0-$plat-x86_64_v1.whl: dot8/libdot8.so: needs x86-64-v3 (avx[0-9]*: v[a-z0-9]* in dot8+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1" err &&
	! grep "claiming x86-64-v3" err
'

expect_success 'beside the real index variants.json, whose x86_64_v1 it matches: still refused' '
	mkdir idx &&
	cp evil/*.whl idx/ &&
	cp a/w/dot8-1.0.0-variants.json idx/ &&
	expect_code 6 "$TFBUILD" -v verify idx/dot8-1.0.0-$plat-x86_64_v1.whl 2>err &&
	grep "variant .x86_64_v1. as in idx/dot8-1.0.0-variants.json" err &&
	grep "dot8/libdot8.so: needs x86-64-v3" err
'

expect_success 'a Dispatch line added to tfbuild-isa does not let the code through' '
	mkdir disp &&
	relabel a/w/dot8-1.0.0-$plat-x86_64_v3.whl disp/dot8-1.0.0-$plat-x86_64_v1.whl \
		"sub|*/tfbuild-isa|Minimum: x86-64-v3|Dispatch: dot8/libdot8.so" &&
	unzip -p disp/*.whl dot8-1.0.0.dist-info/tfbuild-isa >isa &&
	grep "^Dispatch: dot8/libdot8.so$" isa &&
	expect_code 6 "$TFBUILD" verify disp/*.whl 2>err &&
	grep "dot8/libdot8.so: needs x86-64-v3 (avx[0-9]*: v[a-z0-9]* in dot8+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1, and declares run-time dispatch but shows no check of the CPU: a variant is held to its label" err
'

test_done
