#!/bin/sh
# A full recipe run: the source is served by a local HTTP server, fetched,
# verified, extracted, patched, built and packed; the wheel installs with
# pip into a fresh virtual environment and its library loads from Python.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" || exit 1
start_httpd "$TRASH/mirror" || exit 1
recipe="$SRC_ROOT/recipes/greet.yaml"
# No platform in the recipe: the lowest manylinux policy its binary fits.
wheel=greet-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
run_recipe() {
	"$TFBUILD" recipe --cache "$TRASH/cache" --build-dir "$TRASH/build" "$@" "$recipe"
}

expect_success 'the recipe runs from a local HTTP server' '
	run_recipe --set mirror="$HTTP_URL" --out "$TRASH/wheels" >out 2>err &&
	test -f "$TRASH/wheels/$wheel" &&
	grep -q "GET /greet-1.0.0.tar.gz" "$TRASH/.httpd.log"
'

expect_success 'it prints the wheel with its sha256 and writes SHA256SUMS' '
	echo "$(sha256_of "$TRASH/wheels/$wheel")  $TRASH/wheels/$wheel" >expect &&
	compare expect out &&
	(cd "$TRASH/wheels" && sha256sum -c SHA256SUMS) &&
	test "$(wc -l <"$TRASH/wheels/SHA256SUMS")" = 1
'

expect_success 'the download is in the content-addressed cache' '
	sum=$(sha256_of "$TRASH/mirror/greet-1.0.0.tar.gz") &&
	test -f "$TRASH/cache/sha256/$sum"
'

expect_success 'no temporary files are left in the output directory' '
	ls -A "$TRASH/wheels" >list &&
	printf "%s\n" SHA256SUMS "$wheel" greet.intoto.json >expect &&
	compare expect list
'

expect_success 'the build tree is under --build-dir, with a log per step' '
	test -f "$TRASH/build/greet/x86_64/logs/lib.log" &&
	test -f "$TRASH/build/greet/x86_64/stage/lib/greet/libgreet.so" &&
	test ! -e "$SRC_ROOT/recipes/upstream/greet-1.0.0/libgreet.so"
'

expect_success 'tfbuild verify passes on the wheel' '
	"$TFBUILD" verify "$TRASH/wheels/$wheel"
'

expect_success 'PyPI'"'"'s checkers pass the wheel (tests/lib/checkers.sh)' '
	check_wheels "$TRASH/wheels/$wheel"
'

expect_success 'the wheel installs with pip into a fresh venv and its library loads' '
	"$PYTHON" -m venv "$TRASH/venv" &&
	"$TRASH/venv/bin/pip" install -q --no-index --no-deps "$TRASH/wheels/$wheel" &&
	"$TRASH/venv/bin/python" -c "
import greet
assert greet.add(2, 3) == 5, greet.add(2, 3)
assert greet.hello(\"m1\") == \"hello, m1, from tfbuild\", greet.hello(\"m1\")
assert greet.patched()
" &&
	"$TRASH/venv/bin/pip" show greet >show &&
	grep -q "^Version: 1.0.0$" show && grep -q "^License-Expression: MIT$" "$(dirname "$("$TRASH/venv/bin/python" -c "import greet; print(greet.__file__)")")/../greet-1.0.0.dist-info/METADATA"
'

expect_success 'verify fails on a copy with one byte changed' '
	cp "$TRASH/wheels/$wheel" bad.whl &&
	size=$(wc -c <bad.whl) &&
	printf "\\377" | dd of=bad.whl bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null &&
	expect_code 6 "$TFBUILD" verify bad.whl 2>err &&
	grep -q "^tfbuild: bad.whl: " err
'

expect_success 'offline, the cached source is enough' '
	run_recipe --offline --out "$TRASH/wheels2" --set mirror=http://127.0.0.1:9 >/dev/null &&
	cmp "$TRASH/wheels/$wheel" "$TRASH/wheels2/$wheel"
'

expect_success 'the same recipe twice gives the same wheel bytes' '
	run_recipe --set mirror="$HTTP_URL" --out "$TRASH/wheels3" -j 1 >/dev/null &&
	cmp "$TRASH/wheels/$wheel" "$TRASH/wheels3/$wheel"
'

test_done
