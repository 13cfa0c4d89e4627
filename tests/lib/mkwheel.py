#!/usr/bin/env python3
"""Make a small wheel for the tests: mkwheel.py OUTDIR NAME VERSION TAG [MEMBER...]

TAG is PY-ABI-PLATFORM. Each MEMBER is PATH=TEXT (a file), PATH=TEXT:x (an
executable), PATH@TARGET (a symbolic link, for the hostile tests),
data:PATH=TEXT (under NAME-VERSION.data/platlib/) or meta:FIELD=VALUE (a
METADATA line: meta:Requires-Dist=jaxlib==0.10.2). Written with zipfile, a
RECORD listing every file; the name is the wheel filename, as pip wants it.
"""
import base64
import hashlib
import os
import stat
import sys
import zipfile


def main(out, name, version, tag, *members):
    dist = name.replace('-', '_')
    info = f'{dist}-{version}.dist-info'
    files = []
    meta = ''
    for m in members:
        if m.startswith('meta:'):
            field, value = m[5:].split('=', 1)
            meta += f'{field}: {value}\n'
            continue
        if '@' in m and '=' not in m:
            path, target = m.split('@', 1)
            files.append((path, target.encode(), stat.S_IFLNK | 0o777))
            continue
        path, text = m.split('=', 1)
        mode = 0o644
        if text.endswith(':x'):
            text, mode = text[:-2], 0o755
        if path.startswith('data:'):
            path = f'{dist}-{version}.data/platlib/' + path[5:]
        files.append((path, (text + '\n').encode(), stat.S_IFREG | mode))
    py, abi, plat = tag.split('-')
    files.append((f'{info}/METADATA',
                  (f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n' + meta).encode(),
                  stat.S_IFREG | 0o644))
    files.append((f'{info}/WHEEL',
                  f'Wheel-Version: 1.0\nGenerator: mkwheel\nRoot-Is-Purelib: false\nTag: {tag}\n'.encode(),
                  stat.S_IFREG | 0o644))
    record = ''
    for path, data, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=')
        record += f'{path},sha256={digest.decode()},{len(data)}\n'
    record += f'{info}/RECORD,,\n'
    files.append((f'{info}/RECORD', record.encode(), stat.S_IFREG | 0o644))
    whl = os.path.join(out, f'{dist}-{version}-{tag}.whl')
    with zipfile.ZipFile(whl, 'w', zipfile.ZIP_DEFLATED) as z:
        for path, data, mode in files:
            zi = zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = mode << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    print(whl)


if __name__ == '__main__':
    main(*sys.argv[1:])
