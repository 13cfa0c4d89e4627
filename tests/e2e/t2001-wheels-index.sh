#!/bin/sh
# Framework wheels from the package index (issue 25, point 1): a real
# pypiserver on 127.0.0.1 serves small wheels this script makes, for
# x86_64 and aarch64 and a pure one; pip (the user's client) is pointed
# at it with PIP_INDEX_URL. `tfbuild lock` pins the wheel that fits each
# target, the recipe compiles against ${target_site}, a second run does
# nothing, an offline run works from the cache, and tampered, hostile,
# unpinned or misspelt inputs are refused where they are.
. "$(dirname "$0")/../lib/test-lib.sh"

TOOLS=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
if ! [ -x "$TOOLS/pypi-server" ]; then
	skip "no pypi-server in $TOOLS (make deps installs it)"
	test_done
	exit 0
fi
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL TFBUILD_PIP_PYTHON
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null
mkwheel() { "$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx "$@" >/dev/null; }

mkdir idx &&
mkwheel fwk 1.0 cp311-cp311-manylinux_2_17_x86_64 'fwk/include/fwk.h=#define FWK 17' &&
mkwheel fwk 1.0 cp311-cp311-manylinux_2_28_x86_64 'fwk/include/fwk.h=#define FWK 28' \
	'data:fwk/bin/tool=echo tool:x' &&
mkwheel fwk 1.0 cp311-cp311-manylinux_2_39_x86_64 'fwk/include/fwk.h=#define FWK 39' &&
mkwheel fwk 1.0 cp312-cp312-manylinux_2_17_x86_64 'fwk/include/fwk.h=#define FWK 312' &&
mkwheel fwk 1.0 cp311-cp311-manylinux_2_17_aarch64 'fwk/include/fwk.h=#define FWK 64' &&
mkwheel fwk 1.0 py3-none-any 'fwk/include/fwk.h=#define FWK 0' &&
mkwheel fwk 2.0 cp311-cp311-manylinux_2_17_x86_64 'fwk/include/fwk.h=#define FWK 20' &&
mkwheel hdr 0.1 py3-none-any 'hdr/hdr.h=#define HDR 1' &&
mkwheel evil-dots 1.0 py3-none-any '../escape=x' &&
mkwheel evil-abs 1.0 py3-none-any '/tmp/tfbuild-t2001-abs=x' &&
mkwheel evil-link 1.0 py3-none-any 'evil/link@/etc/passwd' || exit 1

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
pypi() { exec "$TOOLS/pypi-server" run -i 127.0.0.1 -p "$PORT" --backend simple-dir idx; }
start_server pypi.log simple/ pypi || exit 1
port=$PORT
INDEX=http://127.0.0.1:$port/simple/
# No index at all: a closed port.
NOINDEX=http://127.0.0.1:$(free_port)/simple/

cat >fw.yaml <<'EOF_R'
schema: 1
name: fw
version: "1.0"
targets: [x86_64, aarch64]
target-wheels:
  x86_64: ["fwk==1.0", "hdr==0.1"]
  aarch64: ["fwk==1.0", "hdr==0.1"]
steps:
  - name: use
    run: |
      printf '#include <fwk/include/fwk.h>\n#include <hdr/hdr.h>\nint v = FWK + HDR;\n' >u.c
      $CC -I${target_site} -c u.c -o $STAGE/u.o
      grep -h '#define' ${target_site}/fwk/include/fwk.h >$STAGE/which
EOF_R

expect_success 'lock pins, per target, the most specific wheel that fits' '
	PIP_INDEX_URL=$INDEX "$TFBUILD" lock fw.yaml >out 2>err &&
	cat >expect <<-EOF &&
	x86_64 fwk==1.0: pinned fwk-1.0-cp311-cp311-manylinux_2_28_x86_64.whl (sha256 $(sha256_of idx/fwk-1.0-cp311-cp311-manylinux_2_28_x86_64.whl))
	x86_64 hdr==0.1: pinned hdr-0.1-py3-none-any.whl (sha256 $(sha256_of idx/hdr-0.1-py3-none-any.whl))
	aarch64 fwk==1.0: pinned fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl (sha256 $(sha256_of idx/fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl))
	aarch64 hdr==0.1: pinned hdr-0.1-py3-none-any.whl (sha256 $(sha256_of idx/hdr-0.1-py3-none-any.whl))
	EOF
	compare expect out &&
	"$PYTHON" -c "
import json
d = json.load(open(\"fw.lock.json\"))
assert d[\"version\"] == 1
for p in d[\"pins\"]:
    print(p[\"target\"], p[\"requirement\"], p[\"file\"])
" >pins &&
	cat >expect <<-EOF &&
	aarch64 fwk==1.0 fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl
	aarch64 hdr==0.1 hdr-0.1-py3-none-any.whl
	x86_64 fwk==1.0 fwk-1.0-cp311-cp311-manylinux_2_28_x86_64.whl
	x86_64 hdr==0.1 hdr-0.1-py3-none-any.whl
	EOF
	compare expect pins &&
	! grep -q "127.0.0.1" fw.lock.json
'

expect_success 'lock again keeps every pin and writes the same bytes' '
	cp fw.lock.json lock.before &&
	PIP_INDEX_URL=$NOINDEX "$TFBUILD" lock fw.yaml >out 2>err &&
	grep -c ": kept " out >n && echo 4 >expect && compare expect n &&
	cmp lock.before fw.lock.json
'

expect_success 'the recipe compiles against each target'"'"'s ${target_site}' '
	PIP_INDEX_URL=$INDEX "$TFBUILD" recipe --target all fw.yaml >log 2>&1 &&
	echo "#define FWK 28" >expect && compare expect build/fw/x86_64/stage/use/which &&
	echo "#define FWK 64" >expect && compare expect build/fw/aarch64/stage/use/which &&
	file build/fw/aarch64/stage/use/u.o | grep -q "ARM aarch64" &&
	file build/fw/x86_64/stage/use/u.o | grep -q "x86-64" &&
	site=$(ls -d home/.cache/tfbuild/target-sites/x86_64-*) &&
	test -x $site/fwk/bin/tool && test ! -x $site/fwk/include/fwk.h &&
	test ! -e $site/fwk-1.0.data &&
	test "$(stat -c %Y $site/fwk/include/fwk.h)" = 315532800 &&
	test -f home/.cache/tfbuild/sha256/$(sha256_of idx/hdr-0.1-py3-none-any.whl)
'

expect_success 'a second run runs nothing, and asks no index' '
	PIP_INDEX_URL=$NOINDEX "$TFBUILD" recipe --target all fw.yaml >log 2>&1 &&
	grep -q "0 of 2 steps ran, 2 up to date" log &&
	! grep -q "pip" log
'

expect_success 'the provenance lists the pinned wheels as inputs, with their digests' '
	"$PYTHON" -c "
import json
d = json.load(open(\"wheels/fw.intoto.json\"))
for x in d[\"predicate\"][\"buildDefinition\"][\"resolvedDependencies\"]:
    if x[\"name\"].startswith(\"target-wheel:\"):
        print(x[\"name\"], x[\"uri\"], x[\"digest\"][\"sha256\"])
" >deps &&
	cat >expect <<-EOF &&
	target-wheel:x86_64:fwk==1.0 file:fwk-1.0-cp311-cp311-manylinux_2_28_x86_64.whl $(sha256_of idx/fwk-1.0-cp311-cp311-manylinux_2_28_x86_64.whl)
	target-wheel:x86_64:hdr==0.1 file:hdr-0.1-py3-none-any.whl $(sha256_of idx/hdr-0.1-py3-none-any.whl)
	target-wheel:aarch64:fwk==1.0 file:fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl $(sha256_of idx/fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl)
	target-wheel:aarch64:hdr==0.1 file:hdr-0.1-py3-none-any.whl $(sha256_of idx/hdr-0.1-py3-none-any.whl)
	EOF
	compare expect deps
'

expect_success 'offline: a new build tree and site come from the cache, with no index' '
	rm -rf build home/.cache/tfbuild/target-sites &&
	PIP_INDEX_URL=$NOINDEX "$TFBUILD" recipe --target all --offline fw.yaml >log 2>&1 &&
	grep -q "2 of 2 steps ran" log && ! grep -q "pip" log &&
	echo "#define FWK 28" >expect && compare expect build/fw/x86_64/stage/use/which
'

expect_success 'a pin missing for a target is a recipe error naming tfbuild lock' '
	sed "s/aarch64: \[\"fwk==1.0\", \"hdr==0.1\"\]/aarch64: [\"fwk==1.0\", \"hdr==0.2\"]/" fw.yaml >sub.yaml &&
	cp fw.lock.json sub.lock.json &&
	expect_code 3 "$TFBUILD" recipe --target aarch64 sub.yaml 2>err &&
	echo "tfbuild: sub.yaml:7:25: target wheel '"'"'hdr==0.2'"'"' has no pin for target aarch64 in sub.lock.json; run '"'"'tfbuild lock sub.yaml'"'"'" >expect &&
	compare expect err &&
	expect_code 3 "$TFBUILD" explain --target aarch64 sub.yaml 2>err &&
	compare expect err &&
	expect_code 3 "$TFBUILD" fetch --target aarch64 sub.yaml 2>err &&
	compare expect err
'

expect_success 'a requirement that is not NAME==VERSION is refused at FILE:LINE:COL' '
	sed "s/x86_64: \[\"fwk==1.0\"/x86_64: [\"fwk>=1.0\"/" fw.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" lock bad.yaml 2>err &&
	echo "tfbuild: bad.yaml:6:12: target wheel '"'"'fwk>=1.0'"'"': want an exact NAME==VERSION (as '"'"'tensorflow-cpu==2.21.0'"'"')" >expect &&
	compare expect err &&
	sed "s/x86_64: \[\"fwk==1.0\"/x86_64: [\"fwk==1.*\"/" fw.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" recipe bad.yaml 2>err &&
	grep -qF "tfbuild: bad.yaml:6:12: target wheel '"'"'fwk==1.*'"'"': '"'"'1.*'"'"' is not an exact PEP 440 version" err
'

expect_success 'a changed requirement is pinned again, its old pin dropped, the step rebuilt' '
	sed "s/x86_64: \[\"fwk==1.0\"/x86_64: [\"fwk==2.0\"/" fw.yaml >fw2.yaml && mv fw2.yaml fw.yaml &&
	PIP_INDEX_URL=$INDEX "$TFBUILD" lock fw.yaml >out 2>err &&
	grep -q "^x86_64 fwk==2.0: pinned fwk-2.0-cp311-cp311-manylinux_2_17_x86_64.whl" out &&
	grep -c ": kept " out >n && echo 3 >expect && compare expect n &&
	! grep -q "fwk-1.0-cp311-cp311-manylinux_2_28" fw.lock.json &&
	"$TFBUILD" explain --target all fw.yaml >out &&
	grep -q "^x86_64 use: will run" out && grep -q "^aarch64 use: up to date" out &&
	PIP_INDEX_URL=$INDEX "$TFBUILD" recipe --target all fw.yaml >log 2>&1 &&
	echo "#define FWK 20" >expect && compare expect build/fw/x86_64/stage/use/which
'

expect_success 'lock keeps a pin when the index has a better wheel; --upgrade takes it' '
	mkwheel fwk 1.0 cp311-cp311-manylinux_2_31_aarch64 "fwk/include/fwk.h=#define FWK 31" &&
	PIP_INDEX_URL=$INDEX "$TFBUILD" lock --target aarch64 fw.yaml >out 2>err &&
	grep -q "^aarch64 fwk==1.0: kept fwk-1.0-cp311-cp311-manylinux_2_17_aarch64.whl" out &&
	PIP_INDEX_URL=$INDEX "$TFBUILD" lock --target aarch64 --upgrade fw.yaml >out 2>err &&
	grep -q "^aarch64 fwk==1.0: pinned fwk-1.0-cp311-cp311-manylinux_2_31_aarch64.whl" out &&
	grep -q "fwk-2.0-cp311-cp311-manylinux_2_17_x86_64.whl" fw.lock.json
'

expect_success '--index-url is the index pip reads' '
	cp fw.lock.json lock.before &&
	expect_code 4 env PIP_INDEX_URL=$NOINDEX "$TFBUILD" lock --upgrade --target x86_64 fw.yaml >out 2>err &&
	cmp lock.before fw.lock.json &&
	PIP_INDEX_URL=$NOINDEX "$TFBUILD" lock --upgrade --target x86_64 --index-url "$INDEX" fw.yaml >out 2>err &&
	grep -q "^x86_64 fwk==2.0: pinned " out
'

expect_success 'a wheel on the index with other bytes than the pin is refused, naming both digests' '
	good=$(sha256_of idx/hdr-0.1-py3-none-any.whl) &&
	mv idx/hdr-0.1-py3-none-any.whl hdr.good &&
	mkwheel hdr 0.1 py3-none-any "hdr/hdr.h=#define HDR 666" &&
	bad=$(sha256_of idx/hdr-0.1-py3-none-any.whl) &&
	expect_code 4 env PIP_INDEX_URL=$INDEX "$TFBUILD" recipe --cache other-cache --target x86_64 fw.yaml >log 2>&1 &&
	echo "tfbuild: target x86_64: wheel '"'"'hdr==0.1'"'"': the index'"'"'s '"'"'hdr-0.1-py3-none-any.whl'"'"' has sha256 $bad, but $good is pinned; refused" >expect &&
	grep "refused" log >actual && compare expect actual &&
	test ! -e other-cache/sha256/$bad &&
	mv hdr.good idx/hdr-0.1-py3-none-any.whl
'

for evil in dots abs link; do
	case $evil in
	dots) member="'../escape' is a path with '..'" ;;
	abs) member="'/tmp/tfbuild-t2001-abs' is an absolute path" ;;
	link) member="'evil/link' is a link or a special file" ;;
	esac
	expect_success "a wheel member that escapes ($evil) is refused, naming wheel and member" '
		mkdir -p $evil && cat >$evil/r.yaml <<-EOF &&
		schema: 1
		name: $evil
		version: "1.0"
		target-wheels: ["evil-$evil==1.0"]
		steps:
		  - {name: s, run: "true"}
		EOF
		PIP_INDEX_URL=$INDEX "$TFBUILD" lock $evil/r.yaml >out 2>err &&
		expect_code 5 env PIP_INDEX_URL=$INDEX "$TFBUILD" recipe $evil/r.yaml >log 2>&1 &&
		grep -qF "tfbuild: wheel '"'"'evil_$evil-1.0-py3-none-any.whl'"'"': member $member; refused" log &&
		test ! -e /tmp/tfbuild-t2001-abs && test ! -e home/.cache/tfbuild/escape &&
		test ! -e home/.cache/tfbuild/target-sites/escape &&
		! ls -a home/.cache/tfbuild/target-sites | grep "^\.site"
	'
done

test_done
