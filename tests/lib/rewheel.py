#!/usr/bin/env python3
"""Rewrite a wheel as an attacker would, RECORD kept true:

    rewheel.py IN OUT [EDIT...]

OUT is the new wheel's path (its filename may carry another label).
Each EDIT, applied in order, its fields split by the character after its
kind (':' below; 'sub|GLOB|OLD|NEW' when the text holds a ':'):
  sub:GLOB:OLD:NEW    replace the text OLD by NEW in the members matching
                      GLOB (fnmatch), RECORD excepted
  drop-line:GLOB:TEXT drop the lines starting with TEXT from those members
  nul:OLD             after writing, put a NUL byte in the entry name OLD
                      (its first '#' becomes NUL, in both headers)
  method:PATH:N       after writing, say compression method N for PATH
                      (stored bytes, method field patched, in both headers)
RECORD is rewritten with every changed member's sha256 and size; the
members are stored (method 0), in their order.
"""
import base64
import fnmatch
import hashlib
import struct
import sys
import zipfile


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


def fix_record(members):
    rec = [m for m in members if m[0].filename.endswith('.dist-info/RECORD')][0]
    lines = [record_line(m[0].filename, m[1]) for m in members if m is not rec]
    rec[1] = ('\n'.join(lines + [f'{rec[0].filename},,']) + '\n').encode()


def patch_headers(out, edits):
    data = bytearray(open(out, 'rb').read())
    for e in edits:
        kind, rest, sep = split(e)
        if kind == 'nul':
            name = rest.encode()
            bad = name.replace(b'#', b'\0', 1)
            assert data.count(name) >= 2, name
            data[:] = data.replace(name, bad)
        elif kind == 'method':
            path, n = rest.rsplit(sep, 1)
            name = path.encode()
            # signature, offsets of the method, the name's length, the name
            for sig, moff, loff, noff in ((b'PK\3\4', 8, 26, 30),
                                          (b'PK\1\2', 10, 28, 46)):
                i = data.find(sig)
                while i >= 0:
                    ln = struct.unpack_from('<H', data, i + loff)[0]
                    if data[i + noff:i + noff + ln] == name:
                        struct.pack_into('<H', data, i + moff, int(n))
                    i = data.find(sig, i + 4)
    open(out, 'wb').write(data)


def main(src, out, *edits):
    with zipfile.ZipFile(src) as z:
        members = [[zi, z.read(zi)] for zi in z.infolist()]
    edit_members(members, edits)
    fix_record(members)
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
        for zi, data in members:
            zi.compress_type = zipfile.ZIP_STORED
            z.writestr(zi, data)
    patch_headers(out, edits)


if __name__ == '__main__':
    main(*sys.argv[1:])
