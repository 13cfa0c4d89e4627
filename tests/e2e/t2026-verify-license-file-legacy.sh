#!/bin/sh
# License-File before Metadata-Version 2.4 was setuptools' own field, its
# file beside METADATA (intel_extension_for_tensorflow_lib 2.15 is so):
# found there, the wheel is sound; found nowhere, a warning. From 2.4
# (PEP 639) it must be under .dist-info/licenses.
. "$(dirname "$0")/../lib/test-lib.sh"

# mkwheel OUT METADATA-VERSION WHERE: x-1-py3-none-any.whl whose METADATA
# names License-File: LICENSE.txt, kept at WHERE in .dist-info ("" none).
mkwheel() {
	"$PYTHON" - "$@" <<'PY'
import base64, hashlib, sys, zipfile
out, mv, where = sys.argv[1:4]
di = "x-1.dist-info/"
files = [("x/__init__.py", b"x = 1\n"),
         (di + "METADATA", ("Metadata-Version: %s\nName: x\nVersion: 1\nLicense-File: LICENSE.txt\n" % mv).encode()),
         (di + "WHEEL", b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")]
if where:
    files.append((di + where, b"MIT\n"))
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join("%s,%s,%d\n" % (n, digest(d), len(d)) for n, d in files) + di + "RECORD,,\n"
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files + [(di + "RECORD", record.encode())]:
        z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
PY
}

expect_success 'Metadata-Version 2.1, the file beside METADATA: sound, quietly' '
	mkdir -p a && mkwheel a/x-1-py3-none-any.whl 2.1 LICENSE.txt &&
	"$TFBUILD" verify a/x-1-py3-none-any.whl >out 2>err &&
	grep "^ok " out &&
	test ! -s err
'

expect_success 'Metadata-Version 2.1, no such file: a warning' '
	mkdir -p b && mkwheel b/x-1-py3-none-any.whl 2.1 "" &&
	"$TFBUILD" verify b/x-1-py3-none-any.whl >out 2>err &&
	grep "^ok " out &&
	grep "warning: b/x-1-py3-none-any.whl: x-1.dist-info/METADATA: License-File .LICENSE.txt. is not in the wheel, at .x-1.dist-info/licenses/LICENSE.txt. (PEP 639) or .x-1.dist-info/LICENSE.txt.\$" err
'

expect_success 'Metadata-Version 2.4, the file beside METADATA: refused' '
	mkdir -p c && mkwheel c/x-1-py3-none-any.whl 2.4 LICENSE.txt &&
	expect_code 6 "$TFBUILD" verify c/x-1-py3-none-any.whl 2>err &&
	grep "x-1.dist-info/METADATA: License-File .LICENSE.txt. is not in the wheel at .x-1.dist-info/licenses/LICENSE.txt.\$" err
'

test_done
