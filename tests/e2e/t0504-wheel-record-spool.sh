#!/bin/sh
# RECORD's lines wait in an unlinked temporary file in the output folder
# (spool.c), not in memory, until every other entry is written. The
# wheel's bytes are those the writer made when RECORD was built in
# memory (the digest below is of the wheel tfbuild made before, from the
# same tree; re-taken when entries within deflate's window moved to
# libdeflate's level 6, which left RECORD's 124 KB of deflate as they
# were), for any thread count; RECORD spans several spool chunks
# and deflate blocks; when the temporary file cannot be made, the error
# names the folder and nothing is left there.
. "$(dirname "$0")/../lib/test-lib.sh"

# No SBOM (test-wheel --sbom no): these bytes were pinned before wheels had one.
tw() { "$TOOL_DIR/test-wheel" "$@" --sbom no; }

# 3,000 files with long names: RECORD is some 380 KB, more than one
# 256 KiB block of the zip writer and many 64 KiB spool chunks.
expect_success 'make a tree of 3,000 files with long names' '
	"$PYTHON" - <<-\EOF &&
	import os, random
	r = random.Random(504)
	for i in range(3000):
	    d = "t/pkg/sub%02d/%s" % (i % 23, "deep" * (i % 7))
	    os.makedirs(d, exist_ok=True)
	    name = "%s/module_with_a_long_name_%05d.py" % (d, i)
	    open(name, "wb").write(r.randbytes(r.randrange(0, 200)))
	EOF
	(cd t && find pkg -type f | LC_ALL=C sort | sed "s|.*|t/&=&|") >list &&
	test $(wc -l <list) = 3000
'

whl=spool-1.0-py3-none-any.whl
pack() { # OUTDIR JOBS
	tw pack "$1" --name spool --version 1.0 --tag py3-none-any \
		--epoch 1700000000 --jobs "$2" --files-from list >/dev/null
}

expect_success 'the same bytes as when RECORD was kept in memory, for 1 and 4 threads' '
	pack j1 1 && pack j4 4 &&
	cmp j1/$whl j4/$whl &&
	echo "9e64b4a89bb2b150913622d20a5cf9b65aed82406b9b09ab24746c12c61c779b  j1/$whl" >expect.sum &&
	sha256sum -c expect.sum
'

expect_success 'RECORD is every entry with its digest and size, itself last' '
	unzip -Z1 j1/$whl >entries &&
	tail -n 1 entries >last &&
	echo spool-1.0.dist-info/RECORD >want &&
	compare want last &&
	"$PYTHON" - j1/$whl <<-\EOF
	import base64, hashlib, sys, zipfile
	z = zipfile.ZipFile(sys.argv[1])
	names = z.namelist()
	lines = []
	for n in names[:-1]:
	    data = z.read(n)
	    if not n.endswith(".dist-info/RECORD") and not ".dist-info/" in n:
	        assert data == open("t/" + n, "rb").read(), n
	    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
	    lines.append("%s,sha256=%s,%d\n" % (n, d.rstrip(b"=").decode(), len(data)))
	lines.append(names[-1] + ",,\n")
	record = z.read(names[-1]).decode()
	assert record == "".join(lines), "RECORD differs"
	assert len(record) > 256 * 1024, len(record)
	EOF
'

expect_success 'no temporary file is left beside the wheel' '
	ls -A j1 >left &&
	echo $whl >want &&
	compare want left
'

# Descriptors 0-2, then the wheel's temporary file: a limit of 4 leaves
# none for RECORD's (the packer opens nothing else before it).
expect_success 'RECORD temporary file that cannot be made: the error names the folder' '
	mkdir full &&
	expect_code 1 sh -c '"'"'ulimit -n 4 && exec "$@" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-'"'"' \
		sh "$TOOL_DIR/test-wheel" pack "$TRASH/full" --name spool \
		--version 1.0 --tag py3-none-any --files-from list --sbom no 2>err &&
	echo "tfbuild: wheel '"'"'spool'"'"': cannot create a temporary file for RECORD in '"'"'$TRASH/full'"'"': Too many open files" >want &&
	compare want err &&
	ls -A full >left &&
	test ! -s left
'

test_done
