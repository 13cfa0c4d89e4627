#!/bin/sh
# The step sandbox holds as root (issue 35, item 1): a step keeps no
# capability, runs as nobody in a user namespace of its own, cannot
# remount the root read-write, unmount the tmpfs over the store, mknod,
# see tfbuild's process, or make a user namespace; a setuid copy of a
# shell it leaves in its stage or work directory has no setuid bit on the
# machine after the run. With --sandbox=off the same step, as root, has
# every capability, makes the node and the namespace, sees tfbuild and
# leaves the setuid shell (the remount is not tried unconfined: it would
# make this machine's root writable).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

# The name ps shows for the binary under test (tfbuild, tfbuild-san,
# tfbuild-tsan: make check and make tsan run the suite on their own).
comm=$(basename "$TFBUILD" | cut -c1-15)
cat >r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
steps:
  - name: fill
    run: echo one >"\$STAGE/one"
  - name: evil
    needs: [fill]
    run: |
      try() { if sh -c "\$1" >/dev/null 2>&1; then echo "did: \$2"; else echo "refused: \$2"; fi; }
      grep '^CapEff:' /proc/self/status
      echo "uid: \$(id -u)"
      if [ -e $TRASH/try-mounts ]; then
        try 'mount -o remount,bind,rw /' remount
        try 'umount $TRASH/cache/store' umount
      fi
      try 'mknod "\$BUILDDIR/null" c 1 3' mknod
      try 'unshare -U true' unshare
      if ps -eo comm= | grep -qx "$comm"; then echo "did: see-tfbuild"; else echo "refused: see-tfbuild"; fi
      cp /bin/dash "\$STAGE/sh" && chmod 4755 "\$STAGE/sh"
      cp /bin/dash "\$BUILDDIR/sh" && chmod 6755 "\$BUILDDIR/sh"
      ls -l "\$STAGE/sh" "\$BUILDDIR/sh"
EOF
S=build/r/x86_64/stage/evil
W=build/r/x86_64/work/evil
L=build/r/x86_64/logs/evil.log

expect_success 'in the sandbox: no capability, nobody, every attack refused' '
	touch try-mounts &&
	TFBUILD_STORE=1 "$TFBUILD" recipe --cache cache r.yaml 2>err &&
	cat $L &&
	test -d cache/store &&
	grep -qx "CapEff:	0000000000000000" $L &&
	grep -qx "uid: 65534" $L &&
	for a in remount umount mknod unshare see-tfbuild; do
		grep -qx "refused: $a" $L || exit 1
	done &&
	! grep -q "^did:" $L
'

expect_success 'the setuid shell the step made has no setuid or setgid bit here' '
	grep -q "^-rwsr-xr-x" $L && test -f $S/sh && test -f $W/sh &&
	test ! -u $S/sh && test ! -u $W/sh && test ! -g $W/sh &&
	test -x $S/sh
'

expect_success 'what a step writes belongs to the one who runs tfbuild' '
	test "$(stat -c %u $S/sh)" = "$(id -u)" &&
	test -w $S/sh && rm $S/sh
'

if [ "$(id -u)" != 0 ]; then
	skip "not root: --sandbox=off cannot show what root can do"
else
	expect_success '--sandbox=off, as root: every capability, and every attack works' '
		rm -f try-mounts &&
		TFBUILD_STORE=1 "$TFBUILD" recipe --sandbox=off --force --cache cache r.yaml 2>err &&
		cat $L &&
		! grep -qx "CapEff:	0000000000000000" $L &&
		grep -qx "uid: 0" $L &&
		for a in mknod unshare see-tfbuild; do
			grep -qx "did: $a" $L || exit 1
		done &&
		test -c $W/null && test -u $S/sh && test -u $W/sh
	'
fi

# The step's /dev (tf_sandbox_dev): bwrap's --dev but its terminals, in
# a tmpfs of bounded size; a step that wants a pseudo terminal is told
# it gets none, and gets one with --sandbox=off.
cat >dev.yaml <<EOF
schema: 1
name: dev
version: 1.0.0
steps:
  - name: devs
    run: |
      for n in null zero full random urandom tty; do test -c /dev/\$n && echo "node \$n"; done
      for n in fd stdin stdout stderr; do test -L /dev/\$n && echo "link \$n"; done
      echo shared >/dev/shm/x && cat /dev/shm/x
      test -e /dev/pts || echo "no pts"
      test -e /dev/ptmx || echo "no ptmx"
      df -k /dev | awk 'NR == 2 { print "size", \$2 }'
      echo \$(ls /dev)
  - name: terminal
    needs: [devs]
    run: python3 -c 'import pty; pty.openpty()' && echo got >"\$STAGE/pty"
EOF
D=build/dev/x86_64/logs

expect_success 'a step'"'"'s /dev: six devices, four links, a bounded shm, no terminal' '
	expect_code 5 "$TFBUILD" recipe dev.yaml 2>err &&
	cat $D/devs.log &&
	for n in null zero full random urandom tty; do
		grep -qx "node $n" $D/devs.log || exit 1
	done &&
	for n in fd stdin stdout stderr; do
		grep -qx "link $n" $D/devs.log || exit 1
	done &&
	grep -qx shared $D/devs.log &&
	grep -qx "no pts" $D/devs.log && grep -qx "no ptmx" $D/devs.log &&
	grep -qx "size 1048576" $D/devs.log &&
	grep -qx "fd full null random shm stderr stdin stdout tty urandom zero" $D/devs.log
'

expect_success 'the step that wants a pseudo terminal is told why it failed' '
	cat err &&
	grep -q "out of pty devices" $D/terminal.log &&
	grep -q "dev.yaml:[0-9]*:[0-9]*: step .terminal. for x86_64 asked for a pseudo terminal, which a step in the sandbox does not get" err
'

if [ -e /dev/ptmx ] && python3 -c 'import pty; pty.openpty()' 2>/dev/null; then
	expect_success '--sandbox=off: the same step gets its terminal, and no such word' '
		"$TFBUILD" recipe --sandbox=off dev.yaml 2>err &&
		test -f build/dev/x86_64/stage/terminal/pty &&
		! grep -q "pseudo terminal" err
	'
else
	skip "this machine gives no pseudo terminal either"
fi

test_done
