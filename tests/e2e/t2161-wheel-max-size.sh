#!/bin/sh
# A size budget per wheel (issue 27 point 5): the wheel key `max-size`
# (PyPI's 100 MiB by default); a wheel over it fails the run (exit 6),
# naming its size, the budget with its recipe position and its 3 largest
# entries, and leaves no wheel; `tfbuild verify --max-size` does the same
# for any wheel; a value that is not a size is a recipe error (exit 3).
. "$(dirname "$0")/../lib/test-lib.sh"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
mkdir -p r && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/patches" r/ || exit 1
recipe=r/recipes/greet.yaml
run() { # OUT
	"$TFBUILD" -q recipe --out "$1" --set mirror="file://$TRASH/mirror" "$recipe"
}
budget() { sed -i "s|^    max-size: .*||; s|^    requires-python:|    max-size: $1\n    requires-python:|" "$recipe"; }

expect_success 'under the default budget the wheel is written' '
	run ok && ls ok/greet-*.whl
'

expect_success 'a wheel over max-size fails the run, naming its 3 largest entries' '
	budget 2KiB &&
	line=$(grep -n "max-size:" "$recipe" | cut -d: -f1) &&
	expect_code 6 run over 2>err &&
	grep "is over\|over the size budget" err >msg &&
	grep -q "greet-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl: [0-9]* bytes ([0-9.]* KiB), over the size budget of 2048 bytes (2.0 KiB) (max-size .2KiB. at $recipe:$line:15); its largest entries, uncompressed: greet/libgreet.so [0-9]* bytes ([0-9.]* KiB), greet-1.0.0.dist-info/sboms/tfbuild.cdx.json [0-9]* bytes ([0-9.]* KiB), greet-1.0.0.dist-info/licenses/LICENSE 1076 bytes (1.1 KiB)$" msg &&
	! ls over/*.whl 2>/dev/null
'

expect_success 'a budget it fits in: the same wheel as with the default' '
	budget 1MiB && run fits && cmp ok/greet-*.whl fits/greet-*.whl
'

expect_success 'a max-size that is not a size is a recipe error at its position' '
	budget 12parsecs &&
	line=$(grep -n "max-size:" "$recipe" | cut -d: -f1) &&
	expect_code 3 run bad 2>err &&
	grep -q "^tfbuild: $recipe:$line:15: max-size .12parsecs. is not a size" err
'

expect_success 'verify --max-size refuses any wheel over it, with its largest entries' '
	w=$(ls ok/greet-*.whl) &&
	expect_code 6 "$TFBUILD" verify --max-size 4K "$w" 2>err &&
	grep -q "^tfbuild: $w: [0-9]* bytes .*over the size budget of 4096 bytes (4.0 KiB) (--max-size 4K); its largest entries, uncompressed: greet/libgreet.so" err &&
	"$TFBUILD" verify --max-size 100MiB "$w" >out && grep -q "^ok  $w$" out
'

expect_success 'verify --max-size with no size is a usage error' '
	expect_code 2 "$TFBUILD" verify --max-size lots ok/greet-*.whl 2>err &&
	grep -q "max-size .lots. is not a size" err
'

test_done
