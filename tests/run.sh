#!/bin/sh
# Run every unit test binary and every end-to-end script, then print one
# summary line "N passed, N failed". Each test program prints TAP-like
# "ok N - what" / "not ok N - what" lines and a final "# passed N failed N".
#
# Environment: TFBUILD (the binary under test), UNIT_DIR (built unit tests).
# Arguments: optional test names (globs) to run a subset, e.g. t02*.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${TFBUILD:?set TFBUILD to the tfbuild binary}"
: "${UNIT_DIR:=}"
export TFBUILD TESTS_DIR="$here" SRC_ROOT="$(dirname "$here")"
mkdir -p "$here/tmp"
# The hostile corpus (t17*) tallies its verdicts here; see hostile_table.
rm -rf "$here/tmp/hostile"
passed=0 failed=0 broken=""

count() { # name, output file, exit code
	p=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\1/p' "$2" | tail -n 1)
	f=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\2/p' "$2" | tail -n 1)
	if [ -z "$p" ]; then
		# A script that died before its summary counts as one failure.
		p=0 f=1
	elif [ "$3" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f))
	[ "$f" = 0 ] || broken="$broken $1"
}

want() { # does this test match the optional filter?
	[ $# -eq 1 ] && return 0
	n=$1; shift
	for g in "$@"; do case "$n" in $g | $g*) return 0 ;; esac; done
	return 1
}

if [ -n "$UNIT_DIR" ] && [ -d "$UNIT_DIR" ]; then
	for t in "$UNIT_DIR"/*_test; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		want "$name" "$@" || continue
		echo "== $name"
		"$t" >"$here/tmp/$name.out" 2>&1
		rc=$?
		cat "$here/tmp/$name.out"
		count "$name" "$here/tmp/$name.out" "$rc"
	done
fi

for t in "$here"/e2e/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	want "$name" "$@" || continue
	echo "== $name"
	sh "$t" >"$here/tmp/$name.out" 2>&1
	rc=$?
	cat "$here/tmp/$name.out"
	count "$name" "$here/tmp/$name.out" "$rc"
done

# One table for the hostile corpus, by category (docs/security.md).
hostile_table() {
	set -- "$here"/tmp/hostile/*.tsv
	[ -e "$1" ] || return 0
	echo "hostile corpus:"
	printf '%-12s %6s %8s %8s %8s %8s %8s %8s %6s\n' category tried refused accepted \
		crashes escapes poisoned partial wrong
	for f in "$@"; do
		awk -F '\t' -v cat="$(basename "$f" .tsv)" '
			{ n++; v[$2]++ }
			END { printf "%-12s %6d %8d %8d %8d %8d %8d %8d %6d\n", cat, n,
				v["refused"], v["accepted"], v["crash"], v["escape"],
				v["poisoned"], v["partial"], v["wrong"] }' "$f"
	done
}
hostile_table
[ -z "$broken" ] || echo "failing:$broken"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
