#!/bin/sh
# tfbuild refuses to pack a binary that does not fit its wheel's tag,
# and tfbuild verify refuses such a wheel made by anything else. Each
# refusal names the file inside the wheel, the rule and the value. The
# recipes are in tests/e2e/cross/ (docs/cross.md shows how to run them).
. "$(dirname "$0")/../lib/test-lib.sh"

C="$SRC_ROOT/tests/e2e/cross"
P="tfbuild: wheel 'badlib': pkg/liblib.so"

# refuse CASE MESSAGE: the recipe fails with exit 6, that exact message,
# and leaves no wheel behind.
refuse() {
	expect_code 6 "$TFBUILD" -q recipe --target all --build-dir "build-$1" \
		--out "out-$1" "$C/$1.yaml" 2>"$1.err" &&
	echo "$2" >expect && compare expect "$1.err" &&
	test -z "$(ls "out-$1" 2>/dev/null)"
}

expect_success 'an x86-64 library in an aarch64 wheel' '
	refuse x86-in-aarch64 "$P: ELF machine x86-64 does not match platform aarch64"
'

expect_success 'an aarch64 library linked for 4 KiB pages' '
	refuse aarch64-4k-pages "$P: is linked for 4096-byte pages; aarch64 wheels need 65536 (link with -Wl,-z,max-page-size=65536)"
'

expect_success 'manylinux_2_17 asked, but a binary needs a newer GLIBC symbol' '
	refuse manylinux-too-old "$P: needs GLIBC_2.36 (symbol '"'"'arc4random'"'"'), newer than manylinux_2_17 allows (GLIBC_2.17)"
'

expect_success 'a plugin library missing its entry symbol' '
	refuse missing-entry-symbol "$P: does not export required symbol '"'"'TFM_GetDeviceApi'"'"'"
'

expect_success 'a library that needs libpython' '
	refuse links-libpython "$P: links '"'"'libpython3.11.so.1.0'"'"' (DT_NEEDED); Python extension modules must not link libpython"
'

# The same binaries, packed with the bare wheel writer (no ELF checks),
# as another tool could: verify must catch them.
pack_bad() { # NAME TAG SO
	mkdir -p "bad-$1" &&
	"$TOOL_DIR/test-wheel" pack "bad-$1" --name badlib --version 1.0.0 \
		--tag "$2" "$3=pkg/liblib.so" >/dev/null
}

expect_success 'verify: an x86-64 library in a wheel tagged aarch64' '
	pack_bad arch py3-none-manylinux_2_17_aarch64 build-x86-in-aarch64/x86-in-aarch64/aarch64/stage/lib/pkg/liblib.so &&
	w=bad-arch/badlib-1.0.0-py3-none-manylinux_2_17_aarch64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	echo "tfbuild: $w: pkg/liblib.so: ELF machine x86-64 does not match platform aarch64" >expect &&
	compare expect err
'

expect_success 'verify: a 4 KiB-page aarch64 library' '
	pack_bad pages py3-none-manylinux_2_17_aarch64 build-aarch64-4k-pages/aarch64-4k-pages/aarch64/stage/lib/pkg/liblib.so &&
	w=bad-pages/badlib-1.0.0-py3-none-manylinux_2_17_aarch64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	echo "tfbuild: $w: pkg/liblib.so: is linked for 4096-byte pages; aarch64 wheels need 65536 (link with -Wl,-z,max-page-size=65536)" >expect &&
	compare expect err
'

expect_success 'verify: a manylinux_2_17 tag on a GLIBC_2.36 binary' '
	pack_bad glibc py3-none-manylinux_2_17_x86_64 build-manylinux-too-old/manylinux-too-old/x86_64/stage/lib/pkg/liblib.so &&
	w=bad-glibc/badlib-1.0.0-py3-none-manylinux_2_17_x86_64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	echo "tfbuild: $w: pkg/liblib.so: needs GLIBC_2.36 (symbol '"'"'arc4random'"'"'), newer than manylinux_2_17 allows (GLIBC_2.17)" >expect &&
	compare expect err
'

expect_success 'verify: a library that needs libpython' '
	pack_bad py py3-none-manylinux_2_17_x86_64 build-links-libpython/links-libpython/x86_64/stage/lib/pkg/liblib.so &&
	w=bad-py/badlib-1.0.0-py3-none-manylinux_2_17_x86_64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	echo "tfbuild: $w: pkg/liblib.so: links '"'"'libpython3.11.so.1.0'"'"' (DT_NEEDED); Python extension modules must not link libpython" >expect &&
	compare expect err
'

expect_success 'a recipe that pins a manylinux tag its binaries fit is accepted' '
	sed -e "s/-DNEEDS_NEW_GLIBC //" -e "s#path: \\.#path: $C#" \
		"$C/manylinux-too-old.yaml" >ok.yaml &&
	"$TFBUILD" -q recipe --build-dir build-ok --out out-ok ok.yaml >/dev/null &&
	test -f out-ok/badlib-1.0.0-py3-none-manylinux_2_17_x86_64.whl
'

test_done
