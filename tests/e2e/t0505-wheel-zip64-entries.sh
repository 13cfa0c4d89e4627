#!/bin/sh
# ZIP64 end records for the entry count (APPNOTE 4.4.21-22): from 65,535
# entries on the end record says 0xffff and the ZIP64 end record holds
# the count; a wheel of 300,000 (empty) entries packs, verifies and
# installs with pip. A smaller wheel keeps the plain end record only.
# Without the ZIP64 records (as minizip alone writes them) the same
# archive is refused: the fix is what makes it readable.
. "$(dirname "$0")/../lib/test-lib.sh"

# recipe DIRS FILES: a wheel of DIRS x FILES empty files under many/.
recipe() {
	cat >r.yaml <<-EOT
	schema: 1
	name: many
	version: 1.0.0
	targets: [x86_64]
	steps:
	  - name: files
	    run: |
	      mkdir -p "\$STAGE/many" && cd "\$STAGE/many"
	      for d in \$(seq 1 $1); do mkdir \$d && (cd \$d && seq 1 $2 | xargs touch); done
	wheels:
	  - name: many
	    version: 1.0.0
	    files:
	      - from: files
	        src: many
	        dst: many
	EOT
}

# ends WHEEL: "ENTRIES ZIP64-COUNT ZIP64-OFFSET-OK" as the end records say,
# then how many entries Python's zipfile lists.
ends() {
	"$PYTHON" - "$1" <<-\PY
	import struct, sys, zipfile
	d = open(sys.argv[1], "rb").read()
	e, loc = d[-22:], d[-42:-22]
	assert e[:4] == b"PK\5\6", e
	n = struct.unpack("<H", e[10:12])[0]
	if loc[:4] != b"PK\6\7":
	    print(n, "none", "-")
	else:
	    at = struct.unpack("<Q", loc[8:16])[0]
	    z = d[at:at + 56]
	    assert z[:4] == b"PK\6\6", z[:4]
	    cd_size, cd_off = struct.unpack("<QQ", z[40:56])
	    ok = d[cd_off:cd_off + 4] == b"PK\1\2" and cd_off + cd_size == at
	    print(n, struct.unpack("<Q", z[32:40])[0], ok)
	print(len(zipfile.ZipFile(sys.argv[1]).infolist()))
	PY
}

expect_success 'a small wheel: the plain end record only' '
	recipe 2 3 &&
	"$TFBUILD" recipe --target x86_64 r.yaml --out small 2>err &&
	ends small/many-1.0.0-py3-none-any.whl >out &&
	n=$(sed -n 2p out) &&
	echo "$n none -" >expect &&
	echo "$n" >>expect &&
	compare expect out
'

expect_success '300,000 entries: the ZIP64 end records hold the count' '
	recipe 30 10000 &&
	"$TFBUILD" recipe --target x86_64 r.yaml --out w 2>err &&
	whl=w/many-1.0.0-py3-none-any.whl &&
	ends $whl >out &&
	n=$(sed -n 2p out) &&
	test "$n" -gt 300000 &&
	echo "65535 $n True" >expect &&
	echo "$n" >>expect &&
	compare expect out
'

expect_success 'tfbuild verify reads it' '
	"$TFBUILD" verify w/many-1.0.0-py3-none-any.whl
'

expect_success 'pip installs it: every file is there' '
	/usr/bin/python3 -m venv venv &&
	venv/bin/pip install -q --no-index --no-deps --disable-pip-version-check \
		w/many-1.0.0-py3-none-any.whl &&
	find venv/lib/python3*/site-packages/many -type f >files &&
	test $(wc -l <files) = 300000
'

expect_success 'without the ZIP64 records (minizip alone) it is refused' '
	mkdir bare &&
	"$PYTHON" -c "import sys; d = open(sys.argv[1], \"rb\").read(); open(sys.argv[2], \"wb\").write(d[:-98] + d[-22:])" \
		w/many-1.0.0-py3-none-any.whl bare/many-1.0.0-py3-none-any.whl &&
	expect_code 6 "$TFBUILD" verify bare/many-1.0.0-py3-none-any.whl 2>err &&
	grep "bare/many-1.0.0-py3-none-any.whl: the zip archive.s central directory cannot be read" err
'

test_done
