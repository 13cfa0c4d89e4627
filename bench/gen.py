#!/usr/bin/env python3
"""Generate the benchmark's staged tree, deterministically (fixed seed).

    gen.py OUTDIR MIB

OUTDIR gets an unpacked wheel of about MIB MiB, in the shape `wheel pack`
wants:

  benchpkg/data/weights-{0,1}.bin   40 %  random (incompressible), 2 big files
  benchpkg/lib/libbench.so          25 %  .so-like: code, zeros, strings,
                                          relocation-like records
  benchpkg/text/corpus-NN.txt       15 %  10 files of source-like text
  benchpkg/mod/NN/modNNNN.py        10 %  2000 small text files
  benchpkg/res/NN/resNNNN.dat       10 %  2000 small random files
  benchpkg-1.0.dist-info/WHEEL, METADATA

The small files show per-file overhead, the big ones throughput; the
mix compresses roughly as a real binary wheel does. Prints the number of
files and bytes written.
"""

import os
import random
import sys

SEED = 20240601
NR_SMALL = 2000  # of each kind: text and random
WORDS = ("def return self import from class for in if else elif while "
         "with as try except raise lambda yield None True False and or not "
         "tensor device buffer kernel stream context shape dtype stride "
         "offset alloc free launch sync queue event graph node value index "
         "count size data ptr len range list dict tuple int float str "
         "= == != + - * / ( ) [ ] : , . 0 1 2 16 32 64 128 256 1024").split()


def text_pool(rng, n=20000):
    """Lines of code-like text to draw files from."""
    pool = []
    for _ in range(n):
        indent = "    " * rng.randrange(4)
        words = rng.choices(WORDS, k=rng.randrange(2, 14))
        pool.append((indent + " ".join(words) + "\n").encode())
    return pool


def text_bytes(rng, pool, size):
    out, n = [], 0
    while n < size:
        line = pool[rng.randrange(len(pool))]
        out.append(line)
        n += len(line)
    return b"".join(out)[:size]


def so_block(rng, pool, kind, size):
    if kind == 0:  # machine code: 32 frequent byte values
        table = bytes(b"\x48\x89\x8b\x0f\x1f\x44\x00\xe8\xc3\x55\x5d\x41"
                      b"\x83\xc4\xec\x24\x10\x08\x01\x74\x75\xeb\x31\xc0"
                      b"\xff\x85\xd2\x39\x4c\x8d\x05\x15" * 8)
        return rng.randbytes(size).translate(table)
    if kind == 1:  # alignment padding and .bss-like zeros
        return bytes(size)
    if kind == 2:  # string tables
        return text_bytes(rng, pool, size)
    # relocation entries: 24-byte records with increasing offsets
    base = rng.randrange(1 << 32)
    recs = [(base + 8 * i).to_bytes(8, "little") +
            (rng.randrange(4096) << 32 | 7).to_bytes(8, "little") +
            bytes(8) for i in range(size // 24 + 1)]
    return b"".join(recs)[:size]


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def write_chunked(path, total, make):
    """Write total bytes produced by make(n) in 1 MiB pieces."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        left = total
        while left > 0:
            piece = make(min(left, 1 << 20))
            f.write(piece)
            left -= len(piece)
    return total


def small_sizes(rng, total, n):
    avg = max(total // n, 64)
    return [rng.randrange(avg // 4, avg * 7 // 4 + 1) for _ in range(n)]


def gen(out, mib):
    rng = random.Random(SEED)
    pool = text_pool(rng)
    total = mib << 20
    pkg = os.path.join(out, "benchpkg")
    files = size = 0

    for i in range(2):
        size += write_chunked(os.path.join(pkg, "data", "weights-%d.bin" % i),
                              total * 20 // 100, rng.randbytes)
        files += 1

    def so_piece(n):
        return b"".join(so_block(rng, pool, rng.choice((0, 0, 1, 2, 3)),
                                 n // 16) for _ in range(16)) + bytes(n % 16)

    size += write_chunked(os.path.join(pkg, "lib", "libbench.so"),
                          total * 25 // 100, so_piece)
    files += 1
    for i in range(10):
        size += write_chunked(os.path.join(pkg, "text", "corpus-%02d.txt" % i),
                              total * 15 // 1000,
                              lambda n: text_bytes(rng, pool, n))
        files += 1
    for i, n in enumerate(small_sizes(rng, total * 10 // 100, NR_SMALL)):
        size += write(os.path.join(pkg, "mod", "%02d" % (i % 50),
                                   "mod%04d.py" % i), text_bytes(rng, pool, n))
        files += 1
    for i, n in enumerate(small_sizes(rng, total * 10 // 100, NR_SMALL)):
        size += write(os.path.join(pkg, "res", "%02d" % (i % 50),
                                   "res%04d.dat" % i), rng.randbytes(n))
        files += 1

    info = os.path.join(out, "benchpkg-1.0.dist-info")
    write(os.path.join(info, "WHEEL"),
          b"Wheel-Version: 1.0\nGenerator: tfbuild-bench\n"
          b"Root-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
    write(os.path.join(info, "METADATA"),
          b"Metadata-Version: 2.1\nName: benchpkg\nVersion: 1.0\n")
    print("%d files, %d bytes" % (files, size))


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen.py OUTDIR MIB\n")
        return 2
    gen(sys.argv[1], int(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
