#!/bin/sh
# verify reads zip entry names flagged UTF-8 as pip does: a wheel holding
# café.py is sound (zipcheck's lister once read such names as '').
. "$(dirname "$0")/../lib/test-lib.sh"

expect_success 'a wheel with a non-ASCII entry name verifies' '
	mkdir -p tree/x tree/x-1.dist-info out &&
	echo "x = 1" >"tree/x/café.py" &&
	printf "Metadata-Version: 2.1\nName: x\nVersion: 1\n" >tree/x-1.dist-info/METADATA &&
	printf "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n" >tree/x-1.dist-info/WHEEL &&
	"${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}/python" -m wheel pack tree -d out >/dev/null &&
	"$TFBUILD" verify out/x-1-py3-none-any.whl >got &&
	grep "^ok  out/x-1-py3-none-any.whl\$" got
'

test_done
