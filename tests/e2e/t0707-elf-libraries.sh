#!/bin/sh
# Libraries outside the wheel (docs/libraries.md), end to end through a
# recipe: a Python extension linking libfoo.so.1, itself linking
# libbar.so.1, both built into a private directory and resolved three
# ways: vendored into fooext.libs/ (libbar recursively), provided by
# another distribution on a RUNPATH, left to the system (allow-needed).
# The pre-pack check and `tfbuild verify` must agree on each.
. "$(dirname "$0")/../lib/test-lib.sh"

arch=$(uname -m)
mkdir -p proj/src
cat >proj/src/bar.c <<'EOF'
int bar_value(void) { return 40; }
EOF
cat >proj/src/foo.c <<'EOF'
int bar_value(void);
int foo_value(void) { return bar_value() + 2; }
EOF
cat >proj/src/ext.c <<'EOF'
#include <Python.h>
int foo_value(void);
static PyObject *value(PyObject *self, PyObject *args)
{
	return PyLong_FromLong(foo_value());
}
static PyMethodDef methods[] = {
	{ "value", value, METH_NOARGS, "foo_value() from libfoo" },
	{ NULL, NULL, 0, NULL },
};
static struct PyModuleDef mod = { PyModuleDef_HEAD_INIT, "_foo", NULL, -1,
				  methods };
PyMODINIT_FUNC PyInit__foo(void) { return PyModule_Create(&mod); }
EOF
echo 'from ._foo import value' >proj/src/__init__.py

# The common part: libraries in the libs stage, two builds of the extension.
cat >proj/common.yaml <<'EOF'
schema: 1
name: foo
version: 1.0.0
sources:
  - name: src
    path: src
steps:
  - name: libs
    source: src
    run: |
      mkdir -p $STAGE/lib
      $CC $CFLAGS -fPIC -shared -Wl,-soname,libbar.so.1 -o $STAGE/lib/libbar.so.1 bar.c
      $CC $CFLAGS -fPIC -shared -Wl,-soname,libfoo.so.1 -o $STAGE/lib/libfoo.so.1 foo.c $STAGE/lib/libbar.so.1
  - name: ext
    source: src
    needs: [libs]
    run: |
      mkdir -p $STAGE/fooext
      $CC $CFLAGS -fPIC -shared -I"$PYTHON_INCLUDE" -o $STAGE/fooext/_foo.so ext.c \
        ${stage.libs}/lib/libfoo.so.1 -Wl,-rpath-link,${stage.libs}/lib
      cp __init__.py $STAGE/fooext/
  - name: ext-rpath
    source: src
    needs: [libs]
    run: |
      mkdir -p $STAGE/fooext
      $CC $CFLAGS -fPIC -shared -I"$PYTHON_INCLUDE" -o $STAGE/fooext/_foo.so ext.c \
        ${stage.libs}/lib/libfoo.so.1 -Wl,-rpath-link,${stage.libs}/lib \
        -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../nvidia/cu13/lib'
      cp __init__.py $STAGE/fooext/
EOF
{ cat proj/common.yaml; cat <<'EOF'; } >proj/foo.yaml
wheels:
  - name: fooext
    version: 1.0.0
    files:
      - { from: ext, src: fooext, dst: . }
    libraries:
      libfoo.so.1: vendor
    library-dirs: ["${stage.libs}/lib"]
  - name: foosys
    version: 1.0.0
    files:
      - { from: ext, src: fooext, dst: . }
    allow-needed: [libfoo.so.1]
  - name: fooprov
    version: 1.0.0
    requires-dist: ["numpy>=1"]
    files:
      - { from: ext-rpath, src: fooext, dst: . }
    libraries:
      libfoo.so.1: { from: "nvidia-foo>=13,<14", runpath: "$ORIGIN/../nvidia/cu13/lib" }
EOF

plat="manylinux_2_5_$arch.manylinux1_$arch"
vendored=out/fooext-1.0.0-py3-none-$plat.whl
system=out/foosys-1.0.0-py3-none-$plat.whl
provided=out/fooprov-1.0.0-py3-none-$plat.whl
q="'"

build() { # build-dir out-dir recipe
	"$TFBUILD" -q recipe --build-dir "$1" --out "$2" "$3"
}

expect_success 'the recipe builds all three wheels' '
	build build out proj/foo.yaml &&
	test -f $vendored && test -f $system && test -f $provided
'

# Hash names as auditwheel does: the first 8 hex of the library's sha256.
h8() { sha256sum "$1" | cut -c1-8; }
# names: the vendored names of libfoo and libbar, in $foo and $bar.
names() {
	foo=libfoo-$(h8 build/x86_64/stage/libs/lib/libfoo.so.1).so.1 &&
	bar=libbar-$(h8 build/x86_64/stage/libs/lib/libbar.so.1).so.1
}

expect_success 'vendored: libfoo and (recursively) libbar in fooext.libs/' '
	names &&
	rm -rf x && mkdir x && (cd x && unzip -q ../$vendored) &&
	printf "%s\n" fooext.libs/$bar fooext.libs/$foo >expect &&
	(cd x && ls fooext.libs/*) >actual &&
	compare expect actual &&
	readelf -d x/fooext/_foo.so >dyn &&
	grep -F "(NEEDED)             Shared library: [$foo]" dyn &&
	grep -F "(RUNPATH)            Library runpath: [\$ORIGIN/../fooext.libs]" dyn &&
	! grep -F "libfoo.so.1" dyn &&
	readelf -d x/fooext.libs/$foo >dyn &&
	grep -F "(SONAME)             Library soname: [$foo]" dyn &&
	grep -F "(NEEDED)             Shared library: [$bar]" dyn &&
	grep -F "(RUNPATH)            Library runpath: [\$ORIGIN]" dyn
'

expect_success 'vendored: the record says what was vendored' '
	names &&
	cat >expect <<-EOF &&
	{
	  "libraries": [
	    {
	      "file": "fooext.libs/$bar",
	      "resolution": "vendor",
	      "soname": "libbar.so.1"
	    },
	    {
	      "file": "fooext.libs/$foo",
	      "resolution": "vendor",
	      "soname": "libfoo.so.1"
	    }
	  ],
	  "version": 1
	}
	EOF
	compare expect x/fooext-1.0.0.dist-info/tfbuild/libraries.json
'

expect_success 'vendored: verify passes; -v prints sonames and RUNPATH' '
	names &&
	"$TFBUILD" verify -v $vendored >out.txt 2>err &&
	grep -F "vendored ${q}libfoo.so.1${q} as fooext.libs/$foo" err &&
	grep -F "vendored ${q}libbar.so.1${q} as fooext.libs/$bar" err &&
	grep -F "fooext/_foo.so: RUNPATH ${q}\$ORIGIN/../fooext.libs${q}" err &&
	grep -F "fooext/_foo.so: needs ${q}$foo${q}: shipped in the wheel" err
'

expect_success 'vendored: loads in a fresh venv with the originals hidden' '
	"$PYTHON" -m venv venv &&
	venv/bin/pip install -q --disable-pip-version-check --no-index \
		--no-deps $vendored &&
	mv build/x86_64/stage/libs build/x86_64/stage/libs.hidden &&
	env -u LD_LIBRARY_PATH venv/bin/python -c \
		"import fooext; print(fooext.value())" >actual &&
	mv build/x86_64/stage/libs.hidden build/x86_64/stage/libs &&
	echo 42 >expect &&
	compare expect actual
'

expect_success 'vendored: byte-reproducible from another build tree' '
	build build2 out2 proj/foo.yaml &&
	cmp $vendored out2/${vendored#out/} &&
	cmp $provided out2/${provided#out/}
'

expect_success 'system (allow-needed): packs and verifies' '
	"$TFBUILD" verify -v $system 2>err &&
	grep -F "${q}libfoo.so.1${q} left to the system (allow-needed)" err &&
	grep -F "fooext/_foo.so: needs ${q}libfoo.so.1${q}: a system library" err
'

expect_success 'provided: Requires-Dist added, decision recorded, verifies' '
	rm -rf x && mkdir x && (cd x && unzip -q ../$provided) &&
	grep "^Requires-Dist:" x/fooprov-1.0.0.dist-info/METADATA >actual &&
	printf "Requires-Dist: %s\n" "numpy>=1" "nvidia-foo>=13,<14" >expect &&
	compare expect actual &&
	grep -F "\"resolution\": \"provided\"" x/fooprov-1.0.0.dist-info/tfbuild/libraries.json &&
	"$TFBUILD" verify -v $provided 2>err &&
	grep -F "${q}libfoo.so.1${q} provided by ${q}nvidia-foo>=13,<14${q} at run time, on RUNPATH ${q}\$ORIGIN/../nvidia/cu13/lib${q}" err
'

expect_success 'provided: without the RUNPATH, refused naming the library' '
	{ cat proj/common.yaml; cat <<-EOF; } >proj/norunpath.yaml &&
	wheels:
	  - name: fooprov
	    version: 1.0.0
	    files:
	      - { from: ext, src: fooext, dst: . }
	    libraries:
	      libfoo.so.1: { from: "nvidia-foo>=13", runpath: "\$ORIGIN/../nvidia/cu13/lib" }
	EOF
	expect_code 6 build build out3 proj/norunpath.yaml 2>err &&
	echo "tfbuild: wheel ${q}fooprov${q}: fooext/_foo.so: needs ${q}libfoo.so.1${q} (DT_NEEDED) from ${q}nvidia-foo>=13${q}, but its RUNPATH (${q}${q}) lacks ${q}\$ORIGIN/../nvidia/cu13/lib${q}" >expect &&
	compare expect err
'

expect_success 'aarch64: vendored with 64 KiB segments, verifies' '
	"$TFBUILD" -q recipe --target aarch64 --build-dir build-arm \
		--out out-arm proj/foo.yaml &&
	w=out-arm/fooext-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl &&
	"$TFBUILD" verify $w &&
	rm -rf xa && mkdir xa && (cd xa && unzip -q ../$w) &&
	for f in xa/fooext/_foo.so xa/fooext.libs/*; do
		readelf -lW $f | grep "^ *LOAD" >load &&
		! grep -v " 0x10000$" load || return 1
	done
'

# Rewrite one .dist-info file of a wheel with its RECORD line, as a
# tampering tool would (Python's zipfile, an independent writer).
tamper() { # wheel entry regex replacement
	/usr/bin/python3 - "$@" <<-\EOF
	import base64, hashlib, re, sys, zipfile
	whl, name, pat, rep = sys.argv[1:]
	z = zipfile.ZipFile(whl)
	files = {i.filename: z.read(i) for i in z.infolist()}
	z.close()
	files[name] = re.sub(pat, rep, files[name].decode(), flags=re.M).encode()
	rec = [k for k in files if k.endswith(".dist-info/RECORD")][0]
	lines = []
	for k in files:
	    if k == rec:
	        lines.append(k + ",,")
	        continue
	    d = base64.urlsafe_b64encode(hashlib.sha256(files[k]).digest()).rstrip(b"=").decode()
	    lines.append("%s,sha256=%s,%d" % (k, d, len(files[k])))
	files[rec] = ("\n".join(lines) + "\n").encode()
	with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as out:
	    for k, v in files.items():
	        out.writestr(k, v)
	EOF
}

expect_success 'provided: verify refuses it without the requirement' '
	mkdir -p t &&
	cp $provided t/ && w=t/${provided#out/} &&
	tamper $w fooprov-1.0.0.dist-info/METADATA "^Requires-Dist: nvidia.*\n" "" &&
	expect_code 6 "$TFBUILD" verify $w 2>err &&
	echo "tfbuild: $w: fooext/_foo.so: needs ${q}libfoo.so.1${q} (DT_NEEDED) from ${q}nvidia-foo>=13,<14${q}, which is not in Requires-Dist" >expect &&
	compare expect err
'

expect_success 'verify refuses a record naming a vendored file not shipped' '
	cp $vendored t/ && w=t/${vendored#out/} &&
	tamper $w fooext-1.0.0.dist-info/tfbuild/libraries.json "fooext.libs/libbar-" "fooext.libs/libbaz-" &&
	expect_code 6 "$TFBUILD" verify $w 2>err &&
	grep -F "fooext-1.0.0.dist-info/tfbuild/libraries.json: vendored ${q}libbar.so.1${q} is not in the wheel" err
'

test_done
