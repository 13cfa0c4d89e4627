#!/bin/sh
# The run's last line counts each step once, by what became of it:
# "N of M steps ran", then how many were restored from the build cache,
# up to date, skipped (never started: a step it needs failed, or the run
# stopped), failed, and stopped (running when a signal came), leaving
# out the counts that are zero. With --json every step gets its
# step-finished event, skipped ones included.
. "$(dirname "$0")/../lib/test-lib.sh"

export TFBUILD_STORE=1
# The steps leave marks outside their own directories, the test's way of
# seeing when a step started; the step sandbox forbids that (t2120), so they run
# without it.
export TFBUILD_SANDBOX=off
mkdir -p proj
cat >proj/r.yaml <<EOF
schema: 1
name: sm
version: 1.0.0
variables:
  bad: "0"
  nap: "0"
steps:
  - name: first
    run: |
      touch "$TRASH/started"
      sleep \${nap}
      echo first >"\$STAGE/first"
  - name: bad
    needs: [first]
    run: |
      test \${bad} = 0
      echo bad >"\$STAGE/bad"
  - name: after
    needs: [bad]
    run: echo after >"\$STAGE/after"
  - name: other
    needs: [first]
    run: echo other >"\$STAGE/other"
  - name: pkg
    needs: [after, other]
    run: |
      mkdir -p "\$STAGE/sm"
      echo "# sm" >"\$STAGE/sm/__init__.py"
wheels:
  - name: sm
    version: 1.0.0
    platform: any
    files:
      - {from: pkg, src: sm, dst: sm}
EOF
# One step at a time, in the recipe's order: what a failure leaves
# unstarted is then always the same.
run() { "$TFBUILD" recipe -j 1 --build-dir "$TRASH/b" --out out "$@" proj/r.yaml; }
summary() { grep "steps ran" "$1" >actual && echo "tfbuild: $2" >expect && compare expect actual; }

expect_success 'a step fails: what needs it, and what was not started, are skipped' '
	expect_code 5 run --set bad=1 2>err &&
	summary err "1 of 5 steps ran, 3 skipped, 1 failed"
'

expect_success 'with -k the others run; the step that ran before is up to date' '
	expect_code 5 run -k --set bad=1 2>err &&
	summary err "1 of 5 steps ran, 1 up to date, 2 skipped, 1 failed"
'

expect_success 'fixed, the rest runs' '
	run --set bad=0 2>err >/dev/null &&
	summary err "3 of 5 steps ran, 2 up to date"
'

expect_success 'the build tree removed: every step is restored from the local store' '
	rm -rf b &&
	run --set bad=0 2>err >/dev/null &&
	test "$(grep -c "^tfbuild: restored .* from the local store" err)" = 5 &&
	! grep -q -e error -e building err &&
	summary err "0 of 5 steps ran, 5 restored"
'

expect_success 'one stage removed: that step is restored, the others are up to date' '
	rm -rf b/r/x86_64/stage/other &&
	run --set bad=0 2>err >/dev/null &&
	summary err "0 of 5 steps ran, 1 restored, 4 up to date"
'

expect_success 'SIGTERM before any step ran: one stopped, the others skipped' '
	rm -f started &&
	{ "$TFBUILD" recipe -j 1 --build-dir "$TRASH/b" --out out --json \
		--set nap=60 proj/r.yaml >events 2>err & } &&
	pid=$! &&
	i=0 && while test ! -e started && test $i -lt 300; do
		sleep 0.1; i=$((i + 1))
	done &&
	test -e started &&
	kill -TERM $pid &&
	{ wait $pid; rc=$?; } &&
	test $rc = 143 &&
	summary err "0 of 5 steps ran, 4 skipped, 1 stopped" &&
	grep "\"event\":\"step-finished\"" events >finished &&
	test "$(wc -l <finished)" = 5 &&
	test "$(grep -c "\"status\":\"skipped\"" finished)" = 4 &&
	test "$(grep -c "\"status\":\"failed\"" finished)" = 1
'

test_done
