"""Smoke test of the libzip wheel: write a zip with deflate (zlib) and
bzip2 (libbz2) members through libzip, read it back through libzip, and
check it with Python's zipfile, on whatever machine runs it."""
import os
import platform
import sys
import tempfile
import zipfile

import libzip

text = b"".join(b"line %d of a compressible text\n" % i for i in range(2000))
members = {"deflated.txt": (text, libzip.DEFLATE),
           "bzipped.txt": (text[::-1], libzip.BZIP2),
           "stored.bin": (bytes(range(256)), libzip.STORE)}

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "t.zip")
    libzip.write(path, members)
    assert libzip.read(path) == members, "libzip did not read back what it wrote"
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        assert infos["bzipped.txt"].compress_type == zipfile.ZIP_BZIP2
        assert infos["deflated.txt"].compress_size < len(text) // 10
        assert z.read("deflated.txt") == text
        if zipfile.bz2 is not None:  # Python's own bz2 may be hidden
            assert z.read("bzipped.txt") == text[::-1]
    try:
        libzip.read(os.path.join(d, "missing.zip"))
    except libzip.ZipError as e:
        err = str(e)
    else:
        sys.exit("a missing zip opened")
print("libzip", libzip.version(), platform.machine(), "ok:", err.split(": ", 1)[1])
