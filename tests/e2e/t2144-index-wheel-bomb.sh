#!/bin/sh
# A target wheel unpacks into ${target_site} within the limits of a
# source archive (issue 35 item 6; docs/security.md#limits): a wheel of
# 4 GiB of zeros (4 MiB deflated) used to run until the disk was full.
# It is refused at its header, quickly, naming the wheel, the member and
# the limit, and leaves no site and no temporary directory behind. A
# smaller bomb shows the limit is what refuses it: within the 256 MiB
# floor it unpacks, with the floor lowered it is refused. A member whose
# headers claim 1000 bytes is charged for the bytes it really gives.
. "$(dirname "$0")/../lib/test-lib.sh"

unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL TFBUILD_PIP_PYTHON \
	TFBUILD_EXTRACT_MAX_BYTES TFBUILD_EXTRACT_MAX_RATIO \
	TFBUILD_EXTRACT_MIN_BYTES TFBUILD_EXTRACT_MAX_ENTRIES
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 \
	PIP_FIND_LINKS=$TRASH/idx
SQ="'"

# bomb NAME MIB: a wheel whose member NAME/zeros is MIB MiB of zeros.
# Deflate's 16 MiB of zeros, flushed to a byte boundary, is one piece
# repeated: the wheel is made in seconds, not by deflating 4 GiB.
bomb() {
	"$PYTHON" - "$1" "$2" <<'EOF_PY'
import sys, zipfile, zlib
name, mib = sys.argv[1], int(sys.argv[2])
BLK = 1 << 24
c = zlib.compressobj(9, zlib.DEFLATED, -15)
piece = c.compress(bytes(BLK)) + c.flush(zlib.Z_FULL_FLUSH)
class Same:
    def compress(self, data):
        assert len(data) == BLK
        return piece
    def flush(self):
        return b"\x03\x00"
info = f"{name}-1.0.dist-info"
with zipfile.ZipFile(f"idx/{name}-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    real = zipfile._get_compressor
    zipfile._get_compressor = lambda *a, **k: Same()
    with z.open(f"{name}/zeros", "w", force_zip64=True) as f:
        blk = bytes(BLK)
        for _ in range(mib // 16):
            f.write(blk)
    zipfile._get_compressor = real
EOF_PY
}
# recipe NAME: a recipe with the wheel NAME==1.0, locked
recipe() {
	mkdir -p "$1" && cat >"$1/r.yaml" <<EOF &&
schema: 1
name: $1
version: "1.0"
target-wheels: ["$1==1.0"]
steps:
  - name: s
    run: ls -l \${target_site}/$1 >\$STAGE/ls
EOF
	"$TFBUILD" lock "$1/r.yaml" >/dev/null 2>&1
}
# liar: a wheel whose member liar/zeros, 64 MiB of zeros, says 1000
# bytes in its local header and in the central directory.
liar() {
	"$PYTHON" - <<'EOF_PY'
import struct, zipfile
info = "liar-1.0.dist-info"
p = "idx/liar-1.0-py3-none-any.whl"
with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: liar\nVersion: 1.0\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("liar/zeros", bytes(64 << 20))
b = bytearray(open(p, "rb").read())
for sig, size_at, len_at, name_at in ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46)):
    i = b.find(sig)
    while i >= 0:
        n = struct.unpack_from("<H", b, i + len_at)[0]
        if b[i + name_at:i + name_at + n] == b"liar/zeros":
            struct.pack_into("<I", b, i + size_at, 1000)
        i = b.find(sig, i + 4)
open(p, "wb").write(bytes(b))
EOF_PY
}
sites() { ls -a home/.cache/tfbuild/target-sites 2>/dev/null | grep -v '^\.\.\?$'; }

mkdir idx && bomb bigbomb 4096 && bomb smallbomb 64 && liar || exit 1

expect_success 'the 4 GiB bomb is 4 MiB, and a real zip of 4 GiB' '
	test $(wc -c <idx/bigbomb-1.0-py3-none-any.whl) -lt $((5 << 20)) &&
	"$PYTHON" -c "
import zipfile
z = zipfile.ZipFile(\"idx/bigbomb-1.0-py3-none-any.whl\")
print(z.getinfo(\"bigbomb/zeros\").file_size)" >size &&
	echo 4294967296 >expect && compare expect size
'

expect_success 'a target wheel of 4 GiB of zeros is refused at its member, quickly, nothing left' '
	recipe bigbomb &&
	expect_code 5 timeout 60 "$TFBUILD" recipe bigbomb/r.yaml >log 2>err &&
	size=$(wc -c <idx/bigbomb-1.0-py3-none-any.whl) &&
	echo "tfbuild: wheel ${SQ}bigbomb-1.0-py3-none-any.whl${SQ}: member ${SQ}bigbomb/zeros${SQ}: unpacking it would exceed the limit of $((size * 100)) bytes (TFBUILD_EXTRACT_MAX_RATIO times the archive${SQ}s $size bytes: TFBUILD_EXTRACT_MAX_RATIO, TFBUILD_EXTRACT_MIN_BYTES); refused" >expect &&
	grep "bigbomb/zeros" err >actual &&
	compare expect actual &&
	test -z "$(sites)" &&
	test $(du -sm home/.cache/tfbuild | cut -f1) -lt 64
'

expect_success 'TFBUILD_EXTRACT_MAX_BYTES bounds a wheel as it bounds an archive' '
	expect_code 5 env TFBUILD_EXTRACT_MAX_BYTES=1M "$TFBUILD" recipe bigbomb/r.yaml >log 2>err &&
	grep -qF "member ${SQ}bigbomb/zeros${SQ}: unpacking it would exceed the limit of 1048576 bytes (TFBUILD_EXTRACT_MAX_BYTES); refused" err &&
	test -z "$(sites)"
'

expect_success 'a 64 MiB bomb is within the 256 MiB floor and unpacks (the limit is what refuses)' '
	recipe smallbomb &&
	"$TFBUILD" recipe smallbomb/r.yaml >log 2>&1 &&
	grep -q " 67108864 .* zeros$" smallbomb/build/r/*/stage/s/ls &&
	test "$(sites | wc -l)" = 1
'

expect_success 'with the floor lowered, the 64 MiB bomb is refused' '
	rm -rf smallbomb/build home/.cache/tfbuild/target-sites &&
	expect_code 5 env TFBUILD_EXTRACT_MIN_BYTES=1M "$TFBUILD" recipe smallbomb/r.yaml >log 2>err &&
	grep -qF "member ${SQ}smallbomb/zeros${SQ}: unpacking it would exceed the limit of" err &&
	test -z "$(sites)"
'

expect_success 'TFBUILD_EXTRACT_MAX_ENTRIES bounds a wheel'"$SQ"'s members' '
	expect_code 5 env TFBUILD_EXTRACT_MAX_ENTRIES=2 "$TFBUILD" recipe smallbomb/r.yaml >log 2>err &&
	grep -qF "tfbuild: wheel ${SQ}smallbomb-1.0-py3-none-any.whl${SQ}: more than 2 members (TFBUILD_EXTRACT_MAX_ENTRIES); refused" err &&
	test -z "$(sites)"
'

expect_success 'a member whose headers claim 1000 bytes is charged for the bytes it gives' '
	"$PYTHON" -c "
import zipfile
print(zipfile.ZipFile(\"idx/liar-1.0-py3-none-any.whl\").getinfo(\"liar/zeros\").file_size)" >size &&
	echo 1000 >expect && compare expect size &&
	recipe liar &&
	expect_code 5 env TFBUILD_EXTRACT_MIN_BYTES=1M "$TFBUILD" recipe liar/r.yaml >log 2>err &&
	size=$(wc -c <idx/liar-1.0-py3-none-any.whl) &&
	grep -qxF "tfbuild: wheel ${SQ}liar-1.0-py3-none-any.whl${SQ}: member ${SQ}liar/zeros${SQ}: unpacking it would exceed the limit of $((size * 100)) bytes (TFBUILD_EXTRACT_MAX_RATIO times the archive${SQ}s $size bytes: TFBUILD_EXTRACT_MAX_RATIO, TFBUILD_EXTRACT_MIN_BYTES); refused" err &&
	test -z "$(sites)"
'

test_done
