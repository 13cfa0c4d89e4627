#!/bin/sh
# The runner itself (issue 34 item 6): tests/run.sh runs the programs in
# parallel (TEST_JOBS), prints each one's output whole when it ends with
# its time, the ten slowest, and the one line "N passed, N failed"; a
# failing or dying script is counted; the next run starts the longest
# first (tests/tmp/timings); TFBUILD_TEST_EXPENSIVE=0 skips the
# expensive tier, and only it, and says so.
. "$(dirname "$0")/../lib/test-lib.sh"

# A copy of the runner and the library, with scripts of our own as the
# only tests, as t0004 does.
mark=$$
mkdir -p suite/e2e && cp "$TESTS_DIR/run.sh" suite/ && cp -r "$TESTS_DIR/lib" suite/

fake() { # NAME BODY...: suite/e2e/NAME.sh with one test per BODY
	n=$1 && shift
	{
		printf '%s' "${head:-}"
		echo '. "$TESTS_DIR/lib/test-lib.sh"'
		for b in "$@"; do
			printf "expect_success '%s: %s' '%s'\n" "$n" "$b" "$b"
		done
		echo test_done
	} >"suite/e2e/$n.sh"
}
for i in 01 02 03 04 05 06 07 08 09 10 11; do
	fake "t91$i-quick" true "echo output of t91$i"
done
fake t9120-sleeper 'sleep 2'
fake t9121-fails true false
printf '. "$TESTS_DIR/lib/test-lib.sh"\necho dies before its summary\nexit 3\n' >suite/e2e/t9122-dies.sh
head='#!/bin/sh
# tier: expensive (a framework test, in this fake)
'
fake t9130-expensive true "touch $TRASH/expensive-ran"
head=
# Two scripts that pass only when they run at the same time: each holds
# its mark while it waits (3 s at most) for the other's, and a second
# after, then takes it away.
meet() { # ME OTHER
	echo "touch $TRASH/met-$1 && i=0 &&" \
		"while [ ! -e $TRASH/met-$2 ] && [ \$i -lt 30 ]; do sleep 0.1; i=\$((i + 1)); done &&" \
		"if [ -e $TRASH/met-$2 ]; then met=y; else met=n; fi &&" \
		"sleep 1 && rm $TRASH/met-$1 && test \$met = y"
}
fake t9140-meet-a "$(meet a b)"
fake t9141-meet-b "$(meet b a)"
# One that leaves a process behind while the others run.
fake t9150-leaves "{ sleep 3150$mark & } && true"
# Should the runner miss it, this script does not leave it running.
at_exit "ps -eo pid=,args= | grep \"sleep 3150$mark\$\" | grep -v grep |
	while read -r pid args; do kill \$pid; done"

suite() { # [VAR=VALUE...] [NAME...]: run the fake suite; output in out, status in rc
	vars=
	while [ $# -gt 0 ]; do
		case $1 in *=*) vars="$vars $1" && shift ;; *) break ;; esac
	done
	rm -f expensive-ran &&
	{ env $vars TFBUILD="$TFBUILD" UNIT_DIR= sh suite/run.sh "$@" >out 2>&1; echo $? >rc; } &&
	cat out
}

# block NAME: the lines printed under "== NAME (...)", up to the next one.
block() {
	awk -v n="$1" '/^== / { on = ($2 == n); next }
		/^(slowest ten|wall time|failing|[0-9]+ passed)/ { on = 0 } on' out
}

expect_success 'two jobs: the counts, the failing scripts and a non-zero status' '
	suite TEST_JOBS=2 &&
	test "$(cat rc)" != 0 &&
	grep -qx "29 passed, 3 failed" out &&
	grep -qx "failing: t9121-fails t9122-dies t9150-leaves" out &&
	grep -q "^not ok 2 - t9121-fails: false$" out &&
	grep -q "^not ok - t9150-leaves left process [0-9]* running, started by test 1 (t9150-leaves: { sleep 3150$mark & } && true): sleep 3150$mark$" out &&
	test -e expensive-ran
'

expect_success 'the jobs ran at the same time' '
	block t9140-meet-a >a && grep -qx "ok 1 - t9140-meet-a: .*" a &&
	block t9141-meet-b >b && grep -qx "ok 1 - t9141-meet-b: .*" b
'

expect_success 'each output whole under its header with the time, once' '
	test "$(grep -c "^== " out)" = 18 &&
	for s in suite/e2e/*.sh; do
		n=$(basename "$s" .sh) &&
		test "$(grep -c "^== $n ([0-9]*\.[0-9] s)$" out)" = 1 &&
		block "$n" >b &&
		! grep "^\(not \)\{0,1\}ok [0-9]* - " b | grep -v " - $n: " || return 1
	done &&
	block t9107-quick >b &&
	printf "%s\n" "ok 1 - t9107-quick: true" "ok 2 - t9107-quick: echo output of t9107" \
		"# passed 2 failed 0" >want &&
	compare want b
'

expect_success 'the ten slowest, the slowest first, with the times of the headers' '
	sed -n "/^slowest ten:$/,/^wall time/p" out | sed "1d;\$d" >ten &&
	test "$(wc -l <ten)" = 10 &&
	sed -n "s/^== .* (\([0-9.]*\) s)$/\1/p" out | sort -nr | head -n 10 >want &&
	awk "{ print \$1 }" ten >got &&
	compare want got &&
	while read -r t s n; do
		grep -qx "== $n ($t s)" out || return 1
	done <ten &&
	grep -q "^ *[2-9]\.[0-9] s  t9120-sleeper$" ten &&
	grep -q "^wall time [0-9.]* s with 2 jobs, [0-9.]* s in the programs$" out
'

expect_success 'one job: the meeting fails; the next run starts the longest first' '
	longest=$(sort -k2,2nr suite/tmp/timings | sed -n "1s/ .*//p") &&
	suite TEST_JOBS=1 &&
	grep -qx "27 passed, 5 failed" out &&
	grep -qx "failing: t9121-fails t9122-dies t9140-meet-a t9141-meet-b t9150-leaves" out &&
	grep -q "^wall time [0-9.]* s with 1 jobs" out &&
	grep "^== " out | head -n 1 | grep -q "^== $longest " &&
	grep -q "^t9120-sleeper [0-9]*$" suite/tmp/timings
'

expect_success 'without timings, the expensive tier goes first' '
	rm suite/tmp/timings &&
	suite TEST_JOBS=1 t9101 t9102 t9130 &&
	grep "^== " out | head -n 1 | grep -q "^== t9130-expensive " &&
	grep -qx "6 passed, 0 failed" out
'

expect_success 'TFBUILD_TEST_EXPENSIVE=0 skips the expensive tier, and only it, and says so' '
	suite TEST_JOBS=2 TFBUILD_TEST_EXPENSIVE=0 &&
	test ! -e expensive-ran &&
	! grep -q "^== t9130-expensive" out &&
	test "$(grep -c "^== " out)" = 17 &&
	grep -qx "skipped (TFBUILD_TEST_EXPENSIVE=0, the expensive tier): t9130-expensive" out &&
	grep -qx "27 passed, 3 failed, 1 skipped" out
'

expect_success 'a filter and the tier; all passing: status 0 and the plain line' '
	suite TEST_JOBS=2 t9101 t9130 &&
	test "$(cat rc)" = 0 &&
	grep -qx "4 passed, 0 failed" out &&
	! grep -q skipped out &&
	suite TFBUILD_TEST_EXPENSIVE=0 t9101 t9130 &&
	test "$(cat rc)" = 0 &&
	grep -qx "2 passed, 0 failed, 1 skipped" out
'

expect_success 'TEST_JOBS must be a number' '
	suite TEST_JOBS=two t9101 &&
	test "$(cat rc)" = 2 &&
	grep -qx "tfbuild: tests/run.sh: TEST_JOBS=.two.: not a number of jobs (1 or more)" out
'

test_done
