# Helpers for the hostile corpus (tests/e2e/t17*-hostile-*.sh), sourced
# after tests/lib/test-lib.sh. Each case ends in one verdict, appended to
# $TESTS_DIR/tmp/hostile/CATEGORY.tsv; tests/run.sh sums them into the
# table printed at the end of the suite (docs/security.md).
#
# Verdicts: refused (failed as the table says), accepted (succeeded as
# the table says), crash (a signal, a sanitizer report, an undocumented
# exit code), escape (something written outside the tree), poisoned (a
# cache entry that does not match its name), partial (a half-written
# output or temporary file left behind), wrong (another exit code or
# message than the table says).

HOSTILE_DIR="$TESTS_DIR/tmp/hostile"
mkdir -p "$HOSTILE_DIR"

# hostile_verdict CATEGORY NAME VERDICT: record one case's outcome.
hostile_verdict() {
	printf '%s\t%s\n' "$2" "$3" >>"$HOSTILE_DIR/$1.tsv"
}

# hostile_crashed RC ERRFILE: did the run crash rather than fail?
hostile_crashed() {
	case $1 in
	0 | 1 | 2 | 3 | 4 | 5 | 6 | 7) ;;
	130 | 143) [ -n "${HOSTILE_SIGNAL_EXITS:-}" ] || return 0 ;;
	*) return 0 ;;
	esac
	grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|BUG:|Segmentation' "$2"
}

# hostile_judge CATEGORY NAME WANT_RC REGEX RC ERRFILE [EXTRA_VERDICT]
# Compare one run with its table line; print why on stderr and return 1
# unless it matched. EXTRA_VERDICT (escape, poisoned, partial), when the
# caller found one, overrides a match.
hostile_judge() {
	cat=$1 name=$2 want=$3 rx=$4 rc=$5 err=$6 extra=${7:-}
	if hostile_crashed "$rc" "$err"; then
		v=crash
	elif [ -n "$extra" ]; then
		v=$extra
	elif [ "$rc" != "$want" ]; then
		v=wrong
	elif [ -n "$rx" ] && ! grep -qE -e "$rx" "$err"; then
		v=wrong
	elif [ "$want" = 0 ]; then
		v=accepted
	else
		v=refused
	fi
	hostile_verdict "$cat" "$name" "$v"
	case $v in
	accepted | refused) return 0 ;;
	esac
	echo "$cat/$name: $v (exit $rc, wanted $want, message /$rx/):" >&2
	head -c 2000 "$err" >&2
	return 1
}

# hostile_snapshot DIR: a listing of everything under DIR, with sizes.
hostile_snapshot() {
	(cd "$1" && find . -printf '%p %y %s\n' 2>/dev/null | LC_ALL=C sort)
}
