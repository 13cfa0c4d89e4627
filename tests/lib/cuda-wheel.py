#!/usr/bin/env python3
"""Pack a small wheel around a CUDA library, for the GPU-code audit's tests.

cuda-wheel.py OUT_DIR NAME VERSION LIBRARY [ARCH ...]

Writes OUT_DIR/NAME-VERSION-py3-none-manylinux_2_36_x86_64.whl holding
LIBRARY as NAME/LIBRARY's basename, a correct RECORD, and, when ARCHs are
given, .dist-info/tfbuild/cuda-archs listing them one a line (what
tfbuild packs from a recipe's cuda-archs). WHEEL's Generator is tfbuild,
so verify holds it to tfbuild's rules (a CUDA library must declare), and
a minimal SBOM as every tfbuild wheel carries.
"""
import base64
import hashlib
import os
import sys
import zipfile


def digest(data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return "sha256=" + h.rstrip(b"=").decode()


def main():
    out, name, version, lib, archs = sys.argv[1], sys.argv[2], sys.argv[3], \
        sys.argv[4], sys.argv[5:]
    tag = "py3-none-manylinux_2_36_x86_64"
    info = f"{name}-{version}.dist-info"
    files = []
    with open(lib, "rb") as f:
        files.append((f"{name}/{os.path.basename(lib)}", f.read()))
    files.append((f"{name}/__init__.py", b""))
    files.append((f"{info}/METADATA", (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        ).encode()))
    files.append((f"{info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: tfbuild 0 (cuda-wheel.py)\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode()))
    if archs:
        files.append((f"{info}/tfbuild/cuda-archs",
                      "".join(a + "\n" for a in archs).encode()))
    sbom = ('{"bomFormat": "CycloneDX", "specVersion": "1.6", "metadata": '
            f'{{"component": {{"name": "{name}", "version": "{version}"}}}}}}')
    files.append((f"{info}/sboms/tfbuild.cdx.json", sbom.encode()))
    record = "".join(f"{p},{digest(d)},{len(d)}\n" for p, d in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    path = os.path.join(out, f"{name}-{version}-{tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files:
            zi = zipfile.ZipInfo(p, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    print(path)


main()
