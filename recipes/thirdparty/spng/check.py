"""Smoke test of the spng wheel: decode PNGs made here with zlib, on
whatever machine runs it (x86-64, or aarch64 under qemu)."""
import platform
import struct
import sys
import zlib

import spng


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))


def png_rgb8(width, height, pixels):
    raw = b"".join(b"\0" + bytes(pixels[y * width * 3:(y + 1) * width * 3])
                   for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


pixels = [255, 0, 0, 0, 255, 0, 0, 0, 255,
          10, 20, 30, 40, 50, 60, 70, 80, 90]
w, h, rgba = spng.decode(png_rgb8(3, 2, pixels))
assert (w, h) == (3, 2), (w, h)
want = b"".join(bytes(pixels[i:i + 3]) + b"\xff" for i in range(0, len(pixels), 3))
assert rgba == want, rgba

# A big, compressible image goes through zlib's inflate for real.
big = [(x * 7 + y) & 0xff for y in range(256) for x in range(256 * 3)]
w, h, rgba = spng.decode(png_rgb8(256, 256, big))
assert (w, h) == (256, 256) and rgba[4 * 1000:4 * 1000 + 3] == bytes(big[3 * 1000:3 * 1000 + 3])

# A corrupted CRC is an error with libspng's own message.
bad = bytearray(png_rgb8(3, 2, pixels))
bad[29] ^= 0xff  # the IHDR chunk's CRC
try:
    spng.decode(bytes(bad))
except spng.SpngError as e:
    err = str(e)
else:
    sys.exit("a corrupted PNG decoded")
print("spng", spng.version(), platform.machine(), "ok:", err)
