#!/bin/sh
# A run killed outright (SIGKILL, a power cut) cannot clean up after
# itself: the next run, holding the output folder's lock, removes what
# such a run leaves there (pack's temporary directory, SHA256SUMS's and
# the provenance's temporary files) and nothing else.
. "$(dirname "$0")/../lib/test-lib.sh"

pure_project || exit 1
wheel=pure-1.0.0-py3-none-any.whl
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }

expect_success 'a clean run' '
	run >/dev/null 2>&1 && test -f "out/$wheel"
'

expect_success 'what a killed run left in the output folder goes' '
	mkdir -p out/.tfbuild-wheels.Ab3dE9/0 &&
	echo partial >out/.tfbuild-wheels.Ab3dE9/0/.$wheel.x1Y2z3 &&
	echo partial >out/SHA256SUMS.tmp.q9W8e7 &&
	echo partial >out/pure.intoto.json.tmp.Zz0Zz0 &&
	run 2>err >/dev/null &&
	grep -q "removed .*out/.tfbuild-wheels.Ab3dE9., left by an interrupted run" err &&
	ls -A out >actual &&
	printf "%s\n" SHA256SUMS "$wheel" pure.intoto.json | sort >expect &&
	sort actual >sorted && compare expect sorted
'

expect_success 'files of the user that only look alike stay' '
	echo mine >out/SHA256SUMS.tmp.toolong7 &&
	echo mine >out/my-SHA256SUMS.tmp.abcdef &&
	echo mine >out/notes.tmp.abcdef &&
	mkdir out/.tfbuild-wheels.mine-12 &&
	echo mine >out/.tfbuild-wheels.Qq1Qq1 &&
	run 2>err >/dev/null &&
	! grep -q "interrupted run" err &&
	test -f out/SHA256SUMS.tmp.toolong7 && test -f out/my-SHA256SUMS.tmp.abcdef &&
	test -f out/notes.tmp.abcdef && test -d out/.tfbuild-wheels.mine-12 &&
	test -f out/.tfbuild-wheels.Qq1Qq1
'

test_done
