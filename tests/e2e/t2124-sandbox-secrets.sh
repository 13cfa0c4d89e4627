#!/bin/sh
# Secrets are out of a step's reach by default (issue 35, items 2 and
# 4): the attestation key (docs/publishing.md's `--attestation-key
# release.key`, read back through ${recipe_dir}), tfbuild's config
# (TFBUILD_CONFIG), pip's config (PIP_CONFIG_FILE), /etc/shadow, /root
# and /home are unreadable; a unix socket outside the recipe's tree is
# not there; a descriptor tfbuild's caller left open (7<secret) does
# not reach the step; every tmpfs has its size. With --sandbox=off the
# same step reads each file and reaches the socket (the descriptor is
# closed for every child of tfbuild, with or without the sandbox).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

mark=$$
# The recipe two levels down: its directory and the one above are the
# run's places; $TRASH itself, where the socket listens, is not.
mkdir -p proj/r || exit 1
echo "# token-$mark" >tfconfig && echo "[global]
# pip-token-$mark" >pip.conf && echo fd-secret-$mark >fdsecret || exit 1
"$PYTHON" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(5)
open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"agent-" + sys.argv[2].encode() + b"\n"); c.close()
' "$TRASH/agent.sock" $mark &
agent=$!
at_exit "stop_pid $agent"
i=0; until [ -e agent.sock.ready ] || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done

cat >proj/r/r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
steps:
  - name: peek
    run: |
      cat \${recipe_dir}/release.key >"\$STAGE/key" 2>&1 || true
      cat $TRASH/release.key >>"\$STAGE/key" 2>&1 || true
      cat $TRASH/tfconfig >"\$STAGE/config" 2>&1 || true
      cat $TRASH/pip.conf >"\$STAGE/pip" 2>&1 || true
      cat /etc/shadow >"\$STAGE/shadow" 2>&1 || true
      ls -A /root /home >"\$STAGE/homes" 2>&1 || true
      cat /proc/self/fd/7 >"\$STAGE/fd" 2>&1 || true
      ls /proc/self/fd >"\$STAGE/fds" 2>&1 || true
      $PYTHON -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("$TRASH/agent.sock"); print(s.recv(100).decode())' >"\$STAGE/sock" 2>&1 || true
      for d in /tmp /run \$HOME \$TMPDIR; do stat -f -c "\$d %b %S" \$d; done >"\$STAGE/sizes"
EOF
S=proj/r/build/r/x86_64/stage/peek

expect_success 'setup: an attestation key beside the recipe' '
	(cd proj/r && "$TFBUILD" cache keygen release >/dev/null) &&
	grep -q PRIVATE proj/r/release.key && cp proj/r/release.key . &&
	ls -A /root /home | grep -v "^/\|^\$" >homes.real
'

run() { # [recipe options]
	(cd proj/r && TFBUILD_CONFIG=$TRASH/tfconfig PIP_CONFIG_FILE=$TRASH/pip.conf \
		"$TFBUILD" recipe --attestation-key release.key "$@" r.yaml 7<"$TRASH/fdsecret")
}

expect_success 'in the sandbox no secret is read' '
	run 2>err &&
	! grep -q PRIVATE $S/key && ! grep -q token-$mark $S/config &&
	! grep -q pip-token-$mark $S/pip &&
	! grep -q "^root:" $S/shadow &&
	! grep -qxFf homes.real $S/homes &&
	! grep -q fd-secret $S/fd && ! grep -qx 7 $S/fds &&
	! grep -q agent-$mark $S/sock
'

expect_success 'every tmpfs has its size: 1 GiB for scratch, 16 MiB for /run' '
	cat $S/sizes &&
	awk "{ n = \$2 * \$3; if (\$1 == \"/run\" ? n != 16777216 : n != 1073741824) bad = 1 } END { exit bad }" $S/sizes
'

expect_success '--sandbox=off: the same step reads them and reaches the socket' '
	run --sandbox=off --force 2>err &&
	grep -q PRIVATE $S/key && grep -q token-$mark $S/config &&
	grep -q pip-token-$mark $S/pip &&
	grep -qx agent-$mark $S/sock && grep -qxFf homes.real $S/homes &&
	if [ "$(id -u)" = 0 ]; then grep -q "^root:" $S/shadow; fi &&
	! grep -q fd-secret $S/fd
'

test_done
