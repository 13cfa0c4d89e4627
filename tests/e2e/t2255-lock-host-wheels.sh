#!/bin/sh
# `host-wheels` (issue 38's aarch64 part): wheels of the build machine's
# tools, pinned by `tfbuild lock` once for its platform (the target
# host-ARCH in the lock, beside the targets' pins), unpacked into
# ${host_site} and shared by every target of a run, read-only in the
# step (with --sandbox=off the same step writes there). A real
# pypiserver on 127.0.0.1 serves a stand-in tool for x86_64 and for
# aarch64: both targets' steps run the build machine's. Refused
# at FILE:LINE:COL: a requirement that is not exact, a mapping, one
# listed twice, one without a pin; `explain` writes nothing, and names
# host-wheels when a host pin changes.
. "$(dirname "$0")/../lib/test-lib.sh"

TOOLS=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
if ! [ -x "$TOOLS/pypi-server" ]; then
	skip "no pypi-server in $TOOLS (make deps installs it)"
	test_done
	exit 0
fi
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL TFBUILD_PIP_PYTHON
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null
SQ="'"
arch=$(uname -m)
case $arch in
x86_64) other=aarch64 ;;
aarch64) other=x86_64 ;;
*) skip "the build machine is $arch"; test_done; exit 0 ;;
esac

mkdir idx &&
for a in x86_64 aarch64; do
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx tool 1.0 "py3-none-manylinux_2_17_$a" \
		"tool/bin/run=echo tool for $a:x" >/dev/null || exit 1
done
"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx hdr 0.1 py3-none-any 'hdr/hdr.h=#define HDR 1' >/dev/null || exit 1
"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx aux 0.1 py3-none-any 'aux/aux.txt=aux' >/dev/null || exit 1
pypi() { exec "$TOOLS/pypi-server" run -i 127.0.0.1 -p "$PORT" --backend simple-dir idx; }
start_server pypi.log simple/ pypi || exit 1
export PIP_INDEX_URL=http://127.0.0.1:$PORT/simple/

# recipe HOST-WHEELS: hw.yaml, `host-wheels: HOST-WHEELS` on line 5.
recipe() {
	cat >hw.yaml <<EOF
schema: 1
name: hw
version: "1.0"
targets: [x86_64, aarch64]
host-wheels: $1
target-wheels: ["hdr==0.1"]
steps:
  - name: s
    run: |
      \${host_site}/tool/bin/run >\$STAGE/ran
      echo "\${host_site}" >\$STAGE/site
      if touch \${host_site}/w 2>/dev/null; then echo writable; else echo read-only; fi >\$STAGE/ro
      test -f \${target_site}/hdr/hdr.h
EOF
}

expect_success 'lock pins the host wheel once, for the build machine, beside the targets'"$SQ"' pins' '
	recipe "[\"tool==1.0\"]" &&
	"$TFBUILD" lock hw.yaml >out 2>err &&
	grep -x "host-$arch tool==1.0: pinned tool-1.0-py3-none-manylinux_2_17_$arch.whl (sha256 [0-9a-f]*)" out &&
	grep -qx "tfbuild: target host-$arch: wheel ${SQ}tool==1.0${SQ}: downloading with pip" err &&
	test "$(grep -c "tool==1.0" out)" = 1 &&
	grep -q "^$arch hdr==0.1: pinned" out && grep -q "^$other hdr==0.1: pinned" out &&
	test "$(grep -c "\"target\": \"host-$arch\"" hw.lock.json)" = 1 &&
	grep -q "\"file\": \"tool-1.0-py3-none-manylinux_2_17_$arch.whl\"" hw.lock.json &&
	! grep -q "manylinux_2_17_$other" hw.lock.json &&
	"$TFBUILD" lock hw.yaml >out 2>err &&
	grep -qx "host-$arch tool==1.0: kept tool-1.0-py3-none-manylinux_2_17_$arch.whl" out
'

expect_success 'explain writes nothing' '
	mkdir ex && cp hw.yaml hw.lock.json ex/ &&
	"$TFBUILD" explain --target all ex/hw.yaml >out 2>err &&
	grep -q "^$other s: will run (never built)$" out &&
	test "$(ls ex)" = "$(printf "hw.lock.json\nhw.yaml\n")" &&
	cmp hw.lock.json ex/hw.lock.json
'

expect_success 'both targets run the build machine'"$SQ"'s tool from one ${host_site}, read-only' '
	"$TFBUILD" recipe --target all hw.yaml >log 2>&1 &&
	for t in x86_64 aarch64; do
		echo "tool for $arch" | compare - build/hw/$t/stage/s/ran &&
		echo read-only | compare - build/hw/$t/stage/s/ro || return 1
	done &&
	compare build/hw/x86_64/stage/s/site build/hw/aarch64/stage/s/site &&
	grep -q "/target-sites/host-$arch-[0-9a-f]*$" build/hw/x86_64/stage/s/site &&
	test ! -e "$(cat build/hw/x86_64/stage/s/site)/w" &&
	"$TFBUILD" recipe --target all hw.yaml >log 2>&1 &&
	grep -q "^tfbuild: 0 of 2 steps ran, 2 up to date$" log
'

expect_success '--sandbox=off: the same step writes into ${host_site} (what the sandbox stops)' '
	site=$(cat build/hw/x86_64/stage/s/site) &&
	"$TFBUILD" recipe --sandbox=off --force --target x86_64 hw.yaml >log 2>&1 &&
	echo writable | compare - build/hw/x86_64/stage/s/ro &&
	test -e "$site/w" &&
	rm -f "$site/w" &&
	"$TFBUILD" recipe --force --target x86_64 hw.yaml >log 2>&1 &&
	echo read-only | compare - build/hw/x86_64/stage/s/ro
'

expect_success 'a new host pin reruns the steps of every target; explain says why' '
	recipe "[\"tool==1.0\", \"aux==0.1\"]" &&
	"$TFBUILD" lock hw.yaml >out 2>err &&
	grep -qx "host-$arch aux==0.1: pinned aux-0.1-py3-none-any.whl (sha256 [0-9a-f]*)" out &&
	"$TFBUILD" explain --target all hw.yaml >out 2>err &&
	grep -q "^x86_64 s: will run (.*host-wheels changed" out &&
	grep -q "^aarch64 s: will run (.*host-wheels changed" out
'

expect_success 'a requirement that is not exact is refused at its place, by lock too' '
	recipe "[\"tool>=1.0\"]" &&
	expect_code 3 "$TFBUILD" recipe hw.yaml >log 2>err &&
	echo "tfbuild: hw.yaml:5:15: host wheel ${SQ}tool>=1.0${SQ}: want an exact NAME==VERSION (as ${SQ}tensorflow-cpu==2.21.0${SQ})" >expect &&
	compare expect err &&
	expect_code 3 "$TFBUILD" lock hw.yaml >log 2>err &&
	compare expect err
'

expect_success 'a mapping, or a wheel listed twice, is refused at its place' '
	recipe "{x86_64: [\"tool==1.0\"]}" &&
	expect_code 3 "$TFBUILD" recipe hw.yaml >log 2>err &&
	grep -qF "hw.yaml:5:14: ${SQ}host-wheels${SQ} must be a list of NAME==VERSION, not a mapping" err &&
	recipe "[\"tool==1.0\", \"tool==1.0\"]" &&
	expect_code 3 "$TFBUILD" recipe hw.yaml >log 2>err &&
	echo "tfbuild: hw.yaml:5:28: host wheel ${SQ}tool==1.0${SQ} is listed twice" >expect &&
	compare expect err
'

expect_success 'a host wheel without a pin is refused at its place; lock drops the pin it left' '
	recipe "[\"tool==2.0\"]" &&
	expect_code 3 "$TFBUILD" recipe hw.yaml >log 2>err &&
	echo "tfbuild: hw.yaml:5:15: host wheel ${SQ}tool==2.0${SQ} has no pin for the build machine, host-$arch in hw.lock.json; run ${SQ}tfbuild lock hw.yaml${SQ}" >expect &&
	compare expect err &&
	recipe "[]" &&
	"$TFBUILD" lock hw.yaml >out 2>err &&
	! grep -q "host-" hw.lock.json
'

test_done
