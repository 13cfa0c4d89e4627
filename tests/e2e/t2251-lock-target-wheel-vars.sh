#!/bin/sh
# ${...} in `target-wheels` (issue 37): `tensorflow==${tf}` used to be
# refused at loading ("'${tf}' is not an exact PEP 440 version"), so
# --set could not pick a release. The plan expands it first and checks
# the expansion, its error at the value's place; lock pins each value
# and keeps the pins of the others, one lock for every release. A real
# pypiserver on 127.0.0.1 serves two small stand-in releases; a recipe
# variable made of ${target_site} still sees the site of the pins.
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

mkdir idx &&
for v in 2.20.0 2.21.0; do
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx fakeflow $v py3-none-any \
		"fakeflow/version.h=#define FAKEFLOW \"$v\"" >/dev/null || exit 1
done
"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx hdr 0.1 py3-none-any 'hdr/hdr.h=#define HDR 1' >/dev/null || exit 1
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TOOLS/pypi-server" run -i 127.0.0.1 -p "$port" --backend simple-dir idx >pypi.log 2>&1 &
pypi_pid=$!
at_exit "stop_pid $pypi_pid"
export PIP_INDEX_URL=http://127.0.0.1:$port/simple/
i=0
until curl -sf "$PIP_INDEX_URL" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "pypiserver did not start" >&2; cat pypi.log; exit 1; }
	sleep 0.1
done

# recipe TARGET-WHEEL
recipe() {
	cat >fw.yaml <<EOF
schema: 1
name: fw
version: "1.0"
variables:
  tf: 2.20.0
  inc: \${target_site}/fakeflow
target-wheels: ["$1"]
steps:
  - name: s
    run: cat \${inc}/version.h >\$STAGE/v
EOF
}
pins() { grep -c '"requirement"' fw.lock.json; }

expect_success 'lock pins the variable'"$SQ"'s default; the build reads that release' '
	recipe "fakeflow==\${tf}" &&
	"$TFBUILD" lock fw.yaml >out 2>err &&
	grep -q "fakeflow==2.20.0: pinned fakeflow-2.20.0-py3-none-any.whl" out &&
	test $(pins) = 1 &&
	"$TFBUILD" recipe fw.yaml >log 2>&1 &&
	grep -qx "#define FAKEFLOW \"2.20.0\"" build/fw/*/stage/s/v
'

expect_success '--set picks the other release; lock keeps both pins' '
	"$TFBUILD" lock --set tf=2.21.0 fw.yaml >out 2>err &&
	grep -q "fakeflow==2.21.0: pinned fakeflow-2.21.0-py3-none-any.whl" out &&
	test $(pins) = 2 &&
	"$TFBUILD" recipe --set tf=2.21.0 fw.yaml >log 2>&1 &&
	grep -qx "#define FAKEFLOW \"2.21.0\"" build/fw/*/stage/s/v &&
	"$TFBUILD" lock fw.yaml >out 2>err &&
	grep -q "fakeflow==2.20.0: kept" out &&
	test $(pins) = 2 &&
	"$TFBUILD" recipe fw.yaml >log 2>&1 &&
	grep -qx "#define FAKEFLOW \"2.20.0\"" build/fw/*/stage/s/v
'

expect_success 'an expansion that is not exact is refused at the value'"$SQ"'s place' '
	expect_code 3 "$TFBUILD" recipe --set tf=2.2x fw.yaml >log 2>err &&
	echo "tfbuild: fw.yaml:7:17: target wheel ${SQ}fakeflow==\${tf}${SQ} is ${SQ}fakeflow==2.2x${SQ}: ${SQ}2.2x${SQ} is not an exact PEP 440 version (as ${SQ}tensorflow-cpu==2.21.0${SQ})" >expect &&
	compare expect err &&
	expect_code 3 "$TFBUILD" lock --set "tf=2.*" fw.yaml >log 2>err &&
	grep -qF "fw.yaml:7:17: target wheel ${SQ}fakeflow==\${tf}${SQ} is ${SQ}fakeflow==2.*${SQ}: ${SQ}2.*${SQ} is not an exact PEP 440 version" err &&
	expect_code 3 "$TFBUILD" recipe --set tf=2.22.0 fw.yaml >log 2>err &&
	grep -qF "fw.yaml:7:17: target wheel ${SQ}fakeflow==2.22.0${SQ} has no pin for target" err
'

expect_success 'an unknown variable is refused at its place, by lock too' '
	recipe "fakeflow==\${tff}" &&
	expect_code 3 "$TFBUILD" lock fw.yaml >log 2>err &&
	grep -qF "fw.yaml:7:" err && grep -qF "tff" err
'

expect_success 'pins a literal entry never wanted are dropped when the template leaves' '
	recipe "hdr==0.1" &&
	"$TFBUILD" lock fw.yaml >out 2>err &&
	test $(pins) = 1 &&
	grep -q "\"hdr==0.1\"" fw.lock.json
'

test_done
