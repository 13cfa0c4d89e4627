#!/bin/sh
# `sandbox: {read: [PATH...]}` (docs/recipe.md#sandbox): a step sees
# only its places until the recipe widens them, per recipe or per step;
# each widening is said at its FILE:LINE:COL; `/`, a missing path and
# what steps never see (a key, a credentials file, the store) are
# refused there with exit 3 before anything runs.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

mkdir -p a/proj outside &&
echo "outside bytes" >outside/data.txt

# recipe [LINE...]: a/proj/r.yaml, a step that reads outside/data.txt
# (and outside/release.key, kept in $STAGE/key, when it is there), with
# the LINEs at the top level (line 4 on).
recipe() {
	{
		printf 'schema: 1\nname: r\nversion: 1.0.0\n'
		printf '%s\n' "$@"
		cat <<-EOF
		steps:
		  - name: peek
		    run: |
		      cat "$TRASH/outside/data.txt" >"\$STAGE/got"
		      cat "$TRASH/outside/release.key" >"\$STAGE/key" 2>/dev/null || :
		wheels:
		  - name: r
		    version: 1.0.0
		    files:
		      - {from: peek, src: got, dst: r}
		EOF
	} >a/proj/r.yaml
}

got=a/proj/build/r/x86_64/stage/peek

expect_success 'without the key the step cannot read outside its places' '
	recipe &&
	expect_code 5 "$TFBUILD" recipe a/proj/r.yaml 2>err &&
	grep -q "outside/data.txt: No such file or directory" a/proj/build/r/x86_64/logs/peek.log
'

expect_success 'the same step reads it with --sandbox=off (the test is real)' '
	"$TFBUILD" recipe --sandbox=off --out off a/proj/r.yaml 2>err &&
	compare outside/data.txt $got/got
'

expect_success 'sandbox.read, recipe-relative: read, and said at its position' '
	recipe "sandbox: {read: [../../outside]}" &&
	"$TFBUILD" recipe --force a/proj/r.yaml 2>err &&
	compare outside/data.txt $got/got &&
	grep -qx "tfbuild: step '"'"'peek'"'"' for x86_64 reads '"'"'$TRASH/outside'"'"' (sandbox.read at a/proj/r.yaml:4:18)" err
'

expect_success 'sandbox.read of one file, absolute, per step; read-only; only that step' '
	cat >a/proj/r.yaml <<-EOF &&
	schema: 1
	name: r
	version: 1.0.0
	steps:
	  - name: peek
	    sandbox:
	      read: ["$TRASH/outside/data.txt"]
	    run: |
	      cat "$TRASH/outside/data.txt" >"\$STAGE/got"
	      ! echo x >>"$TRASH/outside/data.txt"
	  - name: other
	    run: "! cat $TRASH/outside/data.txt"
	EOF
	"$TFBUILD" recipe --force a/proj/r.yaml 2>err &&
	compare outside/data.txt $got/got &&
	grep -qx "tfbuild: step '"'"'peek'"'"' for x86_64 reads '"'"'$TRASH/outside/data.txt'"'"' (sandbox.read at a/proj/r.yaml:7:14)" err &&
	test "$(grep -c "sandbox.read" err)" = 1
'

expect_success '/ is refused as written, at its position (exit 3)' '
	recipe "sandbox: {read: [/, //]}" &&
	expect_code 3 "$TFBUILD" recipe --force a/proj/r.yaml 2>err &&
	grep -qx "tfbuild: a/proj/r.yaml:4:18: '"'"'sandbox.read'"'"' may not name '"'"'/'"'"': a step would see the whole machine (docs/security.md#the-step-sandbox)" err &&
	grep -q "^tfbuild: a/proj/r.yaml:4:21: " err
'

expect_success 'a path that resolves to /, a missing one, /proc: refused, nothing runs' '
	recipe "sandbox: {read: [../../../../../../../../../../.., nothere, /proc/self]}" &&
	rm -rf a/proj/build &&
	expect_code 3 "$TFBUILD" recipe a/proj/r.yaml 2>err &&
	grep -q "^tfbuild: a/proj/r.yaml:4:18: '"'"'sandbox.read'"'"' refuses .*: a step would see the whole machine$" err &&
	grep -qx "tfbuild: a/proj/r.yaml:4:52: '"'"'sandbox.read'"'"' refuses '"'"'$TRASH/a/proj/nothere'"'"': No such file or directory" err &&
	grep -qx "tfbuild: a/proj/r.yaml:4:61: '"'"'sandbox.read'"'"' refuses '"'"'/proc/self'"'"': a step has its own /proc" err &&
	test ! -e a/proj/build/r/x86_64/logs/peek.log
'

expect_success 'the attestation key, a credentials file, the store: refused' '
	(cd outside && "$TFBUILD" cache keygen release >/dev/null) &&
	grep -q PRIVATE outside/release.key &&
	mkdir -p "$HOME/.config/pip" && echo "[global]" >"$HOME/.config/pip/pip.conf" &&
	recipe &&
	TFBUILD_STORE=1 "$TFBUILD" recipe --sandbox=off --force a/proj/r.yaml 2>/dev/null &&
	store=$(find "$HOME/.cache" -type d -name store | head -n 1) &&
	test -n "$store" &&
	recipe "sandbox: {read: [../../outside/release.key, \"$HOME/.config/pip/pip.conf\", \"$store/ac\"]}" &&
	TFBUILD_STORE=1 expect_code 3 "$TFBUILD" recipe --force --attestation-key outside/release.key a/proj/r.yaml 2>err &&
	grep -qx "tfbuild: a/proj/r.yaml:4:18: '"'"'sandbox.read'"'"' refuses .*: it would show '"'"'$TRASH/outside/release.key'"'"', which steps never see" err &&
	grep -q "^tfbuild: a/proj/r.yaml:4:.*pip.conf'"'"', which steps never see$" err &&
	grep -q "^tfbuild: a/proj/r.yaml:4:.*store'"'"', which steps never see$" err
'

expect_success 'a directory holding a secret may be read; the secret stays hidden' '
	chmod 644 outside/release.key &&
	recipe "sandbox: {read: [../../outside]}" &&
	"$TFBUILD" recipe --force --attestation-key outside/release.key a/proj/r.yaml 2>err &&
	compare outside/data.txt $got/got &&
	! grep -q PRIVATE $got/key &&
	"$TFBUILD" recipe --force --sandbox=off --attestation-key outside/release.key a/proj/r.yaml 2>err &&
	grep -q PRIVATE $got/key
'

# /etc is a prepared copy, read-only (security.md): a path in /etc it
# lacks is still bound where it really is, over a mount point the copy
# is made with.
if [ -f /etc/login.defs ] && [ -d /etc/apt ]; then
	expect_success 'sandbox.read of a file and a directory in /etc that the copy lacks' '
		cat >etc.yaml <<-\EOF &&
		schema: 1
		name: e
		version: 1.0.0
		steps:
		  - name: plain
		    run: ls /etc/login.defs /etc/apt >"$STAGE/ls" 2>&1 || true
		  - name: reads
		    sandbox: {read: [/etc/login.defs, /etc/apt]}
		    run: cat /etc/login.defs >"$STAGE/defs" && ls /etc/apt >"$STAGE/apt"
		EOF
		"$TFBUILD" recipe etc.yaml 2>err &&
		compare /etc/login.defs build/etc/x86_64/stage/reads/defs &&
		ls /etc/apt >apt.real && compare apt.real build/etc/x86_64/stage/reads/apt &&
		test "$(grep -c "No such file or directory" build/etc/x86_64/stage/plain/ls)" = 2
	'
else
	skip "no /etc/login.defs or /etc/apt to read"
fi

test_done
