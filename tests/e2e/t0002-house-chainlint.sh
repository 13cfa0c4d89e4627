#!/bin/sh
# The &&-chain check (tests/lib/chainlint.py, run by test-lib.sh before
# a script's first test). A script run through the library fails when a
# body's chain is broken, naming the test, its line and the break, even
# though every body passes; each kind of break is found wherever it
# stands (top level, groups, subshells, if/for/while/case, $( )); and a
# script whose bodies use every construct the suite uses, chained right,
# passes with no report.
. "$(dirname "$0")/../lib/test-lib.sh"

# inner NAME: run the test script NAME.sh of this folder through the
# library, its output in NAME.out and its exit code in NAME.rc.
inner() {
	TFBUILD="$TFBUILD" TESTS_DIR="$TESTS_DIR" SRC_ROOT="$SRC_ROOT" \
		sh "$1.sh" >"$1.out" 2>&1
	echo $? >"$1.rc"
}

cat >t0002-one.sh <<\SCRIPT
. "$TESTS_DIR/lib/test-lib.sh"
expect_success 'a broken chain' '
	false
	true
'
test_done
SCRIPT

# One test per kind of break; every body passes when it runs.
cat >t0002-broken.sh <<\SCRIPT
. "$TESTS_DIR/lib/test-lib.sh"
expect_success 'newline' '
	true &&
	false
	true
'
expect_success 'after a here-document' '
	cat >doc <<-\END
	text
	END
	true
'
expect_success 'after a quoted here-document tag' '
	cat >doc <<"END" &&
text
END
	false
	true
'
expect_success 'semicolon after a chain' '
	false && true; true
'
expect_success 'chain started in the background' '
	false && sleep 0 &
	true
'
expect_success 'alternative that does not exit' '
	false || echo failed
	true
'
expect_success 'a chain dropped by || :' '
	false && true || :
	true
'
expect_success 'after a line continuation' '
	false \
		--an-option
	true
'
expect_success 'in a group' '
	{ false
	true; } &&
	true
'
expect_success 'in a subshell' '
	(false
	true) &&
	true
'
expect_success 'in an if body' '
	if true; then
		false
		true
	fi
'
expect_success 'in a for body' '
	for i in 1 2; do
		false
		true
	done
'
expect_success 'in a while body' '
	i=0 && while [ $i -lt 2 ]; do
		false
		i=$((i + 1))
	done
'
expect_success 'in a case arm' '
	case x in
	x)
		false
		true
		;;
	esac
'
expect_success 'in a command substitution' '
	x=$(false
	echo y) &&
	test "$x" = y
'
expect_success 'in a function' '
	f() {
		false
		true
	} &&
	f
'
expect_success "in a body in double quotes" "
	false
	true
"
test_done
SCRIPT

# Every construct the bodies use, chained right: no report, all pass.
cat >t0002-good.sh <<\SCRIPT
. "$TESTS_DIR/lib/test-lib.sh"
expect_success 'here-documents, quoted and not, with - and without' '
	x=1 &&
	cat >a <<-EOF &&
	$x; not a command
	EOF
	cat >b <<\EOF &&
	a && chain; in a document
EOF
	cat >c <<"EOF" && cat <<-EOF >d &&
broken
	chain
EOF
	two on a line
	EOF
	grep -q "1; not" a && grep -q chain b && grep -q two d
'
expect_success 'if, for, while, until and case, chained or ending in exit' '
	if true; then
		: &&
		true
	elif false; then
		false
	else
		true
	fi &&
	for i in 1 2; do
		test $i -gt 0 || exit 1
		test $i -lt 3 || { echo "$i is too big"; exit 1; }
	done &&
	i=0 && while [ $i -lt 3 ]; do
		i=$((i + 1)); test $i -lt 9 || exit 1; sleep 0
	done &&
	until [ $i -eq 0 ]; do i=$((i - 1)); done &&
	case "$i" in
	0) true ;;
	*) false ;;
	esac &&
	case a in (a|b) ;; esac
'
expect_success 'groups, subshells and command substitutions' '
	{ echo a; echo b; } >ab &&
	(cd . && test -s ab) &&
	test "$(cat ab | wc -l)" = 2 &&
	test "$(echo "$(echo "nested ) (quoted")")" = "nested ) (quoted" &&
	test $((1 + 2)) = 3 && test "${i:-x}" = x && test `echo q` = q &&
	find . -name ab -exec test -s {} \; &&
	! false
'
expect_success 'line continuations and pipes' '
	printf "%s\n" one two \
		three |
	grep -c . >n &&
	test "$(cat n)" = \
		3
'
expect_success 'exit codes: $?, expect_code, || : and || exit' '
	sh -c "exit 3"; test $? = 3 &&
	sh -c "exit 4"
	rc=$?
	test $rc = 4 &&
	expect_code 5 sh -c "exit 5" &&
	rm -f no-such-file &&
	sh -c "exit 0" || exit 1
	false || :
	true
'
expect_success 'background commands, wait and a function' '
	sleep 0 &
	pid=$!
	wait $pid &&
	{ sleep 0 & } &&
	wait $! &&
	f() { test "$1" = x; } &&
	f x
'
expect_success 'status dropped by ;, after one command only' '
	false; true
'
expect_success 'commands before an exit or false do not count' '
	(echo a
	echo b
	exit 1) >out
	test $? = 1 && test "$(cat out)" = "a
b"
'
test_done
SCRIPT

expect_success 'a broken chain fails its script, which names the test and the break' '
	inner t0002-one &&
	test "$(cat t0002-one.rc)" = 1 &&
	cat >expect <<-\EOF &&
	not ok - broken &&-chain in '"'"'a broken chain'"'"' (t0002-one.sh:3)
	#   3: 	false ?!AMP?!
	#   4: 	true
	ok 2 - a broken chain
	# passed 1 failed 1
	EOF
	compare expect t0002-one.out
'

expect_success 'each kind of break is found, each test named once' '
	inner t0002-broken &&
	test "$(cat t0002-broken.rc)" = 1 &&
	sed -n "s/^ok [0-9]* - //p" t0002-broken.out >ran &&
	test "$(wc -l <ran)" = 17 &&
	sed -n "s/^not ok - broken &&-chain in .\(.*\). (t0002-broken.sh:[0-9]*)$/\1/p" \
		t0002-broken.out >named &&
	compare ran named &&
	grep -q "^# passed 17 failed 17$" t0002-broken.out
'

expect_success 'every construct the suite uses, chained right: no report, all pass' '
	inner t0002-good &&
	test "$(cat t0002-good.rc)" = 0 &&
	! grep -q "not ok" t0002-good.out &&
	! grep -q "AMP" t0002-good.out &&
	grep -q "^# passed 8 failed 0$" t0002-good.out
'

expect_success 'a body the check cannot read fails its script' '
	printf "%s\n" ". \"\$TESTS_DIR/lib/test-lib.sh\"" \
		"expect_success \"unclosed\" \"cat <<EOF\"" test_done >t0002-unread.sh &&
	inner t0002-unread &&
	test "$(cat t0002-unread.rc)" = 1 &&
	grep -q "^not ok - chainlint cannot read the body of .unclosed. (t0002-unread.sh:2): line 1: here-document .EOF. not closed$" t0002-unread.out
'

expect_success 'every script of the suite passes the check' '
	"$PYTHON" "$TESTS_DIR/lib/chainlint.py" "$TESTS_DIR"/e2e/t[0-9]*.sh >report &&
	test ! -s report
'

test_done
