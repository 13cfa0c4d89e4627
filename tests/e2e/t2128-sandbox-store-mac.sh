#!/bin/sh
# The local store without a signing key (docs/cache.md): each action
# entry carries an HMAC under the store's own key (store/mac.key, 0600,
# made by tfbuild, hidden from every step), so an entry written by
# anything but tfbuild, as a step with its masks gone would write one,
# is refused, reported and rebuilt: the victim gets its own bytes. An
# entry without a MAC (an older tfbuild's) is a miss. With the key in
# hand the same forgery is taken: the key is what guards (the test is
# real).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

export TFBUILD_STORE=1
store=$XDG_CACHE_HOME/tfbuild/store

# A recipe NAME whose one step writes WORD into its wheel.
recipe() {
	mkdir -p "$1" &&
	cat >"$1/r.yaml" <<-EOF
	schema: 1
	name: $1
	version: 1.0.0
	steps:
	  - name: s
	    run: echo $2 >"\$STAGE/x"
	wheels:
	  - name: $1
	    version: 1.0.0
	    files:
	      - {from: s, src: x, dst: $1}
	EOF
}

# key_of OUT RECIPE: the step key of its step, from its provenance.
key_of() {
	sed -n "s/.*\"cacheKey\": \"\([0-9a-f]*\)\".*/\1/p" "$1/$2.intoto.json" | head -n 1
}

# got OUT NAME: what its wheel holds.
got() {
	"$PYTHON" -c "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode().strip())" \
		"$1/$2-1.0.0-py3-none-any.whl" "$2/x"
}

# forge HOW: the victim's entry replaced by the attacker's, its key line
# the victim's; HOW: "none" drops the MAC line, "stale" keeps the
# attacker's, "keyed" computes it with mac.key.
forge() {
	"$PYTHON" - "$store" "$vkey" "$akey" "$1" <<-\EOF
	import hashlib, hmac, os, sys
	store, vkey, akey, how = sys.argv[1:]
	text = open(f"{store}/ac/{akey[:2]}/{akey}").read()
	body, mac = text[: text.rindex("mac ")], text[text.rindex("mac "):]
	body = body.replace(f"key {akey}\n", f"key {vkey}\n")
	if how == "stale":
	    body += mac
	elif how == "keyed":
	    k = open(f"{store}/mac.key", "rb").read()
	    body += "mac " + hmac.new(k, body.encode(), hashlib.sha256).hexdigest() + "\n"
	os.makedirs(f"{store}/ac/{vkey[:2]}", exist_ok=True)
	open(f"{store}/ac/{vkey[:2]}/{vkey}", "w").write(body)
	EOF
}

expect_success 'the victim and the attacker build; the store has its key, 0600' '
	recipe victim good && recipe attacker evil &&
	"$TFBUILD" recipe --out v1 victim/r.yaml 2>err &&
	"$TFBUILD" recipe --out a1 attacker/r.yaml 2>err &&
	test "$(got v1 victim)" = good && test "$(got a1 attacker)" = evil &&
	test "$(stat -c %a "$store/mac.key")" = 600 &&
	test "$(stat -c %s "$store/mac.key")" = 32 &&
	grep -q "^mac [0-9a-f]\{64\}$" "$store"/ac/*/* &&
	vkey=$(key_of v1 victim) && akey=$(key_of a1 attacker) &&
	test -n "$vkey" && test -n "$akey" && test "$vkey" != "$akey" &&
	echo "$vkey $akey" >keys
'

expect_success 'a step cannot read the store key (it can with --sandbox=off)' '
	mkdir -p peek &&
	cat >peek/r.yaml <<-EOF &&
	schema: 1
	name: peek
	version: 1.0.0
	steps:
	  - name: s
	    run: od -An -tx1 "$store/mac.key" >"\$STAGE/k" 2>&1 || echo hidden >"\$STAGE/k"
	EOF
	"$TFBUILD" recipe --no-store --out p1 peek/r.yaml 2>err &&
	test "$(cat peek/build/r/x86_64/stage/s/k)" = hidden &&
	"$TFBUILD" recipe --no-store --force --sandbox=off --out p1 peek/r.yaml 2>err &&
	test "$(wc -w <peek/build/r/x86_64/stage/s/k)" = 32
'

expect_success 'an entry with the wrong MAC: refused, reported, rebuilt with its own bytes' '
	read vkey akey <keys &&
	forge stale &&
	expect_code 1 "$TFBUILD" cache verify 2>verr &&
	grep -q "ac/.*/$vkey: corrupt action entry: its MAC does not match the store.s key: tfbuild did not write it$" verr &&
	"$TFBUILD" recipe --out v2 --build-dir fresh2 victim/r.yaml 2>err &&
	grep -q "^tfbuild: warning: local store .*: the entry of key $(echo $vkey | cut -c1-12)\.\.\. is corrupt (its MAC does not match the store.s key: tfbuild did not write it); removed it, the step builds$" err &&
	grep -q "^tfbuild: 1 of 1 steps ran" err &&
	test "$(got v2 victim)" = good &&
	"$TFBUILD" cache verify
'

expect_success 'an entry without a MAC (an older tfbuild'"'"'s) is a miss: rebuilt, quietly' '
	read vkey akey <keys &&
	forge none &&
	"$TFBUILD" recipe --out v3 --build-dir fresh3 victim/r.yaml 2>err &&
	! grep -q warning err &&
	grep -q "^tfbuild: 1 of 1 steps ran" err &&
	test "$(got v3 victim)" = good &&
	grep -q "^mac " "$store/ac/$(echo $vkey | cut -c1-2)/$vkey"
'

expect_success 'with the store key the same forgery is taken: the key is what guards' '
	read vkey akey <keys &&
	forge keyed &&
	"$TFBUILD" recipe --out v4 --build-dir fresh4 victim/r.yaml 2>err &&
	grep -q "^tfbuild: 0 of 1 steps ran" err &&
	test "$(got v4 victim)" = evil
'

expect_success 'a store key others may read is refused' '
	chmod 644 "$store/mac.key" &&
	expect_code 2 "$TFBUILD" recipe --out v5 --build-dir fresh5 victim/r.yaml 2>err &&
	grep -q "^tfbuild: .*/store/mac.key.* is not a store key (32 bytes, mode 0600): remove it" err &&
	chmod 600 "$store/mac.key"
'

test_done
