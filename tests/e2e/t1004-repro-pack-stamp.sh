#!/bin/sh
# An unchanged run keeps the wheels in the output folder without packing,
# auditing or verifying them again (pack stamps, packstamp.h); any change
# to what a wheel is packed from, or to the wheel file itself, packs it
# again, and a wheel whose stat identity matches while racily clean is
# proven by its bytes.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p proj/liba
echo 'int a(void) { return 1; }' >proj/liba/a.c
echo 'MIT License (test)' >proj/LICENSE
echo '# inc' >proj/README.md
cat >proj/r.yaml <<'EOF2'
schema: 1
name: inc
version: 1.0.0
variables:
  flavour: plain
sources:
  - {name: liba, path: liba}
steps:
  - name: a
    source: liba
    run: |
      mkdir -p "$STAGE/inc"
      $CC $CFLAGS -shared -o "$STAGE/inc/liba.so" a.c
      echo "# pkg" >"$STAGE/inc/__init__.py"
wheels:
  - name: inc
    version: 1.0.0
    summary: inc, ${flavour}
    license: MIT
    license-files: [LICENSE]
    readme: README.md
    files:
      - {from: a, src: inc, dst: .}
EOF2
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }
wheel=out/inc-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
stamp=proj/build/r/x86_64/stamps/wheel-inc
packed() { grep -q "$wheel is unchanged$" err || ! grep -q "$wheel is up to date$" err; }
summary() { /usr/bin/python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
m = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
print([l for l in z.read(m).decode().splitlines() if l.startswith("Summary:")][0])' "$wheel"; }

expect_success 'the first run packs the wheel and stamps it' '
	run 2>err >/dev/null && test -f "$wheel" && test -f "$stamp" &&
	sha256sum "$wheel" >first.sum && packed
'

expect_success 'a second run keeps it: not packed, not rewritten' '
	stat -c "%i %Y %Z" "$wheel" >before &&
	run 2>err >/dev/null && ! packed &&
	stat -c "%i %Y %Z" "$wheel" >after && compare before after &&
	sha256sum -c first.sum >/dev/null &&
	grep -q "inc-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl" out/SHA256SUMS
'

expect_success 'a wheel changed in place (same size, mtime restored) is packed again' '
	mtime=$(stat -c %Y "$wheel") && size=$(stat -c %s "$wheel") &&
	printf "XXXX" | dd of="$wheel" bs=1 seek=40 conv=notrunc 2>/dev/null &&
	touch -d "@$mtime" "$wheel" && test "$(stat -c %s "$wheel")" = "$size" &&
	! sha256sum -c first.sum >/dev/null 2>&1 &&
	run 2>err >/dev/null && packed && sha256sum -c first.sum >/dev/null &&
	(cd out && sha256sum -c SHA256SUMS >/dev/null)
'

expect_success 'SHA256SUMS of a kept wheel (digest not read again) is right' '
	run 2>err >/dev/null && ! packed && (cd out && sha256sum -c SHA256SUMS >/dev/null)
'

expect_success 'a removed wheel is packed again' '
	rm "$wheel" && run 2>err >/dev/null && packed && sha256sum -c first.sum >/dev/null
'

expect_success 'a racily clean wheel is hashed, kept, and stamped again' '
	run 2>err >/dev/null && ! packed &&
	touch -d @1000000000 "$stamp" && run 2>err >/dev/null && ! packed &&
	test "$(stat -c %Y "$stamp")" != 1000000000 && sha256sum -c first.sum >/dev/null
'

expect_success 'a changed license file outside every source packs again' '
	echo "MIT License (changed)" >proj/LICENSE &&
	run 2>err >/dev/null && packed && ! sha256sum -c first.sum >/dev/null 2>&1 &&
	unzip -p "$wheel" "inc-1.0.0.dist-info/licenses/LICENSE" | grep -q changed
'

expect_success 'a changed readme packs again' '
	run 2>err >/dev/null && ! packed &&
	echo "# inc, changed" >proj/README.md && run 2>err >/dev/null && packed
'

expect_success 'a changed recipe field packs again' '
	sed -i "s/^    summary: inc, /    summary: Inc, /" proj/r.yaml &&
	run 2>err >/dev/null && packed && test "$(summary)" = "Summary: Inc, plain"
'

expect_success 'a --set that changes the wheel packs again, and back' '
	run --set flavour=spicy 2>err >/dev/null && packed &&
	test "$(summary)" = "Summary: Inc, spicy" &&
	run 2>err >/dev/null && packed && test "$(summary)" = "Summary: Inc, plain"
'

expect_success 'a changed stage (source edited) packs again' '
	echo "int a2(void) { return 2; }" >>proj/liba/a.c &&
	run 2>err >/dev/null && packed
'

expect_success 'a rebuilt tfbuild (another executable) packs again' '
	cp "$TFBUILD" ./tfbuild-copy && run 2>/dev/null >/dev/null &&
	./tfbuild-copy recipe --out out proj/r.yaml 2>err >/dev/null && packed
'

expect_success 'a damaged stamp is ignored: the wheel is packed again' '
	echo garbage >"$stamp" && run 2>err >/dev/null && packed &&
	run 2>err >/dev/null && ! packed
'

test_done
