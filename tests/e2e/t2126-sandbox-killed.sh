#!/bin/sh
# A killed tfbuild takes its steps with it (issue 35, item 5): after
# `kill -KILL` of tfbuild during a long step, the step's processes are
# gone within a second (the log supervisor dies with tfbuild, and bwrap
# with it: --die-with-parent), and a rerun at once takes the build
# tree's lock instead of exiting 7. With --sandbox=off nothing holds
# the step's own children: the sleep outlives tfbuild (the lock is
# still released).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

mark=$$
cat >r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
steps:
  - name: long
    run: |
      if [ -e $TRASH/long ]; then touch "\$BUILDDIR/started"; sleep 40$mark; fi
      echo done >"\$STAGE/out"
EOF
left() { ps -eo args= | grep -x "sleep 40$mark"; }
at_exit 'for p in $(ps -eo pid=,args= | awk "\$2 == \"sleep\" && \$3 == \"40$mark\" { print \$1 }"); do kill $p; done'

# Start a run, wait until its step sleeps, kill -KILL tfbuild.
kill_during() { # [recipe options]
	rm -f build/r/x86_64/work/long/started && touch long &&
	{ "$TFBUILD" recipe --force "$@" r.yaml 2>err & } &&
	pid=$! && i=0 &&
	until [ -e build/r/x86_64/work/long/started ] && left >/dev/null; do
		i=$((i + 1)); test $i -lt 300 || return 1; sleep 0.1
	done &&
	kill -KILL $pid && { wait $pid; true; } && rm -f long
}

expect_success 'kill -KILL of tfbuild: the step is gone within a second' '
	kill_during &&
	i=0 && while left >/dev/null && [ $i -lt 10 ]; do i=$((i + 1)); sleep 0.1; done &&
	test -z "$(left)"
'

expect_success 'a rerun at once takes the lock and builds' '
	"$TFBUILD" recipe r.yaml 2>err &&
	grep -qx done build/r/x86_64/stage/long/out
'

expect_success '--sandbox=off: the step'"'"'s sleep outlives tfbuild; the lock is free' '
	kill_during --sandbox=off &&
	sleep 1 && test -n "$(left)" &&
	"$TFBUILD" recipe --sandbox=off r.yaml 2>err
'

test_done
