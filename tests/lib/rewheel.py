#!/usr/bin/env python3
"""Rewrite a wheel as an attacker would, RECORD kept true:

    rewheel.py IN OUT [EDIT...]

OUT is the new wheel's path (its filename may carry another label).
Each EDIT, applied in order, its fields split by the character after its
kind (':' below; 'sub|GLOB|OLD|NEW' when the text holds a ':'):
  sub:GLOB:OLD:NEW    replace the text OLD by NEW in the members matching
                      GLOB (fnmatch), RECORD excepted
  drop-line:GLOB:TEXT drop the lines starting with TEXT from those members
  add:PATH:FILE       add a member PATH holding FILE's bytes (before
                      .dist-info)
  nul:OLD             after writing, put a NUL byte in the entry name OLD
                      (its first '#' becomes NUL, in both headers); RECORD
                      lists it cut at the NUL, as zipfile reads it
  method:PATH:N       compress PATH with method N for real: 8 deflate,
                      12 bzip2, 14 lzma (zipfile's), 93 zstd (libzstd
                      through ctypes), any other: stored bytes with the
                      method field patched, in both headers
RECORD is rewritten with every changed member's sha256 and size; the
other members are stored (method 0), in their order.
"""
import base64
import ctypes
import fnmatch
import hashlib
import struct
import sys
import zipfile


class Zstd:
    """zipfile's compressor interface over libzstd's one-shot API."""

    lib = None

    def __init__(self):
        if not Zstd.lib:
            Zstd.lib = ctypes.CDLL('libzstd.so.1')
            Zstd.lib.ZSTD_compressBound.restype = ctypes.c_size_t
            Zstd.lib.ZSTD_compress.restype = ctypes.c_size_t
        self.data = b''

    def compress(self, data):
        self.data += data
        return b''

    def flush(self):
        cap = Zstd.lib.ZSTD_compressBound(ctypes.c_size_t(len(self.data)))
        out = ctypes.create_string_buffer(cap)
        n = Zstd.lib.ZSTD_compress(out, ctypes.c_size_t(cap), self.data,
                                   ctypes.c_size_t(len(self.data)), 3)
        return out.raw[:n]


def allow_zstd():
    get, check = zipfile._get_compressor, zipfile._check_compression
    zipfile._get_compressor = lambda t, *a: Zstd() if t == 93 else get(t, *a)
    zipfile._check_compression = lambda t: None if t == 93 else check(t)


def methods(edits):
    """{PATH: N} of the method edits."""
    out = {}
    for e in edits:
        kind, rest, sep = split(e)
        if kind == 'method':
            path, n = rest.rsplit(sep, 1)
            out[path] = int(n)
    return out


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f'{path},sha256={digest.rstrip(b"=").decode()},{len(data)}'


def split(edit):
    """'sub:a:b' -> ('sub', 'a:b', ':'): the kind, the rest, the separator."""
    i = 0
    while edit[i].isalpha() or edit[i] == '-':
        i += 1
    return edit[:i], edit[i + 1:], edit[i]


def edit_members(members, edits):
    for e in edits:
        kind, rest, sep = split(e)
        if kind == 'sub':
            glob, old, new = rest.split(sep, 2)
            for m in members:
                if fnmatch.fnmatch(m[0].filename, glob):
                    m[1] = m[1].replace(old.encode(), new.encode())
        elif kind == 'drop-line':
            glob, text = rest.split(sep, 1)
            for m in members:
                if fnmatch.fnmatch(m[0].filename, glob):
                    lines = m[1].split(b'\n')
                    keep = [x for x in lines if not x.startswith(text.encode())]
                    m[1] = b'\n'.join(keep)
        elif kind == 'add':
            path, file = rest.split(sep, 1)
            at = [i for i, m in enumerate(members)
                  if '.dist-info/' in m[0].filename][0]
            zi = zipfile.ZipInfo(path, date_time=members[at][0].date_time)
            zi.external_attr = 0o644 << 16
            members.insert(at, [zi, open(file, 'rb').read()])


def fix_record(members, edits):
    """RECORD true again; a name given a NUL is listed as cut there."""
    cut = {split(e)[1] for e in edits if split(e)[0] == 'nul'}
    rec = [m for m in members if m[0].filename.endswith('.dist-info/RECORD')][0]
    lines = [record_line(m[0].filename.split('#')[0]
                         if m[0].filename in cut else m[0].filename, m[1])
             for m in members if m is not rec]
    rec[1] = ('\n'.join(lines + [f'{rec[0].filename},,']) + '\n').encode()


def patch_headers(out, edits):
    data = bytearray(open(out, 'rb').read())
    for e in edits:
        kind, rest, sep = split(e)
        if kind == 'nul':
            name = rest.encode()
            for i, noff, _ in headers(data, name):
                data[noff:noff + len(name)] = name.replace(b'#', b'\0', 1)
        elif kind == 'method' and int(rest.rsplit(sep, 1)[1]) not in REAL:
            path, n = rest.rsplit(sep, 1)
            for i, _, moff in headers(data, path.encode()):
                struct.pack_into('<H', data, i + moff, int(n))
    open(out, 'wb').write(data)


def headers(data, name):
    """(start, where the name is, the method's offset) of name's headers."""
    found = []
    # signature, offsets of the method, the name's length, the name
    for sig, moff, loff, noff in ((b'PK\3\4', 8, 26, 30),
                                  (b'PK\1\2', 10, 28, 46)):
        i = data.find(sig)
        while i >= 0:
            ln = struct.unpack_from('<H', data, i + loff)[0]
            if data[i + noff:i + noff + ln] == name:
                found.append((i, i + noff, moff))
            i = data.find(sig, i + 4)
    assert len(found) == 2, (name, found)
    return found


REAL = (8, 12, 14, 93)


def main(src, out, *edits):
    with zipfile.ZipFile(src) as z:
        members = [[zi, z.read(zi)] for zi in z.infolist()]
    edit_members(members, edits)
    fix_record(members, edits)
    how = methods(edits)
    allow_zstd()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
        for zi, data in members:
            n = how.get(zi.filename, 0)
            zi.compress_type = n if n in REAL else zipfile.ZIP_STORED
            z.writestr(zi, data)
    patch_headers(out, edits)


if __name__ == '__main__':
    main(*sys.argv[1:])
