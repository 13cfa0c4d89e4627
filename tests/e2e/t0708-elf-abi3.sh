#!/bin/sh
# The abi3 audit (what `abi3audit --strict` does): a wheel tagged
# cp3X-abi3 may only import Python C API symbols that are in the stable
# ABI of Python 3.X, by CPython's published list. Refused before packing
# and by `tfbuild verify`, naming the file and the symbol.
. "$(dirname "$0")/../lib/test-lib.sh"

arch=$(uname -m)
q="'"
mkdir -p proj/src
cat >proj/src/utf8.c <<'EOF'
#include <Python.h>
/* PyUnicode_AsUTF8 is in no stable ABI; declared by hand as a limited
   build would not see it. */
const char *PyUnicode_AsUTF8(PyObject *);
static PyObject *f(PyObject *self, PyObject *arg)
{
	return PyLong_FromLong((long)strlen(PyUnicode_AsUTF8(arg)));
}
static PyMethodDef methods[] = { { "f", f, METH_O, NULL }, { NULL, NULL, 0, NULL } };
static struct PyModuleDef mod = { PyModuleDef_HEAD_INIT, "utf8", NULL, -1, methods };
PyMODINIT_FUNC PyInit_utf8(void) { return PyModule_Create(&mod); }
EOF
cat >proj/src/sized.c <<'EOF'
#define Py_LIMITED_API 0x030A0000
#include <Python.h>
static PyObject *f(PyObject *self, PyObject *arg)
{
	Py_ssize_t n;

	return PyUnicode_AsUTF8AndSize(arg, &n) ? PyLong_FromSsize_t(n) : NULL;
}
static PyMethodDef methods[] = { { "f", f, METH_O, NULL }, { NULL, NULL, 0, NULL } };
static struct PyModuleDef mod = { PyModuleDef_HEAD_INIT, "sized", NULL, -1, methods };
PyMODINIT_FUNC PyInit_sized(void) { return PyModule_Create(&mod); }
EOF

# recipe NAME PYTHON-TAG ABI-TAG: one extension module in a wheel.
recipe() {
	cat >proj/$1-$2.yaml <<-EOF
	schema: 1
	name: $1
	version: 1.0.0
	sources:
	  - name: src
	    path: src
	steps:
	  - name: ext
	    source: src
	    run: |
	      mkdir -p \$STAGE/m
	      \$CC \$CFLAGS -fPIC -shared -I"\$PYTHON_INCLUDE" -o \$STAGE/m/$1.abi3.so $1.c
	wheels:
	  - name: $1
	    version: 1.0.0
	    python: $2
	    abi: $3
	    files:
	      - { from: ext, src: m/$1.abi3.so, dst: . }
	EOF
}

expect_success 'a symbol in no stable ABI is refused before packing' '
	recipe utf8 cp38 abi3 &&
	expect_code 6 "$TFBUILD" -q recipe --build-dir b1 --out o1 proj/utf8-cp38.yaml 2>err &&
	echo "tfbuild: wheel ${q}utf8${q}: utf8.abi3.so: imports ${q}PyUnicode_AsUTF8${q}, which is not in the stable ABI (abi3)" >expect &&
	compare expect err &&
	! ls o1/*.whl 2>/dev/null
'

expect_success 'a symbol newer than the tag allows is refused' '
	recipe sized cp38 abi3 &&
	expect_code 6 "$TFBUILD" -q recipe --build-dir b2 --out o2 proj/sized-cp38.yaml 2>err &&
	echo "tfbuild: wheel ${q}sized${q}: sized.abi3.so: imports ${q}PyUnicode_AsUTF8AndSize${q}, in the stable ABI only from Python 3.10, but the wheel is tagged cp38-abi3" >expect &&
	compare expect err
'

expect_success 'the same module tagged cp310-abi3 passes, and imports' '
	recipe sized cp310 abi3 &&
	"$TFBUILD" -q recipe --build-dir b3 --out o3 proj/sized-cp310.yaml &&
	w=$(ls o3/sized-1.0.0-cp310-abi3-*.whl) &&
	"$TFBUILD" -q verify $w &&
	"$PYTHON" -m venv venv &&
	venv/bin/pip install -q --disable-pip-version-check --no-index $w &&
	venv/bin/python -c "import sized; print(sized.f(\"h\u00e9\"))" >actual &&
	echo 3 >expect &&
	compare expect actual
'

expect_success 'a wheel not tagged abi3 is not audited' '
	recipe utf8 cp311 cp311 &&
	"$TFBUILD" -q recipe --build-dir b4 --out o4 proj/utf8-cp311.yaml &&
	ls o4/utf8-1.0.0-cp311-cp311-*.whl
'

expect_success 'verify refuses it once retagged cp38-abi3' '
	src=$(ls o4/utf8-1.0.0-cp311-cp311-*.whl) &&
	plat=${src##*-cp311-cp311-} &&
	dst=t/utf8-1.0.0-cp38-abi3-$plat && mkdir -p t &&
	/usr/bin/python3 - "$src" "$dst" <<-\EOF &&
	import base64, hashlib, sys, zipfile
	src, dst = sys.argv[1:]
	with zipfile.ZipFile(src) as z:
	    files = {i.filename: z.read(i) for i in z.infolist()}
	w = "utf8-1.0.0.dist-info/WHEEL"
	files[w] = files[w].replace(b"cp311-cp311-", b"cp38-abi3-")
	rec = "utf8-1.0.0.dist-info/RECORD"
	rows = []
	for k, v in files.items():
	    if k != rec:
	        d = base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").decode()
	        rows.append("%s,sha256=%s,%d" % (k, d, len(v)))
	files[rec] = ("\n".join(rows + [rec + ",,"]) + "\n").encode()
	with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
	    for k, v in files.items():
	        z.writestr(k, v)
	EOF
	expect_code 6 "$TFBUILD" verify "$dst" 2>err &&
	echo "tfbuild: $dst: utf8.abi3.so: imports ${q}PyUnicode_AsUTF8${q}, which is not in the stable ABI (abi3)" >expect &&
	compare expect err
'

test_done
