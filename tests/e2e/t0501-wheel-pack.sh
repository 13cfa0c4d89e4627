#!/bin/sh
# Pack a tiny C library into a wheel, check its layout and metadata, install
# it with Debian's pip into a fresh venv and call it through ctypes and a
# console script. Packing is byte-for-byte reproducible across time zones,
# umasks, source mtimes and wall-clock time. Bad specs fail naming the file
# and leave nothing behind.
. "$(dirname "$0")/../lib/test-lib.sh"

tw() { "$TOOL_DIR/test-wheel" "$@"; }
whl=demo-1.0.0+m1-py3-none-linux_x86_64.whl
di=demo-1.0.0+m1.dist-info

mkdir -p src/demo &&
cat >src/demo.c <<'EOF' &&
int demo_add(int a, int b)
{
	return a + b;
}
EOF
cat >src/demo/__init__.py <<'EOF' &&
import ctypes
import os
import sys

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libdemo.so"))


def add(a, b):
    return _lib.demo_add(a, b)


def main():
    print(add(int(sys.argv[1]), int(sys.argv[2])))
EOF
cc -shared -fPIC -o src/demo/libdemo.so src/demo.c || exit 1

# pack OUTDIR: the spec every test below uses.
pack() {
	tw pack "$1" --name demo --version 1.0.0+M1 \
		--tag py3-none-linux_x86_64 --summary 'Adds two numbers' \
		--license MIT --requires-python '>=3.8' \
		--entry-point console_scripts:demo-add=demo:main \
		--epoch 1700000000 \
		src/demo/libdemo.so=demo/libdemo.so \
		src/demo/__init__.py=demo/__init__.py
}

expect_success 'pack prints the wheel path with the normalized version' '
	echo "dist/$whl" >expect &&
	pack dist >actual &&
	compare expect actual &&
	test -f "dist/$whl"
'

expect_success 'entries are sorted, .dist-info last, RECORD very last' '
	cat >expect <<-EOF &&
	demo/__init__.py
	demo/libdemo.so
	$di/METADATA
	$di/WHEEL
	$di/entry_points.txt
	$di/sboms/tfbuild.cdx.json
	$di/RECORD
	EOF
	unzip -Z1 "dist/$whl" >actual &&
	compare expect actual
'

expect_success 'METADATA, WHEEL and entry_points.txt' '
	cat >expect <<-EOF &&
	Metadata-Version: 2.4
	Name: demo
	Version: 1.0.0+m1
	Summary: Adds two numbers
	License-Expression: MIT
	Requires-Python: >=3.8
	--
	Wheel-Version: 1.0
	Generator: tfbuild 0.1.0
	Root-Is-Purelib: false
	Tag: py3-none-linux_x86_64
	--
	[console_scripts]
	demo-add = demo:main

	EOF
	{
		unzip -p "dist/$whl" "$di/METADATA" && echo -- &&
		unzip -p "dist/$whl" "$di/WHEEL" && echo -- &&
		unzip -p "dist/$whl" "$di/entry_points.txt"
	} >actual &&
	compare expect actual
'

expect_success 'RECORD lists every file with sha256 and size, itself last' '
	mkdir x && (cd x && unzip -q "../dist/$whl") &&
	for f in demo/__init__.py demo/libdemo.so $di/METADATA $di/WHEEL \
		$di/entry_points.txt $di/sboms/tfbuild.cdx.json; do
		h=$("$PYTHON" -c "import base64, hashlib, sys; print(base64.urlsafe_b64encode(hashlib.sha256(open(sys.argv[1], \"rb\").read()).digest()).rstrip(b\"=\").decode())" "x/$f") &&
		echo "$f,sha256=$h,$(wc -c <"x/$f")" || exit 1
	done >expect &&
	echo "$di/RECORD,," >>expect &&
	compare expect "x/$di/RECORD"
'

expect_success 'fixed times, modes and owners in every entry' '
	cat >expect <<-EOF &&
	demo/__init__.py 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	demo/libdemo.so 0o100755 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	$di/METADATA 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	$di/WHEEL 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	$di/entry_points.txt 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	$di/sboms/tfbuild.cdx.json 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	$di/RECORD 0o100644 (2023, 11, 14, 22, 13, 20) UT05000100f15365 ux0b000104000000000400000000
	EOF
	"$PYTHON" - "dist/$whl" >actual <<-\EOF &&
	import sys, zipfile
	for i in zipfile.ZipFile(sys.argv[1]).infolist():
	    e = i.extra
	    print(i.filename, oct(i.external_attr >> 16), i.date_time,
	          "UT" + e[2:9].hex(), "ux" + e[11:].hex())
	EOF
	compare expect actual
'

expect_success 'tfbuild verify accepts it' '
	echo "ok  dist/$whl" >expect &&
	tfbuild verify "dist/$whl" >actual &&
	compare expect actual
'

expect_success 'pip installs it; the library loads via ctypes; the script runs' '
	"$PYTHON" -m venv venv &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip install -q --no-index \
		--no-deps "dist/$whl" &&
	echo 5 >expect &&
	venv/bin/python -c "import demo; print(demo.add(2, 3))" >actual &&
	compare expect actual &&
	echo 42 >expect &&
	venv/bin/demo-add 40 2 >actual &&
	compare expect actual
'

expect_success 'pip show reads the metadata and entry points' '
	cat >expect <<-\EOF &&
	Name: demo
	Version: 1.0.0+m1
	Summary: Adds two numbers
	Metadata-Version: 2.4
	  demo-add = demo:main
	EOF
	PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip show -v demo >show &&
	grep -E "^(Name|Version|Summary|Metadata-Version):|demo-add" show >actual &&
	compare expect actual
'

expect_success 'same bytes at another time, TZ, umask and source mtimes' '
	mkdir again && cp -R src again/ &&
	touch -d "2001-02-03 04:05:06" again/src/demo/* &&
	chmod 600 again/src/demo/__init__.py &&
	sleep 1 &&
	(cd again && umask 077 && TZ=Asia/Tokyo pack out >/dev/null) &&
	TZ=America/Los_Angeles pack dist2 >/dev/null &&
	cmp "dist/$whl" "again/out/$whl" &&
	cmp "dist/$whl" "dist2/$whl"
'

expect_success 'compressed sets expand to one Tag line each; pure is purelib' '
	cat >expect <<-EOF &&
	Root-Is-Purelib: true
	Tag: py2-none-any
	Tag: py3-none-any
	EOF
	tw pack pure --name Pure.Pkg --version 2 --tag py2.py3-none-any \
		src/demo/__init__.py=pure_pkg/__init__.py >path &&
	echo pure/pure_pkg-2-py2.py3-none-any.whl >expect_path &&
	compare expect_path path &&
	unzip -p "$(cat path)" pure_pkg-2.dist-info/WHEEL | sed 1,2d >actual &&
	compare expect actual &&
	unzip -p "$(cat path)" pure_pkg-2.dist-info/METADATA | head -n 1 >actual &&
	echo "Metadata-Version: 2.1" >expect &&
	compare expect actual
'

# bad_pack EXPECTED-MESSAGE ARGS...: pack fails with exactly that message
# and leaves the output directory empty.
bad_pack() {
	printf "%s\n" "$1" >expect && shift &&
	rm -rf bad && mkdir bad &&
	expect_code 1 tw pack bad --name demo --version 1.0 \
		--tag py3-none-any "$@" 2>actual &&
	compare expect actual &&
	ls -A bad >left && compare /dev/null left
}

expect_success 'unsafe, duplicate and .dist-info destinations are refused' '
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''a/../b'\'' is not a safe relative path" \
		src/demo.c=a/../b &&
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''/abs'\'' is not a safe relative path" \
		src/demo.c=/abs &&
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''a//b'\'' is not a safe relative path" \
		src/demo.c=a//b &&
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''a\\b'\'' has a backslash, control or non-ASCII character" \
		"src/demo.c=a\\b" &&
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''x/y'\'' is listed twice" \
		src/demo.c=x/y src/demo.c=a src/demo.c=x/y &&
	bad_pack "tfbuild: wheel '\''demo'\'': file '\''demo-1.0.dist-info/extra'\'' is inside a .dist-info directory" \
		src/demo.c=demo-1.0.dist-info/extra
'

expect_success 'bad names, versions, tags and entry points are refused' '
	echo "tfbuild: wheel '\''-demo'\'': not a valid distribution name" >expect &&
	expect_code 1 tw pack bad --name -demo --version 1.0 \
		--tag py3-none-any 2>actual &&
	compare expect actual &&
	echo "tfbuild: wheel '\''demo'\'': version '\''1.0+'\'' is not a valid PEP 440 version" >expect &&
	expect_code 1 tw pack bad --name demo --version 1.0+ \
		--tag py3-none-any 2>actual &&
	compare expect actual &&
	bad_pack "tfbuild: wheel '\''demo'\'': entry point '\''x'\'' in '\''console_scripts'\'': '\''not valid'\'' is not a valid object reference" \
		--entry-point "console_scripts:x=not valid" &&
	bad_pack "tfbuild: wheel '\''demo'\'': entry point '\''x'\'' in '\''g'\'' is defined twice" \
		--entry-point g:x=a:b --entry-point g:x=c:d
'

expect_success 'a missing source fails and leaves no temporary file' '
	bad_pack "tfbuild: wheel '\''demo'\'': cannot open '\''nope'\'': No such file or directory" \
		src/demo.c=a nope=b
'

test_done
