#!/bin/sh
# A step that truly needs a capability asks for it by name (issue 35,
# item 1): `capabilities: [CAP_SYS_CHROOT]` gives it that one, in its own
# user namespace, and the run says so at its place in the recipe; the
# same step without it cannot chroot. A name the kernel does not have,
# one that would undo the sandbox (CAP_SYS_ADMIN) and a non-list are
# refused at their position before anything runs; where steps run
# without a user namespace of their own, a step asking for one is
# refused rather than given the machine's. As root, --sandbox=off lets
# the step without the key chroot too: the sandbox is what took it. The
# run's provenance names the capability beside the step's sandbox.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

cat >r.yaml <<'EOF'
schema: 1
name: r
version: 1.0.0
steps:
  - name: plain
    run: |
      grep '^CapEff:' /proc/self/status >"$STAGE/caps"
      if chroot / true 2>/dev/null; then echo did >"$STAGE/chroot"; else echo refused >"$STAGE/chroot"; fi
  - name: chrooter
    capabilities: [CAP_SYS_CHROOT]
    run: |
      grep '^CapEff:' /proc/self/status >"$STAGE/caps"
      chroot / true && echo did >"$STAGE/chroot"
EOF
S=build/r/x86_64/stage

expect_success 'the step that asks for CAP_SYS_CHROOT has it, and only it; the other has none' '
	"$TFBUILD" recipe r.yaml 2>err &&
	grep -qx "CapEff:	0000000000040000" $S/chrooter/caps &&
	grep -qx did $S/chrooter/chroot &&
	grep -qx "CapEff:	0000000000000000" $S/plain/caps &&
	grep -qx refused $S/plain/chroot
'

expect_success 'the run says it, at its place in the recipe, and in --json' '
	grep -qx "tfbuild: step '"'"'chrooter'"'"' for x86_64 has CAP_SYS_CHROOT in its own user namespace (capabilities at r.yaml:10:20)" err &&
	test "$(grep -c "in its own user namespace" err)" = 1 &&
	"$TFBUILD" --json recipe --force r.yaml >events 2>err &&
	grep -q "\"event\": *\"step-capability\"" events &&
	grep -q "\"capability\": *\"CAP_SYS_CHROOT\"" events
'

expect_success 'the provenance names the capability of the step given it, and no other' '
	"$PYTHON" - wheels/r.intoto.json >prov <<-\EOF &&
	import json, sys
	p = json.load(open(sys.argv[1]))["predicate"]
	for b in p["runDetails"]["byproducts"]:
	    a = b["annotations"]
	    print(b["name"], a.get("sandbox"), " ".join(a.get("capabilities", ["-"])))
	EOF
	printf "%s\n" "step:x86_64:plain bubblewrap -" "step:x86_64:chrooter bubblewrap CAP_SYS_CHROOT" >expect &&
	compare expect prov
'

expect_success 'an unknown name, CAP_SYS_ADMIN and a scalar are refused at their position (exit 3)' '
	sed "s/\[CAP_SYS_CHROOT\]/[CAP_SYS_CHROOTX, CAP_SYS_ADMIN]/" r.yaml >bad.yaml &&
	rm -rf build &&
	expect_code 3 "$TFBUILD" recipe bad.yaml 2>err &&
	grep -qx "tfbuild: bad.yaml:10:20: unknown capability '"'"'CAP_SYS_CHROOTX'"'"' in '"'"'capabilities'"'"' (a name such as CAP_SYS_CHROOT: capabilities(7))" err &&
	grep -q "^tfbuild: bad.yaml:10:37: '"'"'capabilities'"'"' may not name '"'"'CAP_SYS_ADMIN'"'"': it would let the step unmount what hides the secrets" err &&
	test ! -e build &&
	sed "s/\[CAP_SYS_CHROOT\]/CAP_SYS_CHROOT/" r.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" recipe bad.yaml 2>err &&
	grep -qx "tfbuild: bad.yaml:10:19: '"'"'capabilities'"'"' must be a list of strings, not a scalar" err
'

expect_success 'without a user namespace of its own, a step asking for one is refused (exit 5)' '
	bw=$(command -v bwrap) &&
	mkdir -p nouserns &&
	printf "#!/bin/sh\nfor a; do [ \"\$a\" = --unshare-user ] && { echo \"bwrap: No permissions to create new namespace\" >&2; exit 1; }; done\nexec %s \"\$@\"\n" "$bw" >nouserns/bwrap &&
	chmod +x nouserns/bwrap &&
	TFBUILD_BWRAP=$TRASH/nouserns/bwrap expect_code 5 "$TFBUILD" recipe -k --force r.yaml 2>err &&
	grep -q "^tfbuild: r.yaml:10:20: step '"'"'chrooter'"'"' for x86_64 asks for CAP_SYS_CHROOT, but steps here run without a user namespace of their own" err &&
	test ! -e $S/chrooter/caps &&
	grep -qx refused $S/plain/chroot
'

if [ "$(id -u)" != 0 ]; then
	skip "not root: --sandbox=off cannot show what root can do"
else
	expect_success '--sandbox=off, as root: the step without the key chroots too' '
		"$TFBUILD" recipe --sandbox=off --force r.yaml 2>err &&
		grep -qx did $S/plain/chroot &&
		! grep -qx "CapEff:	0000000000000000" $S/plain/caps
	'
fi

nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" != 0 ] || ! $nobody bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true 2>/dev/null; then
	skip "not root, or an unprivileged user cannot make a sandbox here"
else
	# nobody must reach the recipe and the binary (t2122 does the same)
	nb=$(mktemp -d "${TMPDIR:-/tmp}/t2129-nobody.XXXXXX")
	at_exit "rm -rf '$nb'"
	expect_success 'as an unprivileged user (nobody): the capability, in its namespace only' '
		chmod 755 "$nb" && cp "$TFBUILD" "$nb/tfbuild" &&
		mkdir -p "$nb/r/home" && chmod 777 "$nb/r" "$nb/r/home" &&
		cp r.yaml "$nb/r/r.yaml" && chmod 644 "$nb/r/r.yaml" &&
		(cd "$nb/r" && HOME=$nb/r/home $nobody "$nb/tfbuild" recipe --cache cache r.yaml) 2>err &&
		grep -qx did "$nb/r/$S/chrooter/chroot" &&
		grep -qx refused "$nb/r/$S/plain/chroot"
	'
fi

test_done
