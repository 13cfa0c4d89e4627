#!/bin/sh
# The release pipeline, as one script any CI can call:
#   1. install dependencies and run the test suite;
#   2. build the release recipe for every target into dist/;
#   3. build it again in a second build tree and cache, and require
#      byte-identical wheels (a reproducibility gate);
#   4. verify the wheels against SHA256SUMS and the provenance.
# dist/ then holds the wheels, SHA256SUMS and NAME.intoto.json to publish.
#
# usage: ci/release.sh [RECIPE]   (default recipes/m1-plugin.yaml)
set -eu
cd "$(dirname "$0")/.."
recipe=${1:-recipes/m1-plugin.yaml}
name=$(sed -n 's/^name: *//p' "$recipe" | head -n 1)
work=${RELEASE_WORK:-build/release}

make test
sh recipes/mirror.sh build/mirror >/dev/null
rm -rf dist "$work"
./tfbuild recipe --target all --out dist --build-dir "$work/one" \
	--cache "$work/cache-one" "$recipe"
./tfbuild -q recipe --target all --out "$work/again" --build-dir "$work/two" \
	--cache "$work/cache-two" "$recipe"
for w in dist/*.whl; do
	./tfbuild diff "$w" "$work/again/$(basename "$w")" >/dev/null || {
		echo "release: $(basename "$w") is not reproducible:" >&2
		./tfbuild diff "$w" "$work/again/$(basename "$w")" >&2
		exit 1
	}
done
./tfbuild verify --sums dist/SHA256SUMS --provenance "dist/$name.intoto.json"
echo "release: dist/ is ready"
