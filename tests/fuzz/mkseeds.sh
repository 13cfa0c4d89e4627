#!/bin/sh
# Build the binary seeds of the fuzz corpora from the repository's own
# sources and tools, so no binary is committed:
#   mkseeds.sh OUTDIR TEST_WHEEL NAME...
# writes OUTDIR/NAME/ for each harness NAME (empty for the text formats):
# small ELF files from tests/fixtures/elf, archives in each format
# tf_extract reads (with the members it must refuse), and wheels packed
# by tfbuild's writer, stored so their WHEEL Tag line shows in the bytes.
# Built in a temporary directory and renamed; deterministic for a given
# compiler.
set -e
out=$1 tw=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
fix=$here/../fixtures/elf
cc=${CC_SEEDS:-gcc}
py=${PYTHON:-/usr/bin/python3}
tmp=$out.tmp
rm -rf "$tmp"
for name in "$@" elf extract wheel; do
	mkdir -p "$tmp/$name"
done

# ELF: small (stripped, no separate code segment) but with what the
# reader walks: DT_NEEDED, SONAME, RUNPATH, version needs and
# definitions, an ISA note, a relocatable object.
small="-shared -fPIC -s -Wl,-z,noseparate-code -Wl,--build-id=none -Wl,-z,norelro"
e=$tmp/elf
$cc $small -o "$e/libtiny.so" "$fix/tiny.c"
$cc $small -o "$e/libnew.so" "$fix/newglibc.c"
$cc $small -Wl,-z,x86-64-v3 -o "$e/libv3.so" "$fix/tiny.c"
$cc $small -Wl,-soname,libfoo.so.1 -Wl,--version-script="$fix/foo.map" \
	-o "$e/libfoo.so.1" "$fix/foo.c"
$cc $small -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' \
	-o "$e/libusefoo.so" "$fix/usefoo.c" "$e/libfoo.so.1"
$cc -c -o "$e/obj.o" "$fix/tiny.c"
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	aarch64-linux-gnu-gcc $small -Wl,-z,max-page-size=4096 \
		-o "$e/libtiny-aarch64.so" "$fix/tiny.c"
fi

# Archives: a small tree in each format, and one of each refusal.
"$py" - "$tmp/extract" <<'PY'
import bz2, gzip, io, lzma, sys, tarfile, zipfile

tarfile.RECORDSIZE = 1024  # no 10 KiB padding: keep seeds small
out = sys.argv[1]
files = [("pkg-1.0/README", b"hello\n", 0o644),
         ("pkg-1.0/src/a.c", b"int a(void) { return 1; }\n", 0o644),
         ("pkg-1.0/configure", b"#!/bin/sh\necho ok\n", 0o755)]

def info(name, kind=tarfile.REGTYPE, size=0, mode=0o644, link=""):
    i = tarfile.TarInfo(name)
    i.type, i.size, i.mode, i.linkname = kind, size, mode, link
    i.mtime, i.uid, i.gid, i.uname, i.gname = 1700000000, 0, 0, "", ""
    return i

def tar(path, members, squeeze=bytes, fmt=tarfile.USTAR_FORMAT):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as t:
        for name, kind, data, link in members:
            run = kind == tarfile.DIRTYPE or name.endswith("configure")
            t.addfile(info(name, kind, len(data), 0o755 if run else 0o644,
                           link), io.BytesIO(data))
    with open(path, "wb") as f:
        f.write(squeeze(b.getvalue()))

tree = [("pkg-1.0/", tarfile.DIRTYPE, b"", "")]
tree += [(n, tarfile.REGTYPE, d, "") for n, d, _ in files]
tree += [("pkg-1.0/link", tarfile.SYMTYPE, b"", "README"),
         ("pkg-1.0/src/up", tarfile.SYMTYPE, b"", "../README"),
         ("pkg-1.0/hard", tarfile.LNKTYPE, b"", "pkg-1.0/README")]
tar(out + "/tree.tar", tree)
tar(out + "/tree.tar.gz", tree, lambda b: gzip.compress(b, mtime=0))
tar(out + "/tree.tar.xz", tree, lzma.compress)
tar(out + "/tree.tar.bz2", tree, bz2.compress)
tar(out + "/pax.tar", [("pkg-1.0/" + "d" * 120 + "/long-name.txt",
                        tarfile.REGTYPE, b"x\n", "")], fmt=tarfile.PAX_FORMAT)
tar(out + "/gnu.tar", [("pkg-1.0/" + "g" * 120, tarfile.REGTYPE, b"y\n", "")],
    fmt=tarfile.GNU_FORMAT)
tar(out + "/implicit-dirs.tar", [("pkg-1.0/a/b/c.txt", tarfile.REGTYPE, b"c\n",
                                  "")])
tar(out + "/dotdot.tar", [("../e.txt", tarfile.REGTYPE, b"e\n", "")])
tar(out + "/absolute.tar", [("/tmp/abs.txt", tarfile.REGTYPE, b"a\n", "")])
tar(out + "/symlink-out.tar", [("pkg-1.0/l", tarfile.SYMTYPE, b"", "../../x")])
tar(out + "/hardlink-out.tar", [("pkg-1.0/h", tarfile.LNKTYPE, b"", "../x")])
tar(out + "/fifo.tar", [("pkg-1.0/f", tarfile.FIFOTYPE, b"", "")])
tar(out + "/device.tar", [("pkg-1.0/d", tarfile.CHRTYPE, b"", "")])
for name, method in (("tree.zip", zipfile.ZIP_DEFLATED),
                     ("stored.zip", zipfile.ZIP_STORED)):
    with zipfile.ZipFile(out + "/" + name, "w", method) as z:
        for n, d, mode in files:
            zi = zipfile.ZipInfo(n, (2023, 11, 14, 22, 13, 20))
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = method
            z.writestr(zi, d)
PY

# Zip structures for zipcheck (valid, and each defect it refuses) and
# xz/lzma headers for xzmem (filter chains, checks, several streams,
# damage), all small.
"$py" - "$tmp/zipcheck" "$tmp/xzmem" <<'PY'
import io, lzma, struct, sys, zipfile

zc, xm = sys.argv[1], sys.argv[2]

def put(d, name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)

def zipped(method=zipfile.ZIP_DEFLATED, names=("x/__init__.py", "x-1.0.dist-info/RECORD"),
           zip64=False, comment=b""):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for n in names:
            zi = zipfile.ZipInfo(n, (2023, 11, 14, 22, 13, 20))
            zi.compress_type = method
            with z.open(zi, "w", force_zip64=zip64) as f:
                f.write(b"print('x')\n" * 3)
        z.comment = comment
    return b.getvalue()

ok = zipped()
put(zc, "deflated.zip", ok)
put(zc, "stored.zip", zipped(zipfile.ZIP_STORED))
put(zc, "zip64.zip", zipped(zip64=True))
put(zc, "comment.zip", zipped(comment=b"hi"))
put(zc, "trailing.zip", ok + b"TRAILER")
put(zc, "truncated.zip", ok[: len(ok) // 2])
put(zc, "empty.zip", zipped(names=()))
put(zc, "duplicate.zip", zipped(names=("x/a.py", "x/a.py")))
cd = ok.rfind(b"PK\x01\x02")  # rename the last central entry only
put(zc, "cd-name.zip", ok[:cd + 46] + b"y" + ok[cd + 47:])
i = ok.find(b"PK\x01\x02")    # point both central entries at one header
j = ok.find(b"PK\x01\x02", i + 1)
put(zc, "overlap.zip", ok[:j + 42] + ok[i + 42:i + 46] + ok[j + 46:])

data = b"int a(void) { return 1; }\n" * 20
put(xm, "preset0.xz", lzma.compress(data, preset=0))
put(xm, "preset9e.xz", lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
put(xm, "sha256.xz", lzma.compress(data, check=lzma.CHECK_SHA256))
put(xm, "nocheck.xz", lzma.compress(data, check=lzma.CHECK_NONE))
put(xm, "delta-x86.xz", lzma.compress(data, filters=[
    {"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_X86},
    {"id": lzma.FILTER_LZMA2, "preset": 1}]))
put(xm, "dict64m.xz", lzma.compress(b"x", filters=[
    {"id": lzma.FILTER_LZMA2, "dict_size": 64 << 20}]))
two = lzma.compress(data) + b"\0" * 4 + lzma.compress(b"y", preset=1)
put(xm, "two-streams.xz", two)
put(xm, "empty.xz", lzma.compress(b""))
put(xm, "alone.lzma", lzma.compress(data, format=lzma.FORMAT_ALONE))
one = lzma.compress(data)
put(xm, "truncated.xz", one[: len(one) // 2])
put(xm, "bad-index.xz", one[:-14] + bytes([one[-14] ^ 0xff]) + one[-13:])
PY

# Wheels from tfbuild's own writer.
w=$tmp/wheel/build
mkdir -p "$w/x"
printf 'print("x")\n' >"$w/x/__init__.py"
printf 'a comma in the name\n' >"$w/x/a,b.txt"
"$tw" pack "$tmp/wheel" --name x --version 1.0 --tag py3-none-any \
	--level 0 --summary 'A seed' --license MIT --epoch 1700000000 \
	--entry-point console_scripts:x=x:main \
	"$w/x/__init__.py=x/__init__.py" "$w/x/a,b.txt=x/a,b.txt" >/dev/null
"$tw" pack "$tmp/wheel" --name x --version 1.0 \
	--tag cp311-cp311-manylinux_2_17_x86_64 --level 0 --epoch 1700000000 \
	"$e/libusefoo.so=x/libusefoo.so" "$e/libfoo.so.1=x/lib/libfoo.so.1" \
	"$w/x/__init__.py=x/__init__.py" >/dev/null
mkdir "$w/deflated"
"$tw" pack "$w/deflated" --name x --version 1.0 --tag py2.py3-none-any \
	--level 9 --epoch 1700000000 "$w/x/__init__.py=x/__init__.py" >/dev/null
mv "$w/deflated/x-1.0-py2.py3-none-any.whl" "$tmp/wheel/deflated.whl"
rm -rf "$w"

rm -rf "$out"
mv "$tmp" "$out"
