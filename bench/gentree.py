#!/usr/bin/env python3
"""Generate a tree to pack, deterministically (fixed seed), for bench/pack.sh.

    gentree.py KIND OUTDIR MIB

KIND text:   60 % in 12 big source-like text files, 40 % in small text
             files (about 32 KiB each): like a pure-Python or data wheel.
KIND source: real text, not generated: the .py files of Debian's Python
             standard library (/usr/lib/python3.11, fixed by the
             libpython3.11-minimal/-stdlib versions), copied in rounds
             src/RRR/... until MIB: like a pure-Python wheel. The "text"
             kind's word salad is a worst case for fast deflate levels;
             this is what such a wheel holds.
KIND binary: 60 % in 2 .so-like files (machine-code-like bytes, zeros,
             string tables, relocation-like records), 20 % random
             (weights), 20 % in small binary files (about 64 KiB each).
OUTDIR gets benchpkg/ and benchpkg-1.0.dist-info/ (what `wheel pack`
wants). The pieces come from gen.py. Prints files and bytes written.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402


def text_tree(rng, pool, pkg, total):
    files = size = 0
    for i in range(12):
        size += gen.write_chunked(os.path.join(pkg, "text", "big-%02d.py" % i),
                                  total * 5 // 100,
                                  lambda n: gen.text_bytes(rng, pool, n))
        files += 1
    small = total * 40 // 100
    n = max(small // (32 << 10), 1)
    for i, k in enumerate(gen.small_sizes(rng, small, n)):
        size += gen.write(os.path.join(pkg, "mod", "%03d" % (i % 500),
                                       "m%05d.py" % i),
                          gen.text_bytes(rng, pool, k))
        files += 1
    return files, size


STDLIB = "/usr/lib/python3.11"


def source_tree(rng, pool, pkg, total):
    del rng, pool
    names = []
    for top, dirs, files in os.walk(STDLIB):
        dirs[:] = sorted(d for d in dirs
                         if d not in ("site-packages", "dist-packages"))
        names += sorted(os.path.join(top, f) for f in files
                        if f.endswith(".py"))
    if not names:
        sys.exit("gentree.py: no .py file under %s" % STDLIB)
    files = size = 0
    r = 0
    while size < total:
        for src in names:
            if size >= total:
                break
            with open(src, "rb") as f:
                data = f.read()
            rel = os.path.relpath(src, STDLIB)
            size += gen.write(os.path.join(pkg, "src", "%03d" % r, rel), data)
            files += 1
        r += 1
    return files, size


def binary_tree(rng, pool, pkg, total):
    files = size = 0

    def so_piece(n):
        return b"".join(gen.so_block(rng, pool, rng.choice((0, 0, 1, 2, 3)),
                                     n // 16) for _ in range(16)) + bytes(n % 16)

    for i in range(2):
        size += gen.write_chunked(os.path.join(pkg, "lib", "lib%d.so" % i),
                                  total * 30 // 100, so_piece)
        files += 1
    size += gen.write_chunked(os.path.join(pkg, "data", "weights.bin"),
                              total * 20 // 100, rng.randbytes)
    files += 1
    small = total * 20 // 100
    n = max(small // (64 << 10), 1)
    for i, k in enumerate(gen.small_sizes(rng, small, n)):
        size += gen.write(os.path.join(pkg, "res", "%02d" % (i % 50),
                                       "r%05d.bin" % i), so_piece(k))
        files += 1
    return files, size


KINDS = {"text": text_tree, "source": source_tree, "binary": binary_tree}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS:
        sys.stderr.write("usage: gentree.py text|source|binary OUTDIR MIB\n")
        return 2
    kind, out, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(gen.SEED + (kind == "binary"))
    pool = gen.text_pool(rng)
    make = KINDS[kind]
    files, size = make(rng, pool, os.path.join(out, "benchpkg"), mib << 20)
    info = os.path.join(out, "benchpkg-1.0.dist-info")
    gen.write(os.path.join(info, "WHEEL"),
              b"Wheel-Version: 1.0\nGenerator: tfbuild-bench\n"
              b"Root-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
    gen.write(os.path.join(info, "METADATA"),
              b"Metadata-Version: 2.1\nName: benchpkg\nVersion: 1.0\n")
    what = ""
    if kind == "source":
        what = ", Python %s's standard library" % sys.version.split()[0]
    print("%d files, %d bytes%s" % (files, size, what))
    return 0


if __name__ == "__main__":
    sys.exit(main())
