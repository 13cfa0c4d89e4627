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

count() { # name, output file, exit code, processes it left running
	p=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\1/p' "$2" | tail -n 1)
	f=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\2/p' "$2" | tail -n 1)
	if [ -z "$p" ]; then
		# A script that died before its summary counts as one failure.
		p=0 f=1
	elif [ "$3" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	f=$((f + $4))
	passed=$((passed + p)) failed=$((failed + f))
	[ "$f" = 0 ] || broken="$broken $1"
}

# Nothing a test starts may outlive it: a server left running holds a
# port, a file, a lock, and hides a cleanup that does not work. Each test
# program runs with TFBUILD_TEST_RUN=RUN/NAME in its environment, which
# every process it starts inherits (test-lib.sh adds #N inside test N);
# when it has ended, any process still carrying the mark is a leftover:
# it is named with its command line and the test that started it,
# stopped, and counted as a failure of the script.
run_id="$$.$(date +%s)"
run_one() { # name, command...
	name=$1; shift
	TFBUILD_TEST_RUN="$run_id/$name" "$@" >"$here/tmp/$name.out" 2>&1
	rc=$?
	leftovers "$name" >"$here/tmp/$name.left"
	cat "$here/tmp/$name.out" "$here/tmp/$name.left"
	count "$name" "$here/tmp/$name.out" "$rc" "$(grep -c '^not ok' "$here/tmp/$name.left")"
}

# marked NAME: the pids whose environment carries NAME's mark.
marked() {
	grep -lzE "^TFBUILD_TEST_RUN=$run_id/$1(#[0-9]+)?\$" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}

leftovers() { # name: report and stop what NAME left running
	# A process being stopped at exit may take a moment to go.
	i=0
	while [ -n "$(marked "$1")" ] && [ $i -lt 30 ]; do
		i=$((i + 1)) && sleep 0.1
	done
	pids=$(marked "$1")
	[ -n "$pids" ] || return 0
	for pid in $pids; do
		cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
		mark=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
			sed -n 's/^TFBUILD_TEST_RUN=//p')
		n=${mark#*#}
		case $mark in
		*#*) from="test $n ($(sed -n "s/^\(not \)\{0,1\}ok $n - //p" "$here/tmp/$1.out" | head -n 1))" ;;
		*) from="the script, outside any test" ;;
		esac
		echo "not ok - $1 left process $pid running, started by $from: ${cmd% }"
		kill "$pid" 2>/dev/null
	done
	sleep 0.5
	for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
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
		run_one "$name" "$t"
	done
fi

for t in "$here"/e2e/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	want "$name" "$@" || continue
	echo "== $name"
	run_one "$name" sh "$t"
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
