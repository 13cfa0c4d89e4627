#!/bin/sh
# The release pipeline, as one script any CI can call:
#   1. install dependencies and run the test suite;
#   2. build the release recipe for every target into dist/;
#   3. build it again in a second build tree and cache, and require
#      byte-identical wheels (a reproducibility gate);
#   4. verify the wheels against SHA256SUMS and the provenance;
#   5. with RELEASE_PUBLISH=1, publish them (the publish stage below).
# dist/ then holds the wheels, SHA256SUMS and NAME.intoto.json, and with
# RELEASE_ATTESTATION_KEY (an Ed25519 key: `tfbuild cache keygen`) each
# wheel's signed attestation WHEEL.intoto.jsonl (docs/publishing.md).
#
# The publish stage alone, on a folder of wheels that tfbuild wrote:
#   1. `tfbuild verify` every wheel against SHA256SUMS, the provenance and
#      (RELEASE_ATTESTATION_TRUST: public keys) its attestation, and
#      `twine check --strict` each; one that fails stops the stage before
#      anything is uploaded;
#   2. with RELEASE_INDEX_URL (the index's simple API), a wheel whose
#      filename the index already has stops it too, before any upload;
#   3. `twine upload` the wheels, with their PEP 740 attestations
#      (WHEEL.*.attestation, made by the Sigstore step of
#      ci/github/release.yml) when there are any. Where to is twine's own
#      configuration: TWINE_REPOSITORY_URL, or TWINE_REPOSITORY naming a
#      section of ~/.pypirc, else twine's default; credentials likewise
#      (TWINE_USERNAME, TWINE_PASSWORD). Never --skip-existing: a file the
#      index has already is refused, and said so, never overwritten.
# SHA256SUMS, NAME.intoto.json and the .intoto.jsonl envelopes are not
# distributions, so no index takes them: they go with the release (its
# assets), where `tfbuild verify` checks downloads against them.
#
# usage: ci/release.sh [RECIPE]        (default recipes/m1-plugin.yaml)
#        ci/release.sh publish [DIR]   (default dist)
set -eu
cd "$(dirname "$0")/.."
tfbuild=${TFBUILD:-./tfbuild}
tools=${TFBUILD_TOOLS:-/opt/tfbuild-tools}/venv/bin
twine=${TWINE:-$tools/twine}

# The normalized project name of a wheel's filename (PEP 503).
project() {
	basename "$1" | sed 's/-.*//' | tr 'A-Z_.' 'a-z--'
}

publish() {
	dir=$1
	ls "$dir"/*.whl >/dev/null 2>&1 || {
		echo "release: no wheels in $dir to publish" >&2
		return 1
	}
	set -- --sums "$dir/SHA256SUMS"
	for p in "$dir"/*.intoto.json; do
		[ -f "$p" ] && set -- "$@" --provenance "$p"
	done
	[ -z "${RELEASE_ATTESTATION_TRUST:-}" ] ||
		set -- "$@" --attestation-trust "$RELEASE_ATTESTATION_TRUST"
	"$tfbuild" verify "$@" || {
		echo "release: not publishing: a wheel in $dir fails tfbuild verify (above)" >&2
		return 1
	}
	COLUMNS=1000 "$twine" check --strict "$dir"/*.whl || {
		echo "release: not publishing: twine check refuses a wheel (above)" >&2
		return 1
	}
	if [ -n "${RELEASE_INDEX_URL:-}" ]; then
		for w in "$dir"/*.whl; do
			b=$(basename "$w")
			page=$(curl -sfL "${RELEASE_INDEX_URL%/}/$(project "$w")/" || true)
			case $page in
			*"$b"*)
				echo "release: not publishing: ${RELEASE_INDEX_URL%/} already has $b; an index never takes the same file twice (bump the version)" >&2
				return 1
				;;
			esac
		done
	fi
	set -- "$dir"/*.whl
	if ls "$dir"/*.whl.*.attestation >/dev/null 2>&1; then
		set -- --attestations "$@" "$dir"/*.whl.*.attestation
	fi
	# Wide lines: twine wraps the index's answer at the terminal's width.
	if COLUMNS=1000 "$twine" upload --verbose --non-interactive \
		--disable-progress-bar "$@" >"$dir/.upload.log" 2>&1; then
		grep '^Uploading ' "$dir/.upload.log" || true
		rm -f "$dir/.upload.log"
		echo "release: published $(ls "$dir"/*.whl | wc -l) wheels"
		return 0
	fi
	# What twine said, without colours and the index's HTML.
	sed 's/\x1b\[[0-9;]*m//g; s/&#039;/'"'"'/g; s/<[^>]*>//g; s/^[[:space:]]*//; s/[[:space:]]*$//' \
		"$dir/.upload.log" >"$dir/.upload.txt"
	refused=$(sed -n 's/^Uploading \(.*\.whl\)$/\1/p' "$dir/.upload.txt" | tail -n 1)
	grep -i 'already exists\|^ERROR\|^HTTPError' "$dir/.upload.txt" >&2 || tail -n 5 "$dir/.upload.txt" >&2
	if grep -qi 'already exists\|409 Conflict' "$dir/.upload.txt"; then
		echo "release: the index already has $refused and refuses it again; nothing is overwritten: bump the version to publish" >&2
	else
		echo "release: twine upload failed at $refused (above)" >&2
	fi
	rm -f "$dir/.upload.txt"
	rm -f "$dir/.upload.log"
	return 1
}

if [ "${1:-}" = publish ]; then
	publish "${2:-dist}"
	exit
fi

recipe=${1:-recipes/m1-plugin.yaml}
name=$(sed -n 's/^name: *//p' "$recipe" | head -n 1)
work=${RELEASE_WORK:-build/release}
key=
[ -z "${RELEASE_ATTESTATION_KEY:-}" ] ||
	key="--attestation-key=$RELEASE_ATTESTATION_KEY"

make test
sh recipes/mirror.sh build/mirror >/dev/null
rm -rf dist "$work"
"$tfbuild" recipe --target all --out dist --build-dir "$work/one" \
	--cache "$work/cache-one" $key "$recipe"
"$tfbuild" -q recipe --target all --out "$work/again" --build-dir "$work/two" \
	--cache "$work/cache-two" $key "$recipe"
for w in dist/*.whl; do
	"$tfbuild" diff "$w" "$work/again/$(basename "$w")" >/dev/null || {
		echo "release: $(basename "$w") is not reproducible:" >&2
		"$tfbuild" diff "$w" "$work/again/$(basename "$w")" >&2
		exit 1
	}
	[ -z "$key" ] || cmp "$w.intoto.jsonl" "$work/again/$(basename "$w").intoto.jsonl" || {
		echo "release: the attestation of $(basename "$w") is not reproducible" >&2
		exit 1
	}
done
"$tfbuild" verify --sums dist/SHA256SUMS --provenance "dist/$name.intoto.json"
echo "release: dist/ is ready"
if [ "${RELEASE_PUBLISH:-}" = 1 ]; then
	publish dist
fi
