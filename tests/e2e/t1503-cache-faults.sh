#!/bin/sh
# A remote cache that lies or fails never fails or poisons a run: a
# tampered archive, an unsigned entry, one signed by a key not trusted
# or whose signature does not verify, a server answering 500, one that
# stalls (bounded by --remote-cache-timeout) and one that is down are
# each reported once, naming the URL without its credentials and why;
# the steps build locally, the run succeeds, and nothing unverified is
# used or kept in the local store.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/cache.sh"

mkdir -p proj/liba
echo 'int a(void) { return 1; }' >proj/liba/a.c
cat >proj/r.yaml <<'EOF'
schema: 1
name: ft
version: 1.0.0
sources:
  - {name: liba, path: liba}
steps:
  - name: a
    source: liba
    run: $CC $CFLAGS -shared -o "$STAGE/liba.so" a.c
  - name: pkg
    needs: [a]
    run: |
      mkdir -p "$STAGE/ft" && cp ${stage.a}/liba.so "$STAGE/ft/"
      echo "# ft" >"$STAGE/ft/__init__.py"
wheels:
  - name: ft
    version: 1.0.0
    files:
      - {from: pkg, src: ft, dst: .}
EOF
wheel=ft-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
start_dav "$TRASH/dav" || exit 1
start_httpd "$TRASH/dav" || exit 1
# run NAME URL [OPTIONS]: a fresh build tree and local store, reading URL.
run() {
	n=$1 url=$2; shift 2
	TFBUILD_STORE=1 "$TFBUILD" recipe --out out$n --build-dir b$n --cache c$n \
		--remote-cache "$url" --trust ci.pub "$@" proj/r.yaml
}
# faulty PATTERN: the last run built both steps, warned exactly once
# with PATTERN, kept only its own unsigned entries, and the wheel is the
# good one.
faulty() {
	grep -q "^tfbuild: 2 of 2 steps ran" err &&
	test "$(grep -c warning err)" = 1 &&
	grep "^tfbuild: warning: remote cache $1; not using it for the rest of this run, steps build locally$" err &&
	! grep -q restored err &&
	TFBUILD_STORE=1 "$TFBUILD" cache verify --cache c$n &&
	test "$(cat c$n/store/ac/*/* | grep -c "^signer -$")" = 2 &&
	cmp good/$wheel out$n/$wheel
}

expect_success 'setup: keys, a good build uploaded, copies to spoil' '
	"$TFBUILD" cache keygen ci >/dev/null && "$TFBUILD" cache keygen rogue >/dev/null &&
	TFBUILD_STORE=1 "$TFBUILD" recipe --out good --build-dir b0 --cache c0 \
		--remote-cache "$DAV_URL/good" --remote-cache-upload \
		--signing-key ci.key proj/r.yaml 2>err >/dev/null &&
	test "$(ls dav/good/ac | wc -l)" = 2 &&
	for d in tampered unsigned forged; do cp -r dav/good dav/$d || exit 1; done
'

expect_success 'a sound remote cache is used' '
	run good "$DAV_URL/good" 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 2 steps ran" err && ! grep -q warning err
'

expect_success 'with --no-store it is used and nothing is kept' '
	run nostore "$DAV_URL/good" --no-store 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 2 steps ran" err && ! grep -q warning err &&
	cmp good/$wheel outnostore/$wheel &&
	test -z "$(find cnostore/store -type f)"
'

expect_success 'a tampered archive' '
	"$PYTHON" - dav/tampered/cas/* <<-\EOF &&
	import sys
	for p in sys.argv[1:]:
	    b = bytearray(open(p, "rb").read())
	    b[600] ^= 1
	    open(p, "wb").write(b)
	EOF
	run tampered "$DAV_URL/tampered" 2>err >/dev/null &&
	faulty "$DAV_URL/tampered: GET cas/[0-9a-f]\{64\}: its bytes hash to [0-9a-f]\{64\}"
'

expect_success 'an unsigned action entry' '
	for f in dav/unsigned/ac/*; do
		sed -i "s/^signer .*/signer -/; s/^signature .*/signature -/" "$f" || exit 1
	done &&
	run unsigned "$DAV_URL/unsigned" 2>err >/dev/null &&
	faulty "$DAV_URL/unsigned: ac/[0-9a-f]\{64\}: it is not signed"
'

expect_success 'an entry whose signature does not verify' '
	for f in dav/forged/ac/*; do
		sed -i "s/^size \([0-9]*\)/size 1\1/" "$f" || exit 1
	done &&
	run forged "$DAV_URL/forged" 2>err >/dev/null &&
	faulty "$DAV_URL/forged: ac/[0-9a-f]\{64\}: its signature by key [0-9a-f]\{16\} does not verify"
'

expect_success 'an entry signed by a key that is not trusted' '
	TFBUILD_STORE=1 "$TFBUILD" recipe --out rogue --build-dir br --cache cr \
		--remote-cache "$DAV_URL/rogue" --remote-cache-upload \
		--signing-key rogue.key proj/r.yaml 2>err >/dev/null &&
	run rogue "$DAV_URL/rogue" 2>err >/dev/null &&
	faulty "$DAV_URL/rogue: ac/[0-9a-f]\{64\}: signed by key [0-9a-f]\{16\}, which is not trusted"
'

expect_success 'a server that answers 500' '
	run 500 "$HTTP_URL/status/500/good" 2>err >/dev/null &&
	faulty "$HTTP_URL/status/500/good: GET ac/[0-9a-f]\{64\}: HTTP 500"
'

expect_success 'a server that stalls, for --remote-cache-timeout' '
	run stall "$HTTP_URL/stall/good" --remote-cache-timeout 2 2>err >/dev/null &&
	faulty "$HTTP_URL/stall/good: GET ac/[0-9a-f]\{64\}: .*the last 2 seconds"
'

expect_success 'a server that is down; credentials in the URL are never shown' '
	port=$(closed_port) &&
	run down "http://user:s3cret@127.0.0.1:$port/cache" 2>err >/dev/null &&
	faulty "http://127.0.0.1:$port/cache: GET ac/[0-9a-f]\{64\}: .*" &&
	! grep -r s3cret err out$n
'

expect_success 'the same settings from the config file and the environment' '
	mkdir -p home/.config/tfbuild &&
	printf "# team cache\nremote-cache = %s\ntrust = %s\n" "$DAV_URL/good" "$TRASH/ci.pub" \
		>home/.config/tfbuild/config &&
	TFBUILD_STORE=1 "$TFBUILD" recipe --out outc --build-dir bc --cache cc proj/r.yaml 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 2 steps ran" err &&
	TFBUILD_STORE=1 TFBUILD_REMOTE_CACHE="$DAV_URL/unsigned" "$TFBUILD" recipe \
		--out oute --build-dir be --cache ce proj/r.yaml 2>err >/dev/null &&
	grep -q "^tfbuild: warning: remote cache $DAV_URL/unsigned: " err &&
	printf "remote-cach = x\n" >home/.config/tfbuild/config &&
	expect_code 2 "$TFBUILD" recipe proj/r.yaml 2>err &&
	grep -q "^tfbuild: $TRASH/home/.config/tfbuild/config:1: unknown setting .remote-cach." err &&
	rm home/.config/tfbuild/config
'

expect_success 'an upload without a signing key, a remote without trust: usage errors' '
	expect_code 2 "$TFBUILD" recipe --remote-cache "$DAV_URL/x" --remote-cache-upload \
		--trust ci.pub proj/r.yaml 2>err &&
	grep -q "needs --signing-key" err &&
	expect_code 2 "$TFBUILD" recipe --remote-cache "$DAV_URL/x" proj/r.yaml 2>err &&
	grep -q "needs --trust KEYFILE" err &&
	expect_code 2 "$TFBUILD" recipe --remote-cache "$DAV_URL/x" --trust proj/r.yaml \
		proj/r.yaml 2>err &&
	grep -q "^tfbuild: proj/r.yaml:1: not a public key" err
'

test_done
