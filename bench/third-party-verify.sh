#!/bin/sh
# Time `tfbuild verify` beside `auditwheel show`, `twine check` and (abi3
# wheels only; none of bench/third-party-wheels.txt is) `abi3audit` on
# released framework wheels, with peak RSS and CPU time, and set the
# platform tag verify computes (-v: "platform: its ELF files allow TAG")
# beside the one `auditwheel show` says the wheel is consistent with.
# The wheels are downloaded with pip (its configured index) into
# $TFBUILD_BENCH_CACHE (default /var/cache/tfbuild-bench) and checked
# against the pinned sha256. Prints two Markdown tables, kept in
# bench/tmp/third-party-results.md; each run's output is kept beside
# them (bench/tmp/third-party/WHEEL.TOOL.log).
#
#   sh bench/third-party-verify.sh [NAME...]   (make tfbuild first;
#                                             NAMEs limit the rows)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

CACHE=${TFBUILD_BENCH_CACHE:-/var/cache/tfbuild-bench}
TOOLS=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
OUT=$B/third-party-results.md
LOGS=$B/third-party
mkdir -p "$CACHE" "$LOGS"
need_time

# run WHEEL TOOL CMD...: "| WHEEL | TOOL | wall s | CPU s | peak MiB | exit |"
run() {
	wheel=$1 tool=$2
	shift 2
	rc=0
	$TIME -f "%e %U %S %M" -o "$B/time.out" "$@" \
		>"$LOGS/$wheel.$tool.log" 2>&1 || rc=$?
	set -- $(tail -1 "$B/time.out")
	echo "| $wheel | $tool | $1 | $(awk "BEGIN { print $2 + $3 }") | $(($4 / 1024)) | $rc |"
}

# What each says of the platform: verify's -v line, auditwheel's
# "consistent with the following platform tag" (wrapped over lines).
tfbuild_tag() {
	sed -n 's/.*: platform: its ELF files allow \([^ .]*\).*/\1/p' \
		"$LOGS/$1.verify.log" | head -1
}
auditwheel_tag() {
	tr '\n' ' ' <"$LOGS/$1.auditwheel.log" |
		sed -n 's/.*consistent with *the following *platform *tag: *"\([^"]*\)".*/\1/p'
}

wheels() {
	grep -v '^#' "$(dirname "$0")/third-party-wheels.txt" |
		while read -r req plat sum; do
			if [ $# -gt 0 ]; then
				case " $* " in *" ${req%%==*} "*) ;; *) continue ;; esac
			fi
			echo "$req $plat $sum"
		done
}

{
	echo "| wheel | tool | wall s | CPU s | peak RSS MiB | exit |"
	echo "|---|---|---|---|---|---|"
	wheels "$@" | while read -r req plat sum; do
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
		echo "$(uptime)" >"$LOGS/$b.uptime"
		run "$b" verify "$TFBUILD" -v verify "$w"
		run "$b" auditwheel "$TOOLS/auditwheel" show "$w"
		run "$b" twine "$TOOLS/twine" check "$w"
		case $b in *-abi3-*)
			run "$b" abi3audit "$TOOLS/abi3audit" "$w" ;;
		esac
	done
	echo
	echo "| wheel | tfbuild verify -v: platform | auditwheel show: consistent with | agree |"
	echo "|---|---|---|---|"
	for f in "$LOGS"/*.verify.log; do
		b=$(basename "$f" .verify.log)
		t=$(tfbuild_tag "$b") a=$(auditwheel_tag "$b")
		case $t/$a in
		*/) agree="? (auditwheel saw no ELF file)" ;;
		no/linux_*) agree="yes: not manylinux" t="none (refused)" ;;
		"$a/$a") agree=yes ;;
		*) agree=no ;;
		esac
		echo "| $b | ${t:-?} | ${a:-?} | $agree |"
	done
} | tee "$OUT"
