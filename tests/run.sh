#!/bin/sh
# Run every unit test binary and every end-to-end script, then print one
# summary line "N passed, N failed". Each test program prints TAP-like
# "ok N - what" / "not ok N - what" lines and a final "# passed N failed N".
#
# The programs run in parallel, TEST_JOBS at a time (default: the
# machine's, nproc), longest first: by the times of the previous run
# (tests/tmp/timings), else by the list of known-slow ones below, the
# rest of the expensive tier next. Each program's output is printed
# whole when it ends, under a "== NAME (SECONDS s)" line; the ten
# slowest are listed at the end.
#
# The expensive tier: scripts that say "# tier: expensive" in their
# first lines (the framework tests: TensorFlow, JAX, torch). They run
# unless TFBUILD_TEST_EXPENSIVE=0 (make test QUICK=1), which skips them
# and says so: "N passed, N failed, N skipped", the skipped ones listed.
# CI runs everything (.ci/run).
#
# Environment: TFBUILD (the binary under test), UNIT_DIR (built unit tests),
# TEST_JOBS, TFBUILD_TEST_EXPENSIVE.
# Arguments: optional test names (globs) to run a subset, e.g. t02*.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${TFBUILD:?set TFBUILD to the tfbuild binary}"
: "${UNIT_DIR:=}"
export TFBUILD UNIT_DIR TESTS_DIR="$here" SRC_ROOT="$(dirname "$here")"
tmp=$here/tmp

# The slow scripts and their seconds on 2 cores (measured serially on a
# loaded machine, docs/performance.md): the order when tests/tmp/timings
# does not know them yet, as on a fresh clone in CI. A script of the
# expensive tier not listed counts as 300 s, any other as 0.
known_slow="t1401:480 t2040:325 t1304:245 t1302:190 t1303:185 t0901:105
	t2001:60 t1705:60 t1207:50 t1003:45 t1602:45"

# count NAME OUT RC LEFT: "passed failed" of one program, from its
# output file, exit code and the number of processes it left running.
count() {
	p=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\1/p' "$2" | tail -n 1)
	f=$(sed -n 's/^# passed \([0-9]*\) failed \([0-9]*\)$/\2/p' "$2" | tail -n 1)
	if [ -z "$p" ]; then
		# A script that died before its summary counts as one failure.
		p=0 f=1
	elif [ "$3" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	echo "$p $((f + $4))"
}

# Nothing a test starts may outlive it: a server left running holds a
# port, a file, a lock, and hides a cleanup that does not work. Each test
# program runs with TFBUILD_TEST_RUN=RUN/NAME in its environment, which
# every process it starts inherits (test-lib.sh adds #N inside test N);
# when it has ended, any process still carrying the mark is a leftover:
# it is named with its command line and the test that started it,
# stopped, and counted as a failure of the script. Programs running at
# the same time carry different names, so each is judged alone.
#
# run_one NAME: one program, run by a job of xargs -P; it writes
# tmp/NAME.result ("passed failed milliseconds") and prints its output.
run_one() {
	name=$1
	case $name in
	*_test) set -- "$UNIT_DIR/$name" ;;
	*) set -- sh "$here/e2e/$name.sh" ;;
	esac
	start=$(date +%s%N)
	TFBUILD_TEST_RUN="$TFBUILD_SUITE_RUN/$name" "$@" </dev/null >"$tmp/$name.out" 2>&1
	rc=$?
	leftovers "$name" >"$tmp/$name.left"
	ms=$((($(date +%s%N) - start) / 1000000))
	res=$(count "$name" "$tmp/$name.out" "$rc" "$(grep -c '^not ok' "$tmp/$name.left")")
	echo "$res $ms" >"$tmp/$name.result"
	# One program's output at a time, whole.
	{
		flock 9
		echo "== $name ($(seconds "$ms") s)"
		cat "$tmp/$name.out" "$tmp/$name.left"
	} 9>>"$tmp/.print.lock"
}

seconds() { # milliseconds: as seconds with one decimal
	echo "$(($1 / 1000)).$(($1 % 1000 / 100))"
}

# marked NAME: the pids whose environment carries NAME's mark.
marked() {
	grep -lzE "^TFBUILD_TEST_RUN=$TFBUILD_SUITE_RUN/$1(#[0-9]+)?\$" /proc/[0-9]*/environ 2>/dev/null |
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
		*#*) from="test $n ($(sed -n "s/^\(not \)\{0,1\}ok $n - //p" "$tmp/$1.out" | head -n 1))" ;;
		*) from="the script, outside any test" ;;
		esac
		echo "not ok - $1 left process $pid running, started by $from: ${cmd% }"
		kill "$pid" 2>/dev/null
	done
	sleep 0.5
	for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
}

# The job tests/run.sh --one NAME, started by xargs below.
if [ "${1:-}" = --one ]; then
	run_one "$2"
	exit 0
fi

want() { # does this test match the optional filter?
	[ $# -eq 1 ] && return 0
	n=$1; shift
	for g in "$@"; do case "$n" in $g | $g*) return 0 ;; esac; done
	return 1
}

expensive() { # script: is it in the expensive tier?
	sed -n '1,20p' "$1" | grep -q '^# tier: expensive'
}

# What to run, one name a line: tmp/.jobs; what the tier skips: $skipped.
select_jobs() {
	skipped=""
	: >"$tmp/.jobs"
	if [ -n "$UNIT_DIR" ] && [ -d "$UNIT_DIR" ]; then
		for t in "$UNIT_DIR"/*_test; do
			[ -x "$t" ] || continue
			name=$(basename "$t")
			want "$name" "$@" && echo "$name" >>"$tmp/.jobs"
		done
	fi
	for t in "$here"/e2e/t[0-9]*.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		want "$name" "$@" || continue
		if [ "${TFBUILD_TEST_EXPENSIVE:-1}" = 0 ] && expensive "$t"; then
			skipped="$skipped $name"
		else
			echo "$name" >>"$tmp/.jobs"
		fi
	done
}

# estimate NAME: milliseconds it is expected to take, for the order.
estimate() {
	ms=$(awk -v n="$1" '$1 == n { print $2; exit }' "$tmp/timings" 2>/dev/null)
	if [ -n "$ms" ]; then
		echo "$ms"
		return
	fi
	case $1 in *_test) echo 0 && return ;; esac
	for g in $known_slow; do
		case $1 in ${g%:*}*) echo "${g#*:}000" && return ;; esac
	done
	if expensive "$here/e2e/$1.sh"; then
		echo 300000
	else
		echo 0
	fi
}

# The jobs longest first, so that the last to start are short ones.
order_jobs() {
	while read -r name; do
		echo "$(estimate "$name") $name"
	done <"$tmp/.jobs" | sort -k1,1nr -k2,2 | cut -d' ' -f2
}

# Sum the results; keep each program's time in tmp/timings for the
# order of the next run (the others' from before are kept).
summarize() {
	passed=0 failed=0 broken=""
	: >"$tmp/.times"
	while read -r name; do
		if read -r p f ms <"$tmp/$name.result" 2>/dev/null; then
			echo "$name $ms" >>"$tmp/.times"
		else
			# Its job died before it wrote a result.
			p=0 f=1
		fi
		passed=$((passed + p)) failed=$((failed + f))
		[ "$f" = 0 ] || broken="$broken $name"
	done <"$tmp/.jobs"
	{
		cat "$tmp/.times"
		[ ! -f "$tmp/timings" ] || awk 'NR == FNR { seen[$1] = 1; next }
			!($1 in seen)' "$tmp/.times" "$tmp/timings"
	} | sort >"$tmp/timings.new" && mv "$tmp/timings.new" "$tmp/timings"
}

slowest() { # the ten slowest of this run
	[ -s "$tmp/.times" ] || return 0
	echo "slowest ten:"
	sort -k2,2nr "$tmp/.times" | head -n 10 | while read -r name ms; do
		printf '%8s s  %s\n' "$(seconds "$ms")" "$name"
	done
}

# One table for the hostile corpus, by category (docs/security.md).
hostile_table() {
	set -- "$tmp"/hostile/*.tsv
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

jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0)
	echo "tfbuild: tests/run.sh: TEST_JOBS='$jobs': not a number of jobs (1 or more)" >&2
	exit 2
	;;
esac
mkdir -p "$tmp"
# The hostile corpus (t17*) tallies its verdicts here; see hostile_table.
rm -rf "$tmp/hostile"
TFBUILD_SUITE_RUN="$$.$(date +%s)"
export TFBUILD_SUITE_RUN
select_jobs "$@"
while read -r name; do rm -f "$tmp/$name.result"; done <"$tmp/.jobs"
began=$(date +%s%N)
order_jobs | xargs -r -n 1 -P "$jobs" sh "$here/run.sh" --one
wall=$((($(date +%s%N) - began) / 1000000))
summarize
slowest
echo "wall time $(seconds "$wall") s with $jobs jobs," \
	"$(seconds "$(awk '{ s += $2 } END { print s + 0 }' "$tmp/.times")") s in the programs"
hostile_table
[ -z "$skipped" ] || echo "skipped (TFBUILD_TEST_EXPENSIVE=0, the expensive tier):$skipped"
[ -z "$broken" ] || echo "failing:$broken"
if [ -n "$skipped" ]; then
	echo "$passed passed, $failed failed, $(echo $skipped | wc -w) skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
