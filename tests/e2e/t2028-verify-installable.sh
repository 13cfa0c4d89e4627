#!/bin/sh
# verify refuses (exit 6, naming the member) what an installer cannot
# take as listed: a NUL in an entry name (Python's zipfile cuts the name
# there), a WHEEL without Root-Is-Purelib, and an entry compressed with
# anything but stored (0) or deflate (8): zstd (93), which pip cannot
# read, bzip2 (12) and lzma (14), which it reads only where CPython has
# their modules, or a method no one knows. Each wheel is the sound
# one below rewritten with RECORD kept true (tests/lib/rewheel.py).
. "$(dirname "$0")/../lib/test-lib.sh"

rewheel="$TESTS_DIR/lib/rewheel.py"
w=demo-1.0-py3-none-any.whl

# bad DIR EDIT...: the sound wheel rewritten into DIR/.
bad() {
	d=$1 &&
	shift &&
	mkdir "$d" &&
	"$PYTHON" "$rewheel" $w "$d/$w" "$@"
}

expect_success 'the sound wheel, and the rewrite alone, pass' '
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" . demo 1.0 py3-none-any \
		"demo/__init__.py=x = 1" "demo/a#b.py=y = 2" >/dev/null &&
	"$TFBUILD" verify $w &&
	bad same "sub:demo/__init__.py:1:3" &&
	"$TFBUILD" verify same/$w
'

expect_success 'a NUL in an entry name is refused, naming it' '
	bad nul "nul:demo/a#b.py" &&
	expect_code 6 "$TFBUILD" verify nul/$w 2>err &&
	grep "^tfbuild: nul/$w: demo/a: the entry name holds a NUL byte after .demo/a. (11 bytes in all): Python.s zipfile cuts it there$" err
'

expect_success 'a WHEEL without Root-Is-Purelib, or with another value, is refused' '
	bad nopure "drop-line:*/WHEEL:Root-Is-Purelib" &&
	unzip -p nopure/$w demo-1.0.dist-info/WHEEL >wheel &&
	! grep Root-Is-Purelib wheel &&
	expect_code 6 "$TFBUILD" verify nopure/$w 2>err &&
	grep "^tfbuild: nopure/$w: demo-1.0.dist-info/WHEEL: no Root-Is-Purelib field$" err &&
	bad maybe "sub|*/WHEEL|Root-Is-Purelib: false|Root-Is-Purelib: maybe" &&
	expect_code 6 "$TFBUILD" verify maybe/$w 2>err &&
	grep "^tfbuild: maybe/$w: demo-1.0.dist-info/WHEEL: Root-Is-Purelib .maybe. is not .true. or .false.$" err
'

expect_success 'a zstd entry (method 93) is refused; pip cannot install it' '
	bad zstd "method:demo/__init__.py:93" &&
	expect_code 6 "$TFBUILD" verify zstd/$w 2>err &&
	grep "^tfbuild: zstd/$w: demo/__init__.py: compressed with method 93 (zstd, which pip cannot read): a wheel.s entries are stored (0) or deflated (8), what every installer reads$" err &&
	/usr/bin/python3 -m venv venv &&
	! venv/bin/pip install -q --no-index --disable-pip-version-check zstd/$w 2>pip.err &&
	grep -i "compression method\|not supported\|NotImplementedError" pip.err &&
	venv/bin/pip install -q --no-index --disable-pip-version-check $w
'

expect_success 'bzip2, lzma and an unknown method are refused, each named' '
	bad bz2 "method:demo/__init__.py:12" &&
	expect_code 6 "$TFBUILD" verify bz2/$w 2>err &&
	grep "demo/__init__.py: compressed with method 12 (bzip2, which pip reads only where CPython has its bz2 module)" err &&
	bad xz "method:demo/__init__.py:14" &&
	expect_code 6 "$TFBUILD" verify xz/$w 2>err &&
	grep "demo/__init__.py: compressed with method 14 (lzma, which pip reads only where CPython has its lzma module)" err &&
	bad odd "method:demo/a#b.py:77" &&
	expect_code 6 "$TFBUILD" verify odd/$w 2>err &&
	grep "demo/a#b.py: compressed with method 77 (which pip cannot read)" err
'

test_done
