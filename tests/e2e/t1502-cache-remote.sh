#!/bin/sh
# A remote cache on nginx (WebDAV PUT, the Bazel HTTP layout): a build of
# m1-plugin for both targets in one checkout uploads every step output,
# signed; a build in another checkout with another local cache, reading
# that remote cache and trusting the key, runs no build step, downloads
# every output, and gives byte-identical wheels; its provenance names
# the remote hits with their keys and signer.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cache.sh"

checkout() {
	mkdir -p "$1" &&
	tar -C "$SRC_ROOT" --exclude=build --exclude=__pycache__ --exclude='*.o' \
		--exclude='*.so' --exclude='*.a' -cf - recipes patches backend |
		tar -C "$1" -xf -
}
checkout one && checkout two || exit 1
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
start_dav "$TRASH/dav" || exit 1

# build CHECKOUT OUT [OPTIONS]: m1-plugin for both targets, its own cache.
build() {
	root=$1 out=$2; shift 2
	TFBUILD_STORE=1 "$TFBUILD" recipe --out "$out" --cache "$TRASH/$root-cache" \
		--set mirror="file://$TRASH/mirror" --target all "$@" \
		"$root/recipes/m1-plugin.yaml"
}

expect_success 'a key pair for the cache' '
	"$TFBUILD" cache keygen ci >out &&
	grep -q "^key id [0-9a-f]\{16\}: private key ci.key, public key ci.pub$" out &&
	test "$(stat -c %a ci.key)" = 600 &&
	grep -q "BEGIN PUBLIC KEY" ci.pub
'

expect_success 'the first checkout builds and uploads every step output' '
	build one out1 --remote-cache "$DAV_URL/cache" --remote-cache-upload \
		--signing-key ci.key 2>err1 >/dev/null &&
	grep -q "^tfbuild: 8 of 8 steps ran" err1 &&
	test "$(ls dav/cache/ac | wc -l)" = 8 &&
	test "$(ls dav/cache/cas | wc -l)" -ge 5 &&
	grep -q "^signer $(cut -c8-23 out)$" dav/cache/ac/* &&
	grep -c "PUT /cache/ac/" .nginx/access.log >puts && test "$(cat puts)" = 8
'

expect_success 'the second checkout runs no build step and downloads every output' '
	build two out2 --remote-cache "$DAV_URL/cache" --trust ci.pub 2>err2 >/dev/null &&
	grep -q "^tfbuild: 0 of 8 steps ran, 8 restored$" err2 &&
	test "$(grep -c "^tfbuild: restored .* from the remote cache (key [0-9a-f]\{12\}, signed by [0-9a-f]\{16\})$" err2)" = 8 &&
	! grep -q "warning" err2 &&
	test ! -e two/recipes/build/m1-plugin/x86_64/logs &&
	test ! -e two/recipes/build/m1-plugin/aarch64/logs &&
	test "$(grep -c "GET /cache/cas/" .nginx/access.log)" -ge 5
'

expect_success 'and writes byte-identical wheels and SHA256SUMS' '
	ls out1/*.whl >/dev/null &&
	for f in out1/*.whl out1/SHA256SUMS; do
		cmp "$f" out2/$(basename "$f") || exit 1
	done
'

expect_success 'its provenance names each remote hit, its key and signer' '
	id=$(cut -c8-23 out) &&
	"$PYTHON" - out2/m1-plugin.intoto.json "$id" <<-\EOF
	import json, sys
	doc = json.load(open(sys.argv[1]))
	steps = doc["predicate"]["runDetails"]["byproducts"]
	assert len(steps) == 8, steps
	for s in steps:
	    a = s["annotations"]
	    assert a["origin"] == "remote-cache", s
	    assert a["signer"] == sys.argv[2], s
	    assert len(a["cacheKey"]) == 64, s
	    assert s["name"].startswith("step:"), s
	EOF
'

expect_success 'the downloads are in the second local store, verified' '
	TFBUILD_STORE=1 "$TFBUILD" cache verify --cache two-cache &&
	"$TFBUILD" cache stats --cache two-cache >stats &&
	grep -q "^entries: 8$" stats
'

test_done
