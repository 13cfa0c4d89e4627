#!/bin/sh
# Extract: a corrupt, truncated, empty or missing archive is an error that
# names the archive and, when libarchive knows it, the member.
. "$(dirname "$0")/../lib/test-lib.sh"

# check ARCHIVE MESSAGE: extracting ARCHIVE fails with exactly MESSAGE.
check() {
	rm -rf dest && mkdir dest &&
	expect_code 1 "$TOOL_DIR/test-extract" extract "$1" dest 1 2>err &&
	echo "tfbuild: $2" >expect &&
	compare expect err
}

expect_success 'set up archives' '
	"$PYTHON" -c "
import io, lzma, random, tarfile, zipfile
data = random.Random(1).randbytes(200000)
with tarfile.open(\"good.tar\", \"w\") as t:
    for name in (\"pkg/big.bin\", \"pkg/after.bin\"):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
raw = open(\"good.tar\", \"rb\").read()
damaged = bytearray(raw)
damaged[512 + 200192 + 148] ^= 1   # the 2nd header checksum
open(\"damaged.tar\", \"wb\").write(damaged)
with zipfile.ZipFile(\"good.zip\", \"w\", zipfile.ZIP_DEFLATED) as z:
    z.writestr(\"pkg/big.bin\", data)
zipped = open(\"good.zip\", \"rb\").read()
open(\"trunc.zip\", \"wb\").write(zipped[:len(zipped) // 2])
open(\"zeros.tar\", \"wb\").write(bytes(10240))
open(\"good.tar.xz\", \"wb\").write(lzma.compress(raw))
" &&
	gzip -n -k good.tar &&
	head -c 100000 good.tar.gz >trunc.tar.gz &&
	head -c 100000 good.tar.xz >trunc.tar.xz &&
	echo "not an archive" >garbage.tar.gz &&
	: >empty.tar.gz &&
	mkdir d && "$TOOL_DIR/test-extract" extract good.tar.gz d 1
'

expect_success 'a truncated tar.gz names the member it was reading' '
	check trunc.tar.gz "trunc.tar.gz: member '\''pkg/big.bin'\'': truncated gzip input"
'

expect_success 'a truncated tar.xz names the member it was reading' '
	check trunc.tar.xz "trunc.tar.xz: member '\''pkg/big.bin'\'': Lzma library error:  No progress is possible"
'

expect_success 'a truncated zip names the member' '
	check trunc.zip "trunc.zip: member '\''pkg/big.bin'\'': ZIP decompression failed (-5)"
'

expect_success 'a damaged tar header is an error, not skipped' '
	check damaged.tar "damaged.tar: Damaged tar archive"
'

expect_success 'a file that is not an archive' '
	check garbage.tar.gz "garbage.tar.gz: Unrecognized archive format"
'

expect_success 'an empty file' '
	check empty.tar.gz "empty.tar.gz: Unrecognized archive format"
'

expect_success 'an archive with no members' '
	check zeros.tar "zeros.tar: archive is empty"
'

expect_success 'a missing archive' '
	check missing.tar.gz "missing.tar.gz: cannot open '\''missing.tar.gz'\'': No such file or directory"
'

expect_success 'a missing destination' '
	expect_code 1 "$TOOL_DIR/test-extract" extract good.tar.gz nodir 1 2>err &&
	echo "tfbuild: cannot open directory '\''nodir'\'': No such file or directory" >expect &&
	compare expect err
'

test_done
