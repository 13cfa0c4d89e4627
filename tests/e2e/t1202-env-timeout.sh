#!/bin/sh
# Time limits (issue 14 item 6): past a step's limit, or on SIGTERM to
# tfbuild, the step's whole process tree (emulator included) is stopped,
# the error names the step and the limit, and nothing of it is left.
. "$(dirname "$0")/../lib/test-lib.sh"

# A marker only this test's processes carry in their command line.
mark=$$
cat >r.yaml <<EOF
schema: 1
name: slow
version: 1.0.0
steps:
  - name: fast
    run: echo ok
  - name: slow
    timeout: 2s
    run: |
      sleep 10$mark & sleep 20$mark
  - name: escape
    run: |
      setsid sleep 30$mark &
      echo left a process behind
EOF

# leftovers: the processes of this test still running, if any.
leftovers() { ps -eo pid=,args= | grep "sleep [0-9]*$mark\$\|qemu-marker-$mark" | grep -v grep; }

expect_success 'a step past its 2 s limit fails after about 2 s, naming the limit' '
	start=$(date +%s) &&
	expect_code 5 "$TFBUILD" recipe -j 3 r.yaml 2>err &&
	end=$(date +%s) &&
	grep -qx "tfbuild: step '"'"'slow'"'"' for x86_64 exceeded its time limit of 2s (timeout at r.yaml:8:14) and was stopped with every process it started; last lines of its log:" err &&
	test $((end - start)) -lt 30 &&
	grep -q "2s" err
'

expect_success 'nothing it started is left in the process table' '
	sleep 0.5 && test -z "$(leftovers)"
'

expect_success 'a process that left its session is stopped at the end too' '
	test -f build/r/x86_64/stamps/step-escape && test -z "$(leftovers)"
'

expect_success '--timeout overrides the recipe, and the error says so' '
	sed "s/timeout: 2s/timeout: 1h/" r.yaml >r2.yaml &&
	expect_code 5 "$TFBUILD" recipe --timeout 1s r2.yaml 2>err &&
	grep -q "^tfbuild: step '"'"'slow'"'"' for x86_64 exceeded its time limit of 1s (--timeout)" err &&
	sleep 0.5 && test -z "$(leftovers)"
'

expect_success 'a bad timeout is a recipe error at its position' '
	sed "s/timeout: 2s/timeout: soon/" r.yaml >r3.yaml &&
	expect_code 3 "$TFBUILD" recipe r3.yaml 2>err &&
	echo "tfbuild: r3.yaml:8:14: '"'"'timeout'"'"' must be a positive duration such as 90s, 30m or 2h, not '"'"'soon'"'"'" >expect &&
	compare expect err &&
	expect_code 2 "$TFBUILD" recipe --timeout 0 r.yaml 2>/dev/null
'

cat >q.yaml <<EOF
schema: 1
name: spin
version: 1.0.0
targets: [aarch64]
tests:
  - name: spin
    run: |
      printf 'int main(void) { for (;;); }\n' >spin.c
      \$CC -o qemu-marker-$mark spin.c
      \$EMULATOR ./qemu-marker-$mark
EOF

expect_success 'SIGTERM to tfbuild stops the emulator it runs, exit 128+15' '
	"$TFBUILD" recipe --target aarch64 q.yaml 2>err &
	pid=$! && i=0 &&
	until ps -eo args= | grep -q "^qemu-aarch64 ./qemu-marker-$mark"; do
		i=$((i + 1)); test $i -lt 300 || { kill $pid; exit 1; }; sleep 0.1
	done &&
	kill -TERM $pid && { wait $pid; rc=$?; } &&
	test $rc = 143 &&
	grep -q "^tfbuild: got SIGTERM: stopping every running step$" err &&
	grep -q "^tfbuild: step '"'"'spin'"'"' for aarch64 was stopped (tfbuild got SIGTERM)" err &&
	sleep 0.5 && test -z "$(leftovers)" &&
	test ! -e build/q/aarch64/stamps/step-spin &&
	test -z "$(find build -name ".*" -newer q.yaml ! -name ".tfbuild-host-tools" ! -name ".tool-probes" ! -name ".tfbuild-emulator" | grep -v "^build$")"
'

test_done
