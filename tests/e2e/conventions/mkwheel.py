"""mkwheel.py OUT.whl NAME VERSION [--ep GROUP NAME VALUE]... [--requires REQ]...
       [WHEEL-PATH=FILE]...

Write a plain wheel the way another build tool would: the files given,
METADATA (with a Requires-Dist per --requires), WHEEL, entry_points.txt
and a RECORD with sha256 digests."""
import base64, hashlib, os, sys, zipfile

out, name, version = sys.argv[1:4]
args = sys.argv[4:]
eps, files, reqs = {}, [], []
while args:
    if args[0] == "--requires":
        reqs.append(args[1])
        args = args[2:]
    elif args[0] == "--ep":
        eps.setdefault(args[1], []).append(f"{args[2]} = {args[3]}")
        args = args[4:]
    else:
        dst, src = args[0].split("=", 1)
        files.append((dst, open(src, "rb").read()))
        args = args[1:]
tag = os.path.basename(out)[:-4].split("-")[-3:]
di = f"{name}-{version}.dist-info"
meta = [(f"{di}/METADATA", (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                               + "".join(f"Requires-Dist: {r}\n" for r in reqs)).encode()),
        (f"{di}/WHEEL", ("Wheel-Version: 1.0\nGenerator: mkwheel\nRoot-Is-Purelib: false\n"
                         f"Tag: {'-'.join(tag)}\n").encode())]
if eps:
    text = "".join(f"[{g}]\n" + "".join(l + "\n" for l in v) + "\n" for g, v in eps.items())
    meta.append((f"{di}/entry_points.txt", text.encode()))
record = ""
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for path, data in files + meta:
        z.writestr(path, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(data)}\n"
    record += f"{di}/RECORD,,\n"
    z.writestr(f"{di}/RECORD", record)
