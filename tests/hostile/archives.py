#!/usr/bin/python3
"""Generate the hostile archive corpus into OUTDIR (deterministic).

    archives.py OUTDIR OUTSIDE

Writes one archive per case and OUTDIR/cases.tsv: one line per case,
NAME<TAB>FILE<TAB>STRIP<TAB>EXIT<TAB>MESSAGE-REGEX (the regex is matched
against the whole stderr with grep -E; @A@ stands for the archive's file
name). OUTSIDE is a directory the archives aim at: nothing may appear
there. Sizes of the bombs are small on disk and big when extracted; the
test runs them under small limits (TFBUILD_EXTRACT_MAX_BYTES, ...).
"""
import gzip, io, lzma, os, random, struct, subprocess, sys, tarfile, zipfile, zlib

out, outside = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
cases = []
MTIME = 315532800


def ti(name, kind="file", target="", mode=None, size=0):
    t = tarfile.TarInfo(name)
    t.mtime = MTIME
    t.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE,
              "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
              "chr": tarfile.CHRTYPE, "blk": tarfile.BLKTYPE,
              "fifo": tarfile.FIFOTYPE}[kind]
    t.mode = mode if mode is not None else (0o755 if kind == "dir" else 0o644)
    t.linkname = target
    t.size = size
    if kind in ("chr", "blk"):
        t.devmajor, t.devminor = 1, 3
    return t


def tar(name, members, exit_code, regex, fmt=tarfile.PAX_FORMAT,
        strip=0, comp="gz"):
    """members: (name, kind, target, data, mode)"""
    fn = name + ".tar." + comp
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt,
                      encoding="utf-8", errors="surrogateescape") as t:
        for m in members:
            mname, kind, target, data, mode = (tuple(m) + ("file", "", b"x\n", None)[len(m) - 1:])[:5]
            info = ti(mname, kind, target, mode, len(data) if kind == "file" else 0)
            t.addfile(info, io.BytesIO(data) if kind == "file" else None)
    data = raw.getvalue()
    if comp == "gz":
        data = gzip.compress(data, mtime=0)
    elif comp == "xz":
        data = lzma.compress(data, format=lzma.FORMAT_XZ)
    with open(os.path.join(out, fn), "wb") as f:
        f.write(data)
    cases.append((name, fn, strip, exit_code, regex))


def member(m):
    return "member '" + m + "'"

OUT = outside
ok = (0, "")
tar("dotdot", [("pkg/ok",), ("../escape",)], 5,
    r"@A@: member '\.\./escape': path escapes the extraction directory")
tar("dotdot-mid", [("pkg/a/../../../escape",)], 5,
    r"path escapes the extraction directory")
tar("absolute", [(OUT + "/abs",)], 5,
    r"@A@: member '/.*/abs': absolute path is not allowed")
tar("sym-abs-write", [("pkg/l", "sym", OUT), ("pkg/l/through",)], 5,
    r"member 'pkg/l': symlink target '/.*' points outside the tree")
tar("sym-rel-write", [("pkg/l", "sym", "../../.."), ("pkg/l/through",)], 5,
    r"member 'pkg/l': symlink target '\.\./\.\./\.\.' points outside the tree")
tar("sym-then-file-over", [("pkg/d/",  "dir"), ("pkg/l", "sym", "d"),
                          ("pkg/l", "file", "", b"replaced\n")], 5,
    r"@A@: member 'pkg/l': replaces a symlink of the same name extracted before")
tar("hard-outside", [("pkg/h", "hard", "../outside/secret")], 5,
    r"member 'pkg/h': hardlink target '\.\./outside/secret' points outside the tree")
tar("hard-abs", [("pkg/h", "hard", "/etc/passwd")], 5,
    r"member 'pkg/h': hardlink target '/etc/passwd' points outside the tree")
tar("hard-to-sym", [("pkg/s", "sym", "x"), ("pkg/h", "hard", "pkg/s")], 5,
    r"member 'pkg/h': hardlink target 'pkg/s' is a symlink")
tar("sym-chain", [("pkg/a/b/c/", "dir"), ("pkg/a/b/c/l1", "sym", ".."),
                  ("pkg/a/b/l2", "sym", "c/l1/.."), ("pkg/l3", "sym", "a/b/l2/../../.."),
                  ("pkg/l3/x",)], 5,
    r"symlink target '.*' (has '\.\.' after a name|points outside the tree)")
tar("sym-loop", [("pkg/a", "sym", "b"), ("pkg/b", "sym", "a"), ("pkg/a/x",)], 5,
    r"@A@: member 'pkg/a/x': Cannot extract through symlink pkg/a/x")
tar("sym-self", [("pkg/a", "sym", "a"), ("pkg/a/x",)], 5,
    r"@A@: member 'pkg/a/x': Cannot extract through symlink pkg/a/x")
tar("chr-device", [("pkg/null", "chr")], 5,
    r"member 'pkg/null': device nodes are not allowed")
tar("blk-device", [("pkg/sda", "blk")], 5,
    r"member 'pkg/sda': device nodes are not allowed")
tar("fifo", [("pkg/fifo", "fifo")], 5, r"member 'pkg/fifo': FIFOs are not allowed")
tar("setuid", [("pkg/su", "file", "", b"#!/bin/sh\n", 0o6755),
               ("pkg/sticky/", "dir", "", b"", 0o1777)], 0, "")
tar("file-then-dir", [("pkg/x",), ("pkg/x/",  "dir"), ("pkg/x/y",)], 5,
    r"@A@: member 'pkg/x/': replaces a file of the same name extracted before")
tar("dir-then-file", [("pkg/x/", "dir"), ("pkg/x/y",), ("pkg/x",)], 5,
    r"@A@: member 'pkg/x': replaces a directory of the same name extracted before")
tar("long-name", [("pkg/" + "/".join(["d" * 200] * 25) + "/f",)], 5,
    r"@A@: member 'pkg/d{96}[.][.][.]': name is longer than 4095 bytes")
tar("non-utf8", [("pkg/caf\udce9",), ("pkg/\udcff\udcfe",)], 0, "")
tar("term-escape", [("pkg/\x1b]0;owned\x07\x1b[2J../../../x",)], 5,
    r"@A@: member 'pkg/\?\]0;owned\?\?\[2J\.\./\.\./\.\./x': path escapes")
tar("backslash", [("pkg\\..\\..\\evil",), ("pkg/ok",)], 0, "")
tar("empty-name", [("",), ("pkg/ok",)], 5, r"@A@: member with an empty name")
tar("dot-names", [(".", "dir"), ("./",  "dir"), ("pkg/./ok",), ("./pkg/.",  "dir")], 0, "")

# zip with backslash (a Windows archiver's separator) and .. inside
def zipf(name, entries, exit_code, regex, fn=None):
    fn = fn or name + ".zip"
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in entries:
            zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
    with open(os.path.join(out, fn), "wb") as f:
        f.write(b.getvalue())
    cases.append((name, fn, 0, exit_code, regex))

zipf("zip-backslash-dotdot", [("pkg/ok", b"x"), ("..\\..\\evil", b"x")], 5,
     r"@A@: member '\.\./\.\./evil': path escapes|@A@: member '\.\.\\\\\.\.\\\\evil'")
zipf("zip-as-targz", [("pkg/ok", b"x\n")], 0, "", fn="zip-as-targz.tar.gz")
zipf("zip-as-targz-dotdot", [("../evil", b"x\n")], 5,
     r"@A@: member '\.\./evil': path escapes", fn="zip-as-targz-dotdot.tar.gz")

# A gzip bomb: 64 MiB of zeros in one member, about 64 KiB on disk.
def bomb(name, size):
    fn = name + ".tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        info = ti("pkg/zeros", size=size)
        class Z(io.RawIOBase):
            left = size
            def readinto(self, b):
                n = min(len(b), self.left); b[:n] = bytes(n); self.left -= n; return n
        t.addfile(info, Z())
    with open(os.path.join(out, fn), "wb") as f:
        f.write(gzip.compress(raw.getvalue(), 9, mtime=0))
    cases.append((name, fn, 0, 5, r"@A@: member 'pkg/zeros': extracting it would exceed the limit of [0-9]+ bytes \(TFBUILD_EXTRACT_MAX_BYTES\)"))

bomb("gzip-bomb", 64 << 20)

# Many entries (over the test's entry limit).
tar("entry-bomb", [("pkg/f%05d" % i, "file", "", b"") for i in range(20001)], 5,
    r"@A@: more than [0-9]+ members \(TFBUILD_EXTRACT_MAX_ENTRIES\)")

# A sparse member claiming 1 TiB: pax 1.0 sparse with a one-chunk map.
def sparse(name, realsize):
    fn = name + ".tar.gz"
    sparse_map = b"1\n0\n1\n"
    body = sparse_map + bytes(512 - len(sparse_map)) + b"x" + bytes(511)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        info = ti("pkg/GNUSparseFile.0/huge", size=len(body))
        info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                            "GNU.sparse.name": "pkg/huge",
                            "GNU.sparse.realsize": str(realsize)}
        t.addfile(info, io.BytesIO(body))
    with open(os.path.join(out, fn), "wb") as f:
        f.write(gzip.compress(raw.getvalue(), mtime=0))
    cases.append((name, fn, 0, 5, r"@A@: member 'pkg/huge': extracting it would exceed the limit of [0-9]+ bytes"))

sparse("sparse-terabyte", 1 << 40)

# A truncated gzip: half of a good archive.
raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
    for i in range(40):
        d = bytes((i * 7 + j) % 251 for j in range(4000))
        t.addfile(ti("pkg/f%d" % i, size=len(d)), io.BytesIO(d))
good = gzip.compress(raw.getvalue(), mtime=0)
with open(os.path.join(out, "truncated.tar.gz"), "wb") as f:
    f.write(good[:len(good) // 2])
cases.append(("truncated-gzip", "truncated.tar.gz", 0, 5,
              r"@A@: (member '[^']*': )?truncated gzip input"))

# Garbage posing as an archive.
with open(os.path.join(out, "garbage.tar.gz"), "wb") as f:
    f.write(b"\x1f\x8b" + bytes(range(256)) * 4)
cases.append(("garbage-gzip", "garbage.tar.gz", 0, 5, r"@A@: (Unrecognized archive format|.*gzip)"))

# Many tiny files: 10,000 here (the 100,000 of docs/performance.md are
# timed once by bench/, not in every suite run).
tar("many-files", [("pkg/d%02d/f%04d" % (i % 50, i), "file", "", b"") for i in range(int(os.environ.get("HOSTILE_MANY", "10000")))], 0, "")

# xz whose block header asks for a 3 GiB dictionary.
def xz_bigdict(name):
    fn = name + ".tar.xz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        t.addfile(ti("pkg/ok", size=2), io.BytesIO(b"x\n"))
    data = bytearray(lzma.compress(raw.getvalue(), format=lzma.FORMAT_XZ,
                     filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 1 << 20}]))
    # Stream header is 12 bytes; the block header follows.
    hs = (data[12] + 1) * 4
    hdr = data[12:12 + hs]
    # Filter flags: id 0x21, props size 1, props = dict size code.
    i = hdr.index(b"\x21\x01", 2)
    hdr[i + 2] = 38  # 3 GiB
    crc = zlib.crc32(bytes(hdr[:-4])) & 0xffffffff
    hdr[-4:] = struct.pack("<I", crc)
    data[12:12 + hs] = hdr
    with open(os.path.join(out, fn), "wb") as f:
        f.write(data)
    cases.append((name, fn, 0, 5, r"@A@: decompressing it needs [0-9]+ MiB of memory, over the limit of [0-9]+ MiB \(TFBUILD_EXTRACT_MAX_MEMORY\)"))

xz_bigdict("xz-memory")

# xz whose index claims 2^28 blocks (one real block; found by make fuzz:
# liblzma, asked with no limit, allocated 4 GiB for the records before
# reading them; now the index is read within the memory budget).
def xz_index_claim(name):
    fn = name + ".tar.xz"
    raw = io.BytesIO()
    # Incompressible and past libarchive's first read, so that it opens
    # the archive and only the index is wrong.
    noise = random.Random(1).randbytes(300000)
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        t.addfile(ti("pkg/noise", size=len(noise)), io.BytesIO(noise))
    data = lzma.compress(raw.getvalue(), format=lzma.FORMAT_XZ)
    footer = data[-12:]
    size = (struct.unpack("<I", footer[4:8])[0] + 1) * 4
    index = data[-12 - size:-12]

    def vli(n):
        b = bytearray()
        while n >= 0x80:
            b.append(n & 0x7f | 0x80)
            n >>= 7
        return bytes(b + bytes([n]))
    # Indicator, record count (was 1), the real record, padding, CRC32.
    body = b"\0" + vli(1 << 28) + index[2:size - 4].rstrip(b"\0")
    body += b"\0" * (-len(body) % 4)
    body += struct.pack("<I", zlib.crc32(body) & 0xffffffff)
    tail = struct.pack("<I", len(body) // 4 - 1) + footer[8:10]
    footer = struct.pack("<I", zlib.crc32(tail) & 0xffffffff) + tail + b"YZ"
    with open(os.path.join(out, fn), "wb") as f:
        f.write(data[:-12 - size] + body + footer)
    cases.append((name, fn, 0, 5, r"@A@: decompressing it needs [0-9]+ MiB of memory, over the limit of [0-9]+ MiB \(TFBUILD_EXTRACT_MAX_MEMORY\)"))

xz_index_claim("xz-index-claim")
tar("xz-ok", [("pkg/ok",)], 0, "", comp="xz")

with open(os.path.join(out, "cases.tsv"), "w") as f:
    for c in cases:
        f.write("\t".join(str(x) for x in c) + "\n")
print(len(cases))
