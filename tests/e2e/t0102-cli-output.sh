#!/bin/sh
# Output for a person and for a log: --json events (one object per line,
# each parsed by Python's json.tool), GitHub Actions groups and error
# annotations at the recipe position, no escape sequences with NO_COLOR
# or --color=never, and on a terminal (through script(1)) a status line
# redrawn in place that still lets an error print in full.
. "$(dirname "$0")/../lib/test-lib.sh"

ESC=$(printf '\033')
q="'"
mkdir -p proj/src
echo "print(1)" >proj/src/m.py
tar -C proj -cf proj/src.tar src
sum=$(sha256_of proj/src.tar)
cat >proj/r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
targets: [x86_64, aarch64]
sources:
  - name: src
    url: file://\${recipe_dir}/src.tar
    sha256: $sum
    strip: 1
steps:
  - name: lib
    source: src
    run: |
      mkdir -p "\$STAGE/pkg"
      cp m.py "\$STAGE/pkg/__init__.py"
      echo "lib built for \$TARGET"
  - name: doc
    needs: [lib]
    run: "echo doc"
wheels:
  - name: r
    version: 1.0.0
    platform: any
    files:
      - {from: lib, src: pkg, dst: pkg}
EOF
cat >proj/bad.yaml <<'EOF'
schema: 1
name: bad
version: 1.0.0
steps:
  - name: lib
    rnu: "true"
EOF
cat >proj/slow.yaml <<'EOF'
schema: 1
name: slow
version: 1.0.0
steps:
  - name: slow
    run: "sleep 1"
  - name: broken
    needs: [slow]
    run: |
      echo "the compiler said: something long and important went wrong here"
      exit 3
EOF

expect_success '--json: one JSON object per line, one per step and per wheel' '
	"$TFBUILD" recipe --json --target all --out wheels proj/r.yaml >events 2>err &&
	n=0 &&
	while IFS= read -r line; do
		printf "%s\n" "$line" | /usr/bin/python3 -m json.tool >/dev/null || exit 1
		n=$((n + 1))
	done <events &&
	test $n -gt 0 &&
	test "$(grep -c "\"event\":\"step-finished\"" events)" = 4 &&
	test "$(grep -c "\"event\":\"step-started\"" events)" = 4 &&
	test "$(grep -c "\"event\":\"wheel\"" events)" = 1 &&
	test "$(grep -c "\"event\":\"source\"" events)" = 2 &&
	tail -n 1 events | grep -q "\"event\":\"done\"" &&
	grep -q "\"exit\":0" events
'

expect_success '--json events carry what the schema says' '
	/usr/bin/python3 - events <<-EOF
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	steps = [e for e in ev if e["event"] == "step-finished"]
	assert {(e["target"], e["step"]) for e in steps} == {
	    (t, s) for t in ("x86_64", "aarch64") for s in ("lib", "doc")}, steps
	assert all(e["status"] == "ok" and e["cache"] == "miss" and
	           e["seconds"] >= 0 for e in steps), steps
	(w,) = [e for e in ev if e["event"] == "wheel"]
	assert w["path"].endswith("r-1.0.0-py3-none-any.whl"), w
	import hashlib
	assert w["sha256"] == hashlib.sha256(open(w["path"], "rb").read()).hexdigest()
	src = [e for e in ev if e["event"] == "source"]
	assert all(e["url"] == "file:src.tar" and len(e["sha256"]) == 64 for e in src), src
	EOF
'

expect_success '--log-format json: a second run, every step a cache hit' '
	"$TFBUILD" recipe --log-format json --target all --out wheels proj/r.yaml >events2 2>err &&
	test "$(grep -c "\"cache\":\"hit\"" events2)" = 4 &&
	test "$(grep -c "\"event\":\"wheel\"" events2)" = 1
'

expect_success '--json: an error is an event with its position' '
	expect_code 3 "$TFBUILD" recipe proj/bad.yaml --json >events 2>err &&
	head -n 1 events | /usr/bin/python3 -c "
import json, sys
e = json.loads(sys.stdin.readline())
assert e[\"event\"] == \"error\" and e[\"file\"] == \"proj/bad.yaml\", e
assert (e[\"line\"], e[\"col\"]) == (6, 5), e
assert e[\"message\"].startswith(\"unknown key\"), e" &&
	grep -q "^tfbuild: proj/bad.yaml:6:5: unknown key" err
'

expect_success 'GITHUB_ACTIONS=true: step logs in groups' '
	rm -rf proj/build &&
	GITHUB_ACTIONS=true "$TFBUILD" recipe --out wheels proj/r.yaml >log 2>err &&
	grep -q "^::group::lib for x86_64 (done in [0-9.]*s)$" log &&
	grep -q "^lib built for x86_64$" log &&
	grep -q "^::endgroup::$" log &&
	test "$(grep -c "^::group::" log)" = "$(grep -c "^::endgroup::" log)"
'

expect_success 'GITHUB_ACTIONS=true: an error is an annotation at the recipe file and line' '
	GITHUB_ACTIONS=true expect_code 3 "$TFBUILD" recipe proj/bad.yaml >log 2>err &&
	grep -q "^::error file=proj/bad.yaml,line=6,col=5::unknown key ${q}rnu${q}" log &&
	grep -q "^tfbuild: proj/bad.yaml:6:5: unknown key ${q}rnu${q}" err
'

expect_success 'GITHUB_ACTIONS=true: a failing step: its group and an error' '
	GITHUB_ACTIONS=true expect_code 5 "$TFBUILD" recipe proj/slow.yaml >log 2>err &&
	grep -q "^::group::broken for x86_64 (failed in " log &&
	grep -q "^::error::step ${q}broken${q} for x86_64 failed" log
'

expect_success 'not on a terminal: plain lines with timings, no escape sequences' '
	rm -rf proj/build &&
	"$TFBUILD" recipe --out wheels proj/r.yaml >log 2>err &&
	grep -q "^tfbuild: lib for x86_64 done in [0-9.]*s$" err &&
	! grep -q "$ESC" err && ! grep -q "$ESC" log
'

# A terminal that can colour and redraw, whatever the suite was started
# from (a CI job's TERM=dumb, GITHUB_ACTIONS, NO_COLOR).
tty_env() { env -u NO_COLOR -u GITHUB_ACTIONS TERM=xterm "$@"; }

expect_success 'NO_COLOR and --color=never: no escape sequences, even on a terminal' '
	tty_env NO_COLOR=1 script -qec "$TFBUILD recipe proj/bad.yaml" /dev/null >tty1 2>&1;
	tty_env script -qec "$TFBUILD --color=never recipe proj/bad.yaml" /dev/null >tty2 2>&1;
	grep -q "unknown key" tty1 && grep -q "unknown key" tty2 &&
	! grep -q "$ESC" tty1 && ! grep -q "$ESC" tty2
'

expect_success '--color=always colours the messages; a terminal does too' '
	"$TFBUILD" --color=always recipe proj/bad.yaml 2>err; test $? = 3 &&
	grep -q "$ESC\[1;31mtfbuild:$ESC\[0m proj/bad.yaml:6:5: unknown key" err &&
	tty_env script -qec "$TFBUILD recipe proj/bad.yaml" /dev/null >tty 2>&1; test $? = 3 &&
	grep -q "$ESC\[1;31mtfbuild:" tty
'

expect_success 'on a terminal: a status line redrawn in place, the error in full' '
	rm -rf proj/build &&
	tty_env script -qec "$TFBUILD --color=never recipe proj/slow.yaml" /dev/null >tty 2>&1; test $? = 5 &&
	grep -q "$(printf "\r")$ESC\[K.*steps: x86_64/slow [0-9.]*s" tty &&
	grep -q "tfbuild: step ${q}broken${q} for x86_64 failed with exit status 3; last lines of its log:$(printf "\r")$" tty &&
	grep -q "^the compiler said: something long and important went wrong here" tty &&
	grep -q "^tfbuild: full log: " tty
'

expect_success 'TERM=dumb: a terminal that cannot redraw gets plain lines, no colour' '
	rm -rf proj/build &&
	env -u NO_COLOR -u GITHUB_ACTIONS TERM=dumb script -qec "$TFBUILD recipe proj/slow.yaml" /dev/null >tty 2>&1; test $? = 5 &&
	grep -q "^tfbuild: building slow for x86_64" tty &&
	! grep -q "$ESC" tty
'

test_done
