#!/usr/bin/python3
"""Generate the hostile wheel corpus for `tfbuild verify` into OUTDIR.

    wheels.py OUTDIR

Every case is one file OUTDIR/NAME/demo-1.0-py3-none-any.whl (so its
name is valid and only its content is hostile) and a line of
OUTDIR/cases.tsv: NAME<TAB>EXIT<TAB>MESSAGE-REGEX. A case expected to
pass must also install with pip with exactly the files RECORD lists
(the test checks that).
"""
import base64, hashlib, io, os, struct, sys, warnings, zipfile, zlib
warnings.simplefilter("ignore")

out = sys.argv[1]
cases = []
WHL = "demo-1.0-py3-none-any.whl"
DI = "demo-1.0.dist-info/"
META = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: demo\n"
WHEEL = b"Wheel-Version: 1.0\nGenerator: hostile\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def record(files, extra=b""):
    lines = ["%s,%s,%d" % (e[0], digest(e[1]), len(e[1])) for e in files]
    return ("\n".join(lines + [DI + "RECORD,,"]) + "\n").encode() + extra


def base_files():
    return [("demo/__init__.py", b"X = 1\n"), (DI + "METADATA", META), (DI + "WHEEL", WHEEL)]


def write(name, entries, code, rx, post=None, comment=b""):
    """entries: list of (name, data[, zinfo tweak])"""
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for e in entries:
            zi = zipfile.ZipInfo(e[0], date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            if len(e) > 2:
                e[2](zi)
            z.writestr(zi, e[1])
        z.comment = comment
    data = b.getvalue()
    if post:
        data = post(data)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, WHL), "wb") as f:
        f.write(data)
    cases.append((name, code, rx))


def normal(files=None, rec=None):
    files = files if files is not None else base_files()
    return files + [(DI + "RECORD", rec if rec is not None else record(files))]

W = r"demo-1\.0-py3-none-any\.whl"
write("good", normal(), 0, "")
f = base_files()
write("record-missing-entry", f + [(DI + "RECORD", record(f[1:]))], 6, W + r": .*demo/__init__\.py.*(RECORD|not listed)")
write("record-extra-entry", f + [(DI + "RECORD", record(f + [("demo/ghost.py", b"")]))], 6, W + r": .*demo/ghost\.py")
bad = [("demo/__init__.py", b"X = 2\n")] + f[1:]
write("record-wrong-hash", f + [(DI + "RECORD", record(bad).replace(b",6\n", b",6\n"))], 6, W + r": .*demo/__init__\.py.*(hash|digest)")
r = record(f).replace(b"demo/__init__.py," + digest(f[0][1]).encode() + b",6", b"demo/__init__.py," + digest(f[0][1]).encode() + b",7")
write("record-wrong-size", f + [(DI + "RECORD", r)], 6, W + r": .*demo/__init__\.py.*size")
# The wheel format only encourages .dist-info last: a warning, not a refusal.
write("record-not-last", [(DI + "RECORD", record(f))] + f, 0, W + r": .*RECORD")
write("record-absent", f, 6, W + r": .*RECORD")
write("record-bad-csv", f + [(DI + "RECORD", b'"demo/__init__.py,sha256=abc\n' + record(f))], 6, W + r": .*RECORD")
write("record-dup-line", f + [(DI + "RECORD", record(f + [f[0]]))], 6, W + r": .*demo/__init__\.py")
# A second demo/__init__.py with other bytes: RECORD can only vouch for one.
write("duplicate-names", f + [("demo/__init__.py", b"import os\n"), (DI + "RECORD", record(f))], 6, W + r": .*demo/__init__\.py.*(twice|duplicate)")
write("name-dotdot", normal(f + [("../evil.py", b"")]), 6, W + r": .*\.\./evil\.py")
write("name-absolute", normal(f + [("/tmp/evil.py", b"")]), 6, W + r": .*/tmp/evil\.py")
write("name-backslash", normal(f + [("demo\\..\\..\\evil.py", b"")]), 6, W + r": .*evil\.py")
write("name-nul", normal(f + [("demo/a\x00b.py", b"")]), 6, W + r": ")
write("name-dotdot-inner", normal(f + [("demo/../../evil.py", b"")]), 6, W + r": .*evil\.py")
write("directory-entry", normal(f + [("demo/sub/", b"")]), 6, W + r": .*demo/sub/")
def symlink(zi):
    zi.create_system = 3
    zi.external_attr = (0o120777 << 16)
write("symlink-entry", normal(f + [("demo/link", b"/etc/passwd", symlink)]), 6, W + r": .*demo/link.*symlink")
write("trailing-data", normal(), 6, W + r": ", post=lambda d: d + b"trailing garbage")
write("comment", normal(), 6, W + r": .*comment", comment=b"hidden payload")
write("truncated", normal(), 6, W + r": ", post=lambda d: d[:len(d) // 2])
write("empty-file", [], 6, W + r": ", post=lambda d: b"")
# A bomb: 200 MB of zeros in one member, RECORD right about it.
big = bytes(200 << 20)
fb = f + [("demo/zeros.bin", big)]
write("zip-bomb", normal(fb), 6, W + r": .*demo/zeros\.bin.*(ratio|limit|exceeds)")
del big, fb

# Central directory says one name, the local header another.
def cd_rename(old, new):
    def post(d):
        i = d.rindex(b"PK\x01\x02" + d[d.index(b"PK\x01\x02") + 4:d.index(b"PK\x01\x02") + 4][:0])
        j = d.index(old, d.index(b"PK\x01\x02"))
        return d[:j] + new + d[j + len(old):]
    return post
write("cd-name-mismatch", normal(), 6, W + r": .*(demo/__init__\.py|demo/__evil__\.py)",
      post=cd_rename(b"demo/__init__.py", b"demo/__evil__.py"))
# Central directory size disagreeing with the local header.
def cd_size(d):
    i = d.index(b"PK\x01\x02")
    usize = struct.unpack("<I", d[i + 24:i + 28])[0]
    return d[:i + 24] + struct.pack("<I", usize + 100) + d[i + 28:]
write("cd-size-mismatch", normal(), 6, W + r": .*demo/__init__\.py", post=cd_size)
# Two central directory entries pointing at one local header.
def overlap(d):
    i = d.index(b"PK\x01\x02")
    j = d.index(b"PK\x01\x02", i + 4)
    off_first = d[i + 42:i + 46]
    return d[:j + 42] + off_first + d[j + 46:]
write("overlapping-entries", normal(), 6, W + r": ", post=overlap)
# ZIP64 extra fields on a small wheel (legal, zipfile forces them).
def z64(zi):
    pass
b = io.BytesIO()
with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as z:
    for n, data in normal():
        zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
        zi.external_attr = 0o644 << 16
        with z.open(zi, "w", force_zip64=True) as fh:
            fh.write(data)
os.makedirs(os.path.join(out, "zip64"), exist_ok=True)
with open(os.path.join(out, "zip64", WHL), "wb") as fh:
    fh.write(b.getvalue())
cases.append(("zip64", 0, ""))
os.makedirs(os.path.join(out, "a-directory", WHL), exist_ok=True)
cases.append(("a-directory", 6, W + r": "))

P = W + ": "
EXACT = {
    "record-missing-entry": P + r"demo/__init__\.py: not listed in RECORD",
    "record-extra-entry": P + r"demo/ghost\.py: listed in RECORD but missing from the archive",
    "record-wrong-hash": P + r"demo/__init__\.py: sha256 does not match RECORD",
    "record-wrong-size": P + r"demo/__init__\.py: size 6 does not match RECORD \(7\)",
    "record-not-last": r"warning: .*" + P + r"demo-1\.0\.dist-info/RECORD: not the last entry of the archive",
    "record-absent": P + r"demo-1\.0\.dist-info/RECORD: missing",
    "record-bad-csv": P + r"demo-1\.0\.dist-info/RECORD: line 1: not three CSV fields",
    "record-dup-line": P + r"demo-1\.0\.dist-info/RECORD: line 4: 'demo/__init__\.py' is listed twice",
    "name-dotdot": P + r"\.\./evil\.py: entry name has a '\.\.' component",
    "name-absolute": P + r"/tmp/evil\.py: absolute entry name",
    "name-backslash": P + r"demo/\.\./\.\./evil\.py: the central directory names the entry 'demo\\\.\.\\\.\.\\evil\.py' that the local header calls 'demo/\.\./\.\./evil\.py'",
    "name-nul": P + r"demo-1\.0\.dist-info/RECORD: contains a NUL byte",
    "name-dotdot-inner": P + r"demo/\.\./\.\./evil\.py: entry name has a '\.\.' component",
    "directory-entry": P + r"demo/sub/: listed in RECORD but missing from the archive",
    "symlink-entry": P + r"demo/link: size 0 in the central directory, 11 in the local header",
    "trailing-data": P + r"data after the zip archive's end, or a zip comment",
    "comment": P + r"data after the zip archive's end, or a zip comment",
    "truncated": P + r"cannot read the zip archive: Unrecognized archive format",
    "empty-file": P + r"cannot read the zip archive: Unrecognized archive format",
    "zip-bomb": P + r"its entries expand to 209715679 bytes, over the limit of 67108864 \(TFBUILD_VERIFY_MAX_BYTES\)",
    "cd-name-mismatch": P + r"demo/__init__\.py: the central directory names the entry 'demo/__evil__\.py' that the local header calls 'demo/__init__\.py'",
    "cd-size-mismatch": P + r"cannot read the zip archive: Inconsistent uncompressed size: 106 in central directory, 6 in local header",
    "overlapping-entries": P + r"demo-1\.0\.dist-info/WHEEL: the central directory names the entry 'demo-1\.0\.dist-info/WHEEL' that the local header calls 'demo-1\.0\.dist-info/METADATA'",
    "a-directory": P + r"not a regular file",
    "duplicate-names": P + r"demo/__init__\.py: duplicate entry name",
}
cases = [(n, c, EXACT.get(n, rx)) for n, c, rx in cases]

with open(os.path.join(out, "cases.tsv"), "w") as fh:
    for c in cases:
        fh.write("\t".join(str(x) for x in c) + "\n")
print(len(cases))
