#!/bin/sh
# The step sandbox (docs/security.md#the-step-sandbox): where none can be
# made the run fails once, saying why and what to do (exit 5), and a
# no-op run, which starts no step, does not ask; --sandbox=off (and
# TFBUILD_SANDBOX=off) is said in the output, the events and the
# provenance; `network: true` is checked and recorded; and an unprivileged
# user gets the same sandbox where user namespaces are allowed.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

cat >r.yaml <<'EOF'
schema: 1
name: r
version: 1.0.0
steps:
  - name: one
    run: echo one >"$STAGE/one"
  - name: two
    run: echo two >"$STAGE/two"
  - name: dl
    network: true
    run: echo dl >"$STAGE/dl"
wheels:
  - name: r
    version: 1.0.0
    files:
      - {from: one, src: one, dst: r}
EOF

expect_success 'no bwrap: exit 5, said once with the reason and what to do' '
	TFBUILD_BWRAP=/nonexistent expect_code 5 "$TFBUILD" recipe -k r.yaml 2>err &&
	grep "cannot run steps in a sandbox" err >said &&
	test "$(wc -l <said)" = 1 &&
	grep -qx "tfbuild: cannot run steps in a sandbox: '"'"'/nonexistent'"'"' (TFBUILD_BWRAP) cannot be run: No such file or directory; to build without a sandbox, which lets every step write anywhere you can and reach the network, give --sandbox=off or TFBUILD_SANDBOX=off (docs/security.md#the-step-sandbox)" said &&
	test ! -e wheels/SHA256SUMS
'

expect_success 'a bwrap that cannot make namespaces: exit 5, its own words quoted' '
	mkdir -p fake && printf "#!/bin/sh\necho \"bwrap: No permissions to create new namespace\" >&2\nexit 1\n" >fake/bwrap &&
	chmod +x fake/bwrap &&
	TFBUILD_BWRAP=$TRASH/fake/bwrap expect_code 5 "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "^tfbuild: cannot run steps in a sandbox: .*fake/bwrap.* failed with exit status 1: bwrap: No permissions to create new namespace (this machine or container does not allow user namespaces" err &&
	grep -q "give --sandbox=off or TFBUILD_SANDBOX=off" err
'

expect_success 'the sandbox is the default: the provenance says bubblewrap, dl has the network' '
	"$TFBUILD" --json recipe r.yaml >events 2>err &&
	grep -q "\"event\": *\"sandbox\".*\"sandbox\": *\"bubblewrap\"\|\"sandbox\": *\"bubblewrap\"" events &&
	grep -q "\"event\": *\"step-network\"" events &&
	grep -q "\"step\": *\"dl\"" events &&
	"$PYTHON" - wheels/r.intoto.json >prov <<-\EOF &&
	import json, sys
	p = json.load(open(sys.argv[1]))["predicate"]
	print(p["buildDefinition"]["internalParameters"]["sandbox"])
	for b in p["runDetails"]["byproducts"]:
	    print(b["name"], b["annotations"].get("sandbox"))
	EOF
	printf "%s\n" bubblewrap "step:x86_64:one bubblewrap" "step:x86_64:two bubblewrap" "step:x86_64:dl network" >expect &&
	compare expect prov
'

expect_success 'a no-op run starts no step, so it needs no sandbox' '
	TFBUILD_BWRAP=/nonexistent "$TFBUILD" recipe r.yaml 2>err &&
	! grep -q sandbox err
'

expect_success '--sandbox=off: a warning, an event, and the provenance say so' '
	"$TFBUILD" --json recipe --sandbox=off --force r.yaml >events 2>err &&
	grep -q "^tfbuild: warning: steps run without a sandbox (--sandbox=off): each can write wherever you can, read tfbuild'"'"'s environment and reach the network$" err &&
	grep -q "\"sandbox\": *\"off\"" events &&
	grep -q "\"event\": *\"warning\".*without a sandbox\|without a sandbox.*\"event\": *\"warning\"" events &&
	"$PYTHON" - wheels/r.intoto.json >prov <<-\EOF &&
	import json, sys
	p = json.load(open(sys.argv[1]))["predicate"]
	print(p["buildDefinition"]["internalParameters"]["sandbox"])
	print(" ".join(sorted({b["annotations"].get("sandbox") for b in p["runDetails"]["byproducts"]})))
	EOF
	printf "%s\n" off off >expect &&
	compare expect prov
'

expect_success 'TFBUILD_SANDBOX=off does the same; a bad value is a usage error' '
	TFBUILD_SANDBOX=off TFBUILD_BWRAP=/nonexistent "$TFBUILD" recipe --force r.yaml 2>err &&
	grep -q "^tfbuild: warning: steps run without a sandbox" err &&
	TFBUILD_SANDBOX=maybe expect_code 2 "$TFBUILD" recipe r.yaml 2>err &&
	grep -qx "tfbuild: TFBUILD_SANDBOX must be on or off, not '"'"'maybe'"'"'" err &&
	expect_code 2 "$TFBUILD" recipe --sandbox=maybe r.yaml 2>err &&
	grep -q "on, off" err
'

expect_success 'network: takes true or false, at its position' '
	sed "s/network: true/network: yes/" r.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" recipe bad.yaml 2>err &&
	grep -qx "tfbuild: bad.yaml:10:14: '"'"'network'"'"' must be true or false, not '"'"'yes'"'"'" err
'

nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if ! $nobody bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true 2>/dev/null; then
	skip "an unprivileged user cannot make a sandbox here (user namespaces not allowed)"
else
	# nobody must reach the recipe and the binary: the checkout may be
	# in a home directory of mode 0700 (root's), so both go to a
	# directory of their own in /tmp.
	nb=$(mktemp -d "${TMPDIR:-/tmp}/t2122-nobody.XXXXXX")
	at_exit "rm -rf '$nb'"
	expect_success 'as an unprivileged user (nobody) the sandbox holds too' '
		chmod 755 "$nb" && cp "$TFBUILD" "$nb/tfbuild" &&
		mkdir -p "$nb/r/home" && chmod 777 "$nb/r" "$nb/r/home" &&
		echo untouched >"$nb/r/outside" && chmod 666 "$nb/r/outside" &&
		sed "s|echo one >|echo pwned >$nb/r/outside \|\| true; echo one >|" r.yaml >"$nb/r/r.yaml" &&
		chmod 644 "$nb/r/r.yaml" &&
		(cd "$nb/r" && HOME=$nb/r/home $nobody "$nb/tfbuild" recipe --cache cache r.yaml) 2>err &&
		test "$(cat "$nb/r/outside")" = untouched &&
		grep -q "Read-only file system" "$nb/r/build/r/x86_64/logs/one.log" &&
		(cd "$nb/r" && HOME=$nb/r/home $nobody "$nb/tfbuild" recipe --sandbox=off --force --cache cache r.yaml) 2>err &&
		test "$(cat "$nb/r/outside")" = pwned
	'
fi

test_done
