#!/bin/sh
# Incremental rebuild benchmark: `tfbuild recipe RECIPE` from nothing
# (fresh build dir, cache and output) against the same command again on
# a finished build with nothing changed. Both are run BENCH_N times
# (default 5), interleaved, and their medians and ratio reported. It also
# checks that the no-op run wrote the same wheel bytes as a fresh one.
#
# usage: bench/rebuild.sh RECIPE [TFBUILD-RECIPE-OPTIONS...]
#
# The archives in recipes/upstream/ are mirrored into bench/tmp/mirror
# (recipes/mirror.sh) and, if the recipe declares a `mirror` variable,
# it is pointed there with --set. Extra options go to `tfbuild recipe`
# (e.g. --set other=... for recipes/m1-plugin.yaml). Run by bench/run.sh
# with TABLE set, it adds its rows to that table; alone, it prints its own.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: bench/rebuild.sh RECIPE [TFBUILD-RECIPE-OPTIONS...]"
recipe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$recipe" ] || die "no recipe '$1'"
shift
name=$(basename "$recipe" .yaml)
W=$B/rebuild-$name
own_table=
if [ -z "${TABLE:-}" ]; then
	TABLE=$B/rebuild-$name.md
	own_table=1
fi

bench_setup
sh "$ROOT/recipes/mirror.sh" "$B/mirror"
if grep -q '^  mirror:' "$recipe"; then
	set -- --set "mirror=file://$B/mirror" "$@"
fi
rm -f "$RES/rebuild-$name".*
settle
fresh "$W"
[ -z "$own_table" ] || table_header

# A: a fresh build each time. B: built once (untimed), then rerun as is.
"$TFBUILD" -q recipe --cache "$W/b/cache" --build-dir "$W/b/build" \
	--out "$W/b/wheels" "$@" "$recipe" >/dev/null ||
	die "$name: the first build failed"
i=0
while [ $i -lt "$BENCH_N" ]; do
	i=$((i + 1))
	sample "rebuild-$name.first" "fresh '$W/a'" \
		"$TFBUILD" recipe --cache "$W/a/cache" --build-dir "$W/a/build" \
		--out "$W/a/wheels" "$@" "$recipe"
	sample "rebuild-$name.noop" : \
		"$TFBUILD" recipe --cache "$W/b/cache" --build-dir "$W/b/build" \
		--out "$W/b/wheels" "$@" "$recipe"
done

"$TFBUILD" explain --build-dir "$W/b/build" "$@" "$recipe" >"$W/explain.txt" 2>&1 ||
	die "$name: tfbuild explain failed"
echo "bench: $name: tfbuild explain after the runs:" >&2
sed 's/^/  /' "$W/explain.txt" >&2
same=yes
for w in "$W/a/wheels"/*.whl; do
	cmp -s "$w" "$W/b/wheels/$(basename "$w")" || same=no
done
echo "bench: $name: no-op run's wheels identical to a fresh build's: $same" >&2
echo "$same" >"$W/same-wheels"

bytes=$(cat "$W/a/wheels"/*.whl | wc -c)
row "4. rebuild $name" "first run (fresh build dir and cache)" \
	"rebuild-$name.first" "" "$bytes"
row "4. rebuild $name" "second run, nothing changed" \
	"rebuild-$name.noop" "rebuild-$name.first" "$bytes"
empty_trash
[ -z "$own_table" ] || cat "$TABLE"
