#!/bin/sh
# Downloads are bounded and the download cache is never trusted blindly
# (issue 26): a server dripping above the low-speed limit is cut off by
# TFBUILD_FETCH_MAX_TIME; a body longer or shorter than the source's
# `size:` is refused naming the URL, and one over TFBUILD_FETCH_MAX_BYTES
# without it; a cached download a step rewrote is found when it is
# about to be extracted, named with both digests, fetched again, and the
# wheel and provenance are the pinned bytes'; `cache verify` re-hashes
# downloads and names the tampered one.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p www/pkg/t &&
echo 'VALUE = 1' >www/pkg/t/__init__.py &&
(cd www/pkg && tar -czf ../t.tar.gz t) &&
head -c 3000000 /dev/urandom >www/big.bin
sha=$(sha256_of www/t.tar.gz) size=$(wc -c <www/t.tar.gz)
bigsha=$(sha256_of www/big.bin)
start_httpd "$TRASH/www" || exit 1

# recipe NAME URL SHA [SIZE]
recipe() {
	cat >"$1.yaml" <<EOF
schema: 1
name: ft
version: 1.0.0
sources:
  - name: t
    url: $2
    sha256: $3
${4:+    size: $4}
wheels:
  - name: ft
    version: 1.0.0
    files:
      - {from: t, src: t, dst: .}
EOF
}

expect_success 'a drip above the low-speed limit ends at the time limit' '
	recipe drip "$HTTP_URL/slow/big.bin" "$bigsha" &&
	expect_code 4 timeout 60 env TFBUILD_FETCH_MAX_TIME=1 \
		"$TFBUILD" fetch -q --cache c drip.yaml 2>err &&
	grep "^tfbuild: source .t.: $HTTP_URL/slow/big.bin: not whole after 1 seconds, [0-9]* bytes in (TFBUILD_FETCH_MAX_TIME)" err &&
	! ls c/sha256/* 2>/dev/null
'

expect_success 'size: refuses a larger and a smaller body, naming the URL' '
	recipe small "$HTTP_URL/t.tar.gz" "$sha" $((size - 1)) &&
	expect_code 4 "$TFBUILD" fetch -q --cache c small.yaml 2>err &&
	grep "^tfbuild: source .t.: $HTTP_URL/t.tar.gz: the body is larger than the $((size - 1)) bytes its size: says" err &&
	recipe large "$HTTP_URL/t.tar.gz" "$sha" $((size + 1)) &&
	expect_code 4 "$TFBUILD" fetch -q --cache c large.yaml 2>err &&
	grep "^tfbuild: source .t.: $HTTP_URL/t.tar.gz: the body has $size bytes, not the $((size + 1)) its size: says" err &&
	recipe exact "$HTTP_URL/t.tar.gz" "$sha" $size &&
	"$TFBUILD" fetch -q --cache c exact.yaml
'

expect_success 'without size:, TFBUILD_FETCH_MAX_BYTES bounds a body' '
	recipe max "$HTTP_URL/big.bin" "$bigsha" &&
	expect_code 4 env TFBUILD_FETCH_MAX_BYTES=1M \
		"$TFBUILD" fetch -q --cache c2 max.yaml 2>err &&
	grep "$HTTP_URL/big.bin: the body is larger than 1048576 bytes (TFBUILD_FETCH_MAX_BYTES; a source may give its size:)" err
'

expect_success 'size: on a path source is a recipe error' '
	mkdir -p loc &&
	printf "schema: 1\nname: x\nversion: 1\nsources:\n  - {name: l, path: loc, size: 3}\n" >loc.yaml &&
	expect_code 3 "$TFBUILD" fetch -q --cache c loc.yaml 2>err &&
	grep "is a local .path. source; .size. applies only to .url. sources" err
'

expect_success 'a tampered cached download is found, named, fetched again' '
	recipe good "$HTTP_URL/t.tar.gz" "$sha" &&
	"$TFBUILD" recipe -q --cache c3 --build-dir b1 --out out1 good.yaml &&
	chmod u+w "c3/sha256/$sha" &&
	mkdir -p evil/t && echo "VALUE = 666" >evil/t/__init__.py &&
	(cd evil && tar -czf "$TRASH/c3/sha256/$sha" t) &&
	bad=$(sha256_of "c3/sha256/$sha") &&
	"$TFBUILD" recipe -q --cache c3 --build-dir b2 --out out2 good.yaml 2>err &&
	grep "^tfbuild: warning: source .t.: cached .*c3/sha256/$sha. was changed since it was verified: its name says sha256 $sha, its bytes hash to $bad; fetching it again$" err &&
	test "$(sha256_of "c3/sha256/$sha")" = "$sha" &&
	cmp out1/ft-1.0.0-py3-none-any.whl out2/ft-1.0.0-py3-none-any.whl &&
	grep -q "$sha" out2/ft.intoto.json
'

expect_success 'cache verify re-hashes downloads and removes a tampered one' '
	"$TFBUILD" cache verify --cache c3 &&
	chmod u+w "c3/sha256/$sha" && echo junk >>"c3/sha256/$sha" &&
	bad=$(sha256_of "c3/sha256/$sha") &&
	expect_code 1 "$TFBUILD" cache verify --cache c3 2>err &&
	grep "^tfbuild: cached .*c3/sha256/$sha. was changed since it was verified: its name says sha256 $sha, its bytes hash to $bad; removed it$" err &&
	grep "^tfbuild: 1 corrupt downloads in c3/sha256$" err &&
	! test -e "c3/sha256/$sha"
'

test_done
