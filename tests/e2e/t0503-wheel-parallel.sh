#!/bin/sh
# Parallel packing (wheel/zipout.c): entries cut into fixed 256 KiB blocks,
# deflated by any number of threads, give the same bytes whatever the
# thread count. Files of 0, 1, exactly one block, one block plus one byte,
# several blocks (text-like, zeros, random), and many small ones; the
# wheels inflate back to the files (unzip -t, Python's zipfile against
# the sources) and `tfbuild verify` accepts them.
. "$(dirname "$0")/../lib/test-lib.sh"

tw() { "$TOOL_DIR/test-wheel" "$@"; }

# tree: deterministic data, made by Debian's Python (fixed seed).
expect_success 'make a tree with multi-block and many small files' '
	"$PYTHON" - <<-\EOF &&
	import os, random
	r = random.Random(11)
	os.makedirs("t/pkg/small")
	words = [b"tensor", b"kernel", b"stream", b"device", b"return", b"self"]
	def text(n):
	    out = bytearray()
	    while len(out) < n:
	        out += r.choice(words) + (b"\n" if r.random() < .1 else b" ")
	    return bytes(out[:n])
	B = 256 * 1024
	files = {"empty": b"", "one": b"x", "block": text(B),
	         "block1": text(B + 1), "text": text(5 * B + 12345),
	         "zeros": bytes(3 * B + 7),
	         "random": r.randbytes(2 * B + 99),
	         "mixed": text(B // 2) + bytes(B) + r.randbytes(B) + text(B)}
	for k, v in files.items():
	    open("t/pkg/" + k, "wb").write(v)
	for i in range(300):
	    open("t/pkg/small/f%03d.txt" % i, "wb").write(text(r.randrange(1, 3000)))
	EOF
	(cd t && find pkg -type f | LC_ALL=C sort) >files &&
	test $(wc -l <files) = 308
'

# pack OUTDIR JOBS [LEVEL]
pack() {
	set -- "$1" "$2" "${3:-6}" &&
	sed "s|.*|t/&=&|" files >args &&
	tw pack "$1" --name par --version 1.0 --tag py3-none-any \
		--epoch 1700000000 --jobs "$2" --level "$3" $(cat args) >/dev/null
}

whl=par-1.0-py3-none-any.whl

expect_success 'jobs 1, 2, 3 and 8 give byte-identical wheels' '
	pack j1 1 && pack j2 2 && pack j3 3 && pack j8 8 &&
	cmp j1/$whl j2/$whl && cmp j1/$whl j3/$whl && cmp j1/$whl j8/$whl
'

expect_success 'stored (level 0) wheels are identical across thread counts too' '
	pack s1 1 0 && pack s8 8 0 &&
	cmp s1/$whl s8/$whl
'

expect_success 'level 3 (one compressor per thread): identical and sound' '
	pack l1 1 3 && pack l8 8 3 && cmp l1/$whl l8/$whl &&
	unzip -tq l8/$whl && ! cmp -s l8/$whl j8/$whl
'

expect_success 'unzip -t finds no error' '
	unzip -tq j8/$whl >out &&
	grep "No errors detected" out &&
	unzip -tq s8/$whl
'

expect_success 'every entry inflates to its source file, with its CRC' '
	"$PYTHON" - j8/$whl s8/$whl <<-\EOF
	import sys, zipfile
	for w in sys.argv[1:]:
	    z = zipfile.ZipFile(w)
	    assert z.testzip() is None, w
	    names = [n for n in z.namelist() if ".dist-info/" not in n]
	    assert names == sorted(names), "not sorted"
	    assert len(names) == 308, len(names)
	    for n in names:
	        assert z.read(n) == open("t/" + n, "rb").read(), n
	        i = z.getinfo(n)
	        assert i.external_attr >> 16 == 0o100644, (n, oct(i.external_attr))
	        assert i.date_time == (2023, 11, 14, 22, 13, 20), i.date_time
	    assert z.namelist()[-1].endswith(".dist-info/RECORD")
	EOF
'

expect_success 'multi-block entries are deflated; sizes like zlib level 6' '
	"$PYTHON" - j8/$whl <<-\EOF
	import sys, zipfile, zlib
	z = zipfile.ZipFile(sys.argv[1])
	ours = theirs = 0
	for i in z.infolist():
	    assert i.compress_type == zipfile.ZIP_DEFLATED, i.filename
	    c = zlib.compressobj(6, zlib.DEFLATED, -15)
	    ours += i.compress_size
	    theirs += len(c.compress(z.read(i)) + c.flush())
	print(ours, theirs)
	assert ours <= theirs * 1.02, (ours, theirs)
	EOF
'

expect_success 'tfbuild verify accepts them' '
	tfbuild verify j8/$whl s8/$whl >/dev/null
'

test_done
