#!/bin/sh
# A wheel from elsewhere with .dist-info first (as tensorflow-cpu and
# torch are released) is sound: the wheel format only encourages RECORD
# last, so verify warns and goes on to every other check, which still
# refuses what they refuse.
. "$(dirname "$0")/../lib/test-lib.sh"

# mkwheel OUT TAMPER: x-1-py3-none-any.whl with its .dist-info first;
# TAMPER=1 changes x/__init__.py after RECORD was written.
mkwheel() {
	"$PYTHON" - "$1" "$2" <<'PY'
import base64, hashlib, sys, zipfile
out, tamper = sys.argv[1], sys.argv[2] == "1"
di = "x-1.dist-info/"
files = [(di + "METADATA", b"Metadata-Version: 2.1\nName: x\nVersion: 1\n"),
         (di + "WHEEL", b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
         ("x/__init__.py", b"x = 1\n")]
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join("%s,%s,%d\n" % (n, digest(d), len(d)) for n, d in files) + di + "RECORD,,\n"
if tamper:
    files[2] = ("x/__init__.py", b"x = 2\n")
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files[:2] + [(di + "RECORD", record.encode())] + files[2:]:
        z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
PY
}

expect_success 'RECORD before other entries: a warning, and the wheel is sound' '
	mkdir -p good &&
	mkwheel good/x-1-py3-none-any.whl 0 &&
	"$TFBUILD" verify good/x-1-py3-none-any.whl >out 2>err &&
	grep "^ok  good/x-1-py3-none-any.whl\$" out &&
	grep "warning: good/x-1-py3-none-any.whl: x-1.dist-info/RECORD: not the last entry of the archive" err &&
	test "$(wc -l <err)" = 1
'

expect_success 'the entries after it are still checked against it' '
	mkdir -p bad &&
	mkwheel bad/x-1-py3-none-any.whl 1 &&
	expect_code 6 "$TFBUILD" verify bad/x-1-py3-none-any.whl 2>err &&
	grep "x/__init__.py: sha256 does not match RECORD" err
'

test_done
