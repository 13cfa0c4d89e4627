#!/bin/sh
# Nothing a test starts outlives its script (issue 29 item 1). A server
# started inside a test body (start_httpd, in the subshell the body runs
# in) is stopped when the script ends, and may serve the later bodies;
# tests/run.sh fails a script that leaves any process behind, even one in
# a session of its own, naming its command line and the test that
# started it, and stops it.
. "$(dirname "$0")/../lib/test-lib.sh"

# A copy of the runner and the library, with scripts of our own as the
# only tests; each sleep carries a number only this run uses.
mark=$$
mkdir -p suite/e2e && cp "$TESTS_DIR/run.sh" suite/ && cp -r "$TESTS_DIR/lib" suite/

cat >suite/e2e/t9001-leaves.sh <<SCRIPT
. "\$TESTS_DIR/lib/test-lib.sh"
sleep 3001$mark &
expect_success 'a clean test' 'true'
expect_success 'leaves a sleep behind' '
	sleep 3002$mark &
	{ setsid sleep 3003$mark & } &&
	true
'
test_done
SCRIPT

cat >suite/e2e/t9002-clean.sh <<SCRIPT
. "\$TESTS_DIR/lib/test-lib.sh"
get() { "\$PYTHON" -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" "\$1"; }
mkdir www && echo hello >www/f
start_httpd www || exit 1
echo "\$HTTP_URL" >top.url
sleep 3004$mark &
at_exit "stop_pid \$!"
expect_success 'a server started in a body' '
	mkdir www2 && echo again >www2/g &&
	start_httpd www2 &&
	echo "\$HTTP_URL" >body.url
'
expect_success 'serves the later bodies, as does the one of the script' '
	get "\$(cat body.url)/g" >got && echo again >want && compare want got &&
	get "\$(cat top.url)/f" >got && echo hello >want && compare want got
'
test_done
SCRIPT

# mine: the processes of this test's scripts still running.
mine() { ps -eo pid=,args= | grep "sleep 300[0-9]$mark\$\|$TRASH/suite/lib/httpd.py" | grep -v grep; }
# Should the runner miss them, this script does not leave them running.
at_exit 'mine | while read -r pid args; do kill $pid; done'

expect_success 'a script that leaves processes behind fails, each named with its test' '
	! TFBUILD="$TFBUILD" UNIT_DIR= sh suite/run.sh t9001 >out 2>&1 &&
	cat out &&
	grep -q "^ok 2 - leaves a sleep behind$" out &&
	grep -q "^not ok - t9001-leaves left process [0-9]* running, started by the script, outside any test: sleep 3001$mark$" out &&
	grep -q "^not ok - t9001-leaves left process [0-9]* running, started by test 2 (leaves a sleep behind): sleep 3002$mark$" out &&
	grep -q "^not ok - t9001-leaves left process [0-9]* running, started by test 2 (leaves a sleep behind): sleep 3003$mark$" out &&
	grep -qx "failing: t9001-leaves" out &&
	grep -qx "2 passed, 3 failed" out &&
	test -z "$(mine)"
'

expect_success 'servers started in a body or not serve every test and are stopped at the end' '
	TFBUILD="$TFBUILD" UNIT_DIR= sh suite/run.sh t9002 >out 2>&1 ||
		{ cat out; exit 1; }
	cat out &&
	! grep -q "left process" out &&
	grep -qx "2 passed, 0 failed" out &&
	test -z "$(mine)"
'

test_done
