#!/bin/sh
# Time `tfbuild verify` beside `auditwheel show`, `twine check` and (abi3
# wheels only; none of bench/third-party-wheels.txt is) `abi3audit` on
# released framework wheels, with peak RSS. The wheels are downloaded
# with pip (its configured index) into $TFBUILD_BENCH_CACHE (default
# /var/cache/tfbuild-bench) and checked against the pinned sha256.
# Prints a Markdown table, kept in bench/tmp/third-party-results.md.
#
#   sh bench/third-party-verify.sh      (make tfbuild first)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

CACHE=${TFBUILD_BENCH_CACHE:-/var/cache/tfbuild-bench}
TOOLS=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
OUT=$B/third-party-results.md
mkdir -p "$CACHE"
need_time

# run LABEL CMD...: "| LABEL | seconds | peak MiB | exit |"
run() {
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$B/time.out" "$@" >"$B/run.log" 2>&1
	rc=$?
	set -- $(tail -1 "$B/time.out")
	echo "| $label | $1 | $(($2 / 1024)) | $rc |"
}

{
	echo "| wheel | tool | wall s | peak RSS MiB | exit |"
	echo "|---|---|---|---|---|"
	grep -v '^#' "$(dirname "$0")/third-party-wheels.txt" |
		while read -r req plat sum; do
			name=${req%%==*}
			ver=${req#*==}
			stem=$(echo "$name" | tr - _)-$ver
			w=$(ls "$CACHE/$stem"-*.whl 2>/dev/null | head -1)
			if [ -z "$w" ]; then
				pip download --no-deps --only-binary=:all: \
					--python-version 3.11 --platform "$plat" \
					-d "$CACHE" "$req" >&2 || die "cannot download $req"
				w=$(ls "$CACHE/$stem"-*.whl | head -1)
			fi
			echo "$sum  $w" | sha256sum -c --quiet - ||
				die "$w: sha256 is not the pinned one"
			b=$(basename "$w")
			run "$b | tfbuild verify" "$TFBUILD" verify "$w"
			run "$b | auditwheel show" "$TOOLS/auditwheel" show "$w"
			run "$b | twine check" "$TOOLS/twine" check "$w"
			case $b in *-abi3-*)
				run "$b | abi3audit" "$TOOLS/abi3audit" "$w" ;;
			esac
		done
} | tee "$OUT"
