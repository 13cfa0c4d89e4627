#!/bin/sh
# Build cache benchmark (docs/cache.md): recipes/m1-plugin.yaml for both
# targets,
#   1. fresh: an empty build tree and an empty cache;
#   2. local no-op: the same command again on the finished tree;
#   3. fresh checkout, warm local store: a new build tree, the store of
#      run 1 (every step restored from it);
#   4. fresh checkout, warm remote cache: a new build tree and an empty
#      local cache, reading a remote cache on nginx (WebDAV, 127.0.0.1)
#      that a build uploaded to (every step downloaded and verified).
# Each BENCH_N times (default 5), interleaved; medians in the table, kept
# in bench/tmp/cache.md. Checks that every run wrote the same wheels.
#
# usage: sh bench/cache.sh        (needs `make tfbuild`, nginx-light)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

W=$B/cache
TABLE=$B/cache.md
recipe=$ROOT/recipes/m1-plugin.yaml
bench_setup
sh "$ROOT/recipes/mirror.sh" "$B/mirror"
rm -f "$RES"/cache.*
settle
fresh "$W"
table_header

# nginx with WebDAV, as the tests start it (tests/lib/cache.sh).
TRASH=$W PYTHON=$PY
at_exit() { :; }
# shellcheck source=tests/lib/cache.sh
. "$ROOT/tests/lib/cache.sh"
start_dav "$W/dav" || die "nginx did not start"
trap 'kill $dav_pid 2>/dev/null || :' EXIT
"$TFBUILD" cache keygen "$W/key" >/dev/null

export TFBUILD_STORE=1
# args DIR: the options of a build in DIR with DIR's own cache.
args() {
	echo "-q --cache $1/cache --build-dir $1/build --out $1/wheels" \
		"--set mirror=file://$B/mirror --target all"
}
remote="--remote-cache $DAV_URL/cache --trust $W/key.pub"

# Untimed: the no-op tree, the warm store, the warm remote cache.
# shellcheck disable=SC2046
"$TFBUILD" recipe $(args "$W/noop") "$recipe" >/dev/null ||
	die "the first build failed"
# shellcheck disable=SC2046
"$TFBUILD" recipe $(args "$W/warm") --remote-cache "$DAV_URL/cache" \
	--remote-cache-upload --signing-key "$W/key.key" "$recipe" >/dev/null ||
	die "the upload build failed"
i=0
# shellcheck disable=SC2046,SC2086
while [ $i -lt "$BENCH_N" ]; do
	i=$((i + 1))
	sample cache.fresh "fresh '$W/f'" "$TFBUILD" recipe $(args "$W/f") "$recipe"
	sample cache.noop : "$TFBUILD" recipe $(args "$W/noop") "$recipe"
	sample cache.local "fresh '$W/warm/build'; fresh '$W/warm/wheels'" \
		"$TFBUILD" recipe $(args "$W/warm") "$recipe"
	sample cache.remote "fresh '$W/r'" "$TFBUILD" recipe $(args "$W/r") $remote "$recipe"
done
for d in noop warm r; do
	for w in "$W/f/wheels"/*.whl; do
		cmp -s "$w" "$W/$d/wheels/$(basename "$w")" ||
			die "$d: $(basename "$w") differs from a fresh build's"
	done
done
row "m1-plugin, both targets" "fresh build" cache.fresh
row "m1-plugin, both targets" "local no-op" cache.noop cache.fresh
row "m1-plugin, both targets" "fresh checkout, warm local store" cache.local cache.fresh
row "m1-plugin, both targets" "fresh checkout, warm remote cache (nginx)" cache.remote cache.fresh
empty_trash
cat "$TABLE"
