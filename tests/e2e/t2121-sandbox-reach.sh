#!/bin/sh
# The step sandbox (docs/security.md#the-step-sandbox): a step cannot read
# tfbuild's environment through /proc/$PPID/environ, cannot connect to a
# server on 127.0.0.1 unless it says `network: true`, cannot read the
# cache's signing key (even given by a relative name), and what it
# starts in the background ends with it. Each time --sandbox=off shows that the
# same step, unconfined, does reach it.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

mark=$$
mkdir -p served && echo served-$mark >served/hello.txt || exit 1
start_httpd "$TRASH/served" || exit 1

cat >r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
steps:
  - name: environ
    run: |
      tr '\0' '\n' </proc/\$PPID/environ >"\$STAGE/parent" || true
      cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' >"\$STAGE/all" || true
  - name: connect
    run: |
      $PYTHON -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \\
        $HTTP_URL/hello.txt >"\$STAGE/got" 2>&1 || true
EOF
sed -e 's/^  - name: connect$/&\n    network: true/' r.yaml >net.yaml

cat >key.yaml <<EOF
schema: 1
name: key
version: 1.0.0
steps:
  - name: read
    run: cat $TRASH/ci.key >"\$STAGE/got" 2>&1 || true
EOF

cat >bg.yaml <<EOF
schema: 1
name: bg
version: 1.0.0
steps:
  - name: leave
    run: |
      setsid sleep 300$mark >/dev/null 2>&1 &
      nohup sleep 301$mark >/dev/null 2>&1 &
      # setsid(1) calls setsid(2) before it runs sleep: once sleep runs,
      # it has left the step's process group (which ends with the step)
      i=0; until ps -eo args= | grep -q "^sleep 300$mark\$" || [ \$i -ge 100 ]; do i=\$((i+1)); sleep 0.1; done
      echo left two behind
  - name: look
    needs: [leave]
    run: |
      touch "\$BUILDDIR/started"
      i=0; while [ ! -e $TRASH/go ] && [ \$i -lt 600 ]; do i=\$((i+1)); sleep 0.1; done
EOF

leftovers() { ps -eo args= | grep "^sleep 30[01]$mark\$"; }

expect_success 'a secret in tfbuild'"'"'s environment: not in /proc/$PPID/environ, nor any /proc' '
	SECRET_TOKEN=s3cr3t-$mark "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "^SOURCE_DATE_EPOCH=" build/r/x86_64/stage/environ/parent &&
	! grep -q s3cr3t build/r/x86_64/stage/environ/parent build/r/x86_64/stage/environ/all
'

expect_success '--sandbox=off: the parent is tfbuild, and the secret is read' '
	SECRET_TOKEN=s3cr3t-$mark "$TFBUILD" recipe --sandbox=off --force r.yaml 2>err &&
	grep -qx SECRET_TOKEN=s3cr3t-$mark build/r/x86_64/stage/environ/parent
'

expect_success 'the server on 127.0.0.1 is out of reach of a step' '
	"$TFBUILD" recipe --force r.yaml 2>err &&
	! grep -q served-$mark build/r/x86_64/stage/connect/got &&
	grep -q "Connection refused\|Network is unreachable" build/r/x86_64/stage/connect/got
'

expect_success '--sandbox=off: the same step reaches it' '
	"$TFBUILD" recipe --sandbox=off --force r.yaml 2>err &&
	grep -qx served-$mark build/r/x86_64/stage/connect/got
'

expect_success 'network: true: the step reaches it, and the run says so' '
	"$TFBUILD" recipe --force net.yaml 2>err &&
	grep -qx served-$mark build/net/x86_64/stage/connect/got &&
	grep -qx "tfbuild: step '"'"'connect'"'"' for x86_64 has the network (network: true at net.yaml:10:14)" err &&
	! grep -q "environ.*has the network" err
'

expect_success 'the signing key, given by a relative name, is empty to a step' '
	"$TFBUILD" cache keygen ci >/dev/null &&
	TFBUILD_STORE=1 "$TFBUILD" recipe --cache cache --signing-key ci.key key.yaml 2>err &&
	! grep -q PRIVATE build/key/x86_64/stage/read/got
'

expect_success '--sandbox=off: the same step reads it' '
	TFBUILD_STORE=1 "$TFBUILD" recipe --sandbox=off --force --cache cache \
		--signing-key ci.key key.yaml 2>err &&
	grep -q PRIVATE build/key/x86_64/stage/read/got
'

expect_success 'a background process ends with its step' '
	rm -f go &&
	{ "$TFBUILD" recipe bg.yaml 2>err & } &&
	pid=$! && i=0 &&
	until [ -e build/bg/x86_64/work/look/started ]; do
		i=$((i + 1)); test $i -lt 600 || { touch go; wait $pid; exit 1; }; sleep 0.1
	done &&
	left=$(leftovers || true) && touch go && wait $pid && test -z "$left" &&
	test -z "$(leftovers)"
'

expect_success '--sandbox=off: the same processes outlive it, until the run ends' '
	rm -f go build/bg/x86_64/work/look/started &&
	{ "$TFBUILD" recipe --sandbox=off --force bg.yaml 2>err & } &&
	pid=$! && i=0 &&
	until [ -e build/bg/x86_64/work/look/started ]; do
		i=$((i + 1)); test $i -lt 600 || { touch go; wait $pid; exit 1; }; sleep 0.1
	done &&
	left=$(leftovers || true) && touch go && wait $pid && test -n "$left" &&
	test -z "$(leftovers)"
'

test_done
