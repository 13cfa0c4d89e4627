#!/usr/bin/python3
"""Generate the hostile recipe corpus into OUTDIR (deterministic).

    recipes.py OUTDIR

Each case is a directory OUTDIR/NAME holding r.yaml (the recipe) and
whatever it refers to; OUTDIR/cases.tsv has one line per case:
NAME<TAB>EXIT<TAB>MESSAGE-REGEX (grep -E over stderr). Every recipe is
run with `tfbuild recipe` under a small step time limit; nothing may
appear outside the case's directory ($OUT in the recipes below is the
test's sentinel directory, passed as -D out=...).
"""
import os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
cases = []
HEAD = 'schema: 1\nname: h\nversion: "1"\n'


def case(name, text, code, rx, files=None, raw=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "r.yaml")
    if raw is not None:
        with open(path, "wb") as f:
            f.write(raw)
    elif text is not None:
        with open(path, "w") as f:
            f.write(text)
    for fn, data in (files or {}).items():
        p = os.path.join(d, fn)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if isinstance(data, tuple) and data[0] == "symlink":
            os.symlink(data[1], p)
        else:
            with open(p, "wb" if isinstance(data, bytes) else "w") as f:
                f.write(data)
    cases.append((name, code, rx))


R = r"r\.yaml"
# --- YAML itself
laughs = HEAD + "variables:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
for i in range(1, 10):
    laughs += "  a%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10))
case("alias-bomb", laughs, 3, R + r":[0-9]+:[0-9]+: (YAML aliases are not allowed|.*alias)")
case("alias-simple", HEAD + "variables:\n  a: &x v\n  b: *x\n", 0, "")
case("deep-nesting", HEAD + "variables:\n  x: " + "[" * 5000 + "]" * 5000 + "\n", 3,
     R + r":[0-9]+:[0-9]+: .*(deep|nest)")
case("deep-maps", HEAD + "x:\n" + "".join("  " * i + " k:\n" for i in range(1, 300)), 3, R + r":")
case("duplicate-key", HEAD + "name: g\n", 3, R + r":4:1: duplicate key 'name'")
case("duplicate-var", HEAD + "variables:\n  a: x\n  a: y\n", 3, R + r":6:3: duplicate key 'a'")
case("non-utf8", None, 3, R + r":1:1: invalid YAML: incomplete UTF-8 octet sequence",
     raw=HEAD.encode() + b"variables:\n  a: caf\xe9\n")
case("bom", None, 0, "", raw=b"\xef\xbb\xbf" + HEAD.encode())
case("empty", "", 3, R + r": the file is empty")
case("only-comment", "# nothing\n", 3, R + r": the file is empty")
case("nul-byte", None, 3, R + r":1:1: invalid YAML: control characters are not allowed", raw=HEAD.encode() + b"variables:\n  a: x\x00y\n")
case("not-a-map", "- a\n- b\n", 3, R + r":1:1: ")
case("tabs", HEAD + "variables:\n\ta: b\n", 3, R + r":")
case("huge-int", HEAD + "source-date-epoch: 99999999999999999999999999\n", 3, R + r":4:[0-9]+: ")
case("negative-epoch", HEAD + "source-date-epoch: -1\n", 3, R + r":4:[0-9]+: ")
# --- variables
case("var-cycle", HEAD + "variables:\n  a: ${b}\n  b: ${a}\n", 3, R + r":[0-9]+:[0-9]+: .*(cycle|refers to itself)")
case("var-self", HEAD + "variables:\n  a: x${a}\n", 3, R + r":[0-9]+:[0-9]+: .*(cycle|itself)")
case("var-expand-bomb", HEAD + "variables:\n  a0: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n" +
     "".join("  a%d: ${a%d}${a%d}${a%d}${a%d}${a%d}${a%d}${a%d}${a%d}${a%d}${a%d}\n" % ((i,) + (i - 1,) * 10) for i in range(1, 12)) +
     "steps:\n  - name: s\n    run: echo ${a11}\n", 3, R + r":[0-9]+:[0-9]+: expands to more than 1048576 bytes")
case("var-name-path", HEAD + "variables:\n  ../x: y\n", 3, R + r":5:3: .*variable")
case("var-undefined", HEAD + "steps:\n  - name: s\n    run: echo ${nope}\n", 3, R + r":6:[0-9]+: undefined variable")
# --- names that try to be paths
src = "sources:\n  - name: %s\n    path: src\n"
case("source-dotdot", HEAD + src % "'../x'", 3, R + r":5:11: .*name")
case("source-abs", HEAD + src % "/etc", 3, R + r":5:11: .*name")
case("source-newline", HEAD + src % '"a\\nb"', 3, R + r":5:11: .*name")
case("source-nul", HEAD + src % '"a\\0b"', 3, R + r":5:11: .*(name|NUL)")
case("source-empty", HEAD + src % '""', 3, R + r":5:11: .*name")
case("source-dot", HEAD + src % '"."', 3, R + r":5:11: source name '\.' cannot start with '\.'")
case("source-dotdot-only", HEAD + src % '".."', 3, R + r":5:11: source name '\.\.' cannot start with '\.'")
# Hidden names in the build tree are tfbuild's temporaries (session.c).
case("source-hidden", HEAD + src % '".x.Ab3dE9"', 3, R + r":5:11: source name '\.x\.Ab3dE9' cannot start with '\.'")
step = "steps:\n  - name: %s\n    run: 'true'\n"
case("step-dotdot", HEAD + step % "'../x'", 3, R + r":5:11: .*name")
case("step-abs", HEAD + step % "/etc", 3, R + r":5:11: .*name")
case("step-newline", HEAD + step % '"a\\nb"', 3, R + r":5:11: .*name")
case("step-dotdot-only", HEAD + step % '".."', 3, R + r":5:11: step name '\.\.' cannot start with '\.'")
case("step-hidden", HEAD + step % '".restore.Ab3dE9"', 3, R + r":5:11: step name '\.restore\.Ab3dE9' cannot start with '\.'")
case("step-nul", HEAD + step % '"a\\0b"', 3, R + r":5:11: .*(name|NUL)")
case("recipe-name-dotdot", 'schema: 1\nname: ../x\nversion: "1"\n', 3, R + r":2:7: .*name")
case("recipe-name-slash", 'schema: 1\nname: a/b\nversion: "1"\n', 3, R + r":2:7: .*name")
case("recipe-version-dotdot", 'schema: 1\nname: a\nversion: ../../x\n', 0, "")
case("recipe-version-newline", 'schema: 1\nname: a\nversion: "1\\n2"\n', 0, "")
wheel = ("steps:\n  - name: s\n    run: 'mkdir -p \"$STAGE\" && echo x >\"$STAGE/f\"'\n"
         "wheels:\n  - name: %s\n    version: %s\n    summary: s\n    license: MIT\n"
         "    files:\n      - from: s\n        src: f\n        dst: %s\n")
case("wheel-name-dotdot", HEAD + wheel % ("'../x'", "'1.0'", "pkg/f"), 3, R + r":8:11: '\.\./x' is not a valid distribution name")
case("wheel-version-slash", HEAD + wheel % ("w", "'1.0/../../x'", "pkg/f"), 3, R + r":9:14: .* is not a valid PEP 440 version")
case("wheel-dst-dotdot", HEAD + wheel % ("w", "'1.0'", "../../x"), 3, R + r":15:14: .*(dst|destination|\.\.)")
case("wheel-dst-abs", HEAD + wheel % ("w", "'1.0'", "/etc/x"), 3, R + r":15:14: '/etc/x' is not a valid relative path inside the wheel")
case("wheel-dst-distinfo", HEAD + wheel % ("w", "'1.0'", "w-1.0.dist-info/RECORD"), 3, R + r":15:14: .*dist-info")
case("wheel-dst-data", HEAD + wheel % ("w", "'1.0'", "w-1.0.data/scripts/x"), 0, "")
case("wheel-dst-nul", HEAD + wheel % ("w", "'1.0'", '"a\\0b"'), 3, R + r":15:14: ")
case("wheel-dst-backslash", HEAD + wheel % ("w", "'1.0'", '"a\\\\..\\\\..\\\\b"'), 3, R + r":15:14: ")
# --- local paths outside the recipe's tree
case("path-outside", HEAD + "sources:\n  - name: s\n    path: ../..\n", 3, R + r":6:11: .*(outside|recipe)")
case("path-root", HEAD + "sources:\n  - name: s\n    path: /\n", 3, R + r":6:11: .*(outside|recipe|absolute)")
case("path-symlink-out", HEAD + "sources:\n  - name: s\n    path: link\n", 3, R + r":6:11: .*(outside|symlink)",
     files={"link": ("symlink", "/etc")})
case("path-self", HEAD + "sources:\n  - name: s\n    path: .\n", 3, R + r":6:11: source directory '\.' '[^']*' holds the build directory")
case("path-var-out", HEAD + "sources:\n  - name: s\n    path: ${recipe_dir}/../../..\n", 3, R + r":6:11: .*(outside|recipe)")
# --- steps
case("step-cycle", HEAD + "steps:\n  - name: a\n    needs: [b]\n    run: 'true'\n  - name: b\n    needs: [a]\n    run: 'true'\n",
     3, R + r":[0-9]+:[0-9]+: .*cycle")
case("step-missing-need", HEAD + "steps:\n  - name: a\n    needs: [zz]\n    run: 'true'\n", 3, R + r":6:13: .*'zz'")
case("steps-10000", HEAD + "steps:\n" + "".join("  - name: s%05d\n    run: 'true'\n" % i for i in range(10000)), 3,
     R + r":[0-9]+:[0-9]+: .*(more than|steps)")
# --- patches
pdot = "--- a/../../outside.txt\n+++ b/../../outside.txt\n@@ -0,0 +1 @@\n+owned\n"
pabs = "--- /tmp/hostile-abs.txt\n+++ /tmp/hostile-abs.txt\n@@ -0,0 +1 @@\n+owned\n"
psrc = HEAD + "sources:\n  - name: s\n    path: src\n    patches:\n      strip: 1\n      series:\n        - %s\n"
case("patch-dotdot", psrc % "p.patch", 5, r"p\.patch.*(\.\.|outside|escapes)",
     files={"src/a.txt": "a\n", "p.patch": pdot})
case("patch-abs", psrc % "p.patch", 0, "",
     files={"src/a.txt": "a\n", "p.patch": pabs})
case("patch-symlink-out", psrc % "p.patch", 3, R + r":10:11: .*(outside|symlink)",
     files={"src/a.txt": "a\n", "p.patch": ("symlink", "/etc/hostname")})
case("patch-path-dotdot", psrc % ("../" * 40 + "etc/hostname"), 3, R + r":10:11: patch '(\.\./)+etc/hostname' resolves to '/etc/hostname', outside the recipe's tree",
     files={"src/a.txt": "a\n"})
case("patch-through-symlink", psrc % "p.patch", 5, r"p\.patch: patch failed \(exit status 1\): Invalid file name link/hostile-sym\.txt",
     files={"src/link": ("symlink", "/tmp"), "p.patch":
            "--- a/link/hostile-sym.txt\n+++ b/link/hostile-sym.txt\n@@ -0,0 +1 @@\n+owned\n"})

# The exact messages where the table above only sketches them.
EXACT = {
    "alias-bomb": R + r":[0-9]+:[0-9]+: YAML aliases expand to more than 1000000 nodes",
    "deep-nesting": R + r":5:68: nested deeper than 64 levels",
    "deep-maps": R + r":68:130: nested deeper than 64 levels",
    "tabs": R + r":5:1: invalid YAML: found character that cannot start any token",
    "huge-int": R + r":4:20: 'source-date-epoch' must be an integer, not '9+'",
    "negative-epoch": R + r":4:20: 'source-date-epoch' must be between 315532800 and 4102444800, not -1",
    "var-cycle": R + r":6:6: variable 'a' refers to itself",
    "var-self": R + r":5:7: variable 'a' refers to itself",
    "var-name-path": R + r":5:3: variable name '\.\./x' may only use letters, digits and '_'",
    "source-nul": R + r":5:11: a NUL character is not allowed in a value",
    "step-nul": R + r":5:11: a NUL character is not allowed in a value",
    "wheel-dst-nul": R + r":15:14: a NUL character is not allowed in a value",
    "wheel-dst-dotdot": R + r":15:14: '\.\./\.\./x' is not a valid relative path inside the wheel",
    "wheel-dst-backslash": R + r":15:14: destination 'a\\\.\.\\\.\.\\b' has a backslash",
    "wheel-dst-distinfo": R + r":15:14: destination 'w-1\.0\.dist-info/RECORD' is inside a \.dist-info directory",
    "path-outside": R + r":6:11: source directory '\.\./\.\.' resolves to '[^']*', outside the recipe's tree",
    "path-root": R + r":6:11: source directory '/' resolves to '/', outside the recipe's tree",
    "path-symlink-out": R + r":6:11: source directory 'link' resolves to '/etc', outside the recipe's tree",
    "path-var-out": R + r":6:11: source directory '\$\{recipe_dir\}/\.\./\.\./\.\.' resolves to '[^']*', outside the recipe's tree",
    "step-cycle": R + r":5:5: steps depend on each other in a cycle: a -> b -> a",
    "steps-10000": R + r":5:3: more than 4096 steps",
    "patch-dotdot": r"p\.patch: refusing path '\.\./\.\./outside\.txt' outside the source tree",
    "patch-symlink-out": R + r":10:11: patch 'p\.patch' resolves to '/etc/hostname', outside the recipe's tree",
    "source-empty": R + r":5:11: source name '' may only use letters",
    "source-newline": R + r":5:11: source name 'a\?b' may only use letters",
    "step-newline": R + r":5:11: step name 'a\?b' may only use letters",
}
cases = [(n, c, EXACT.get(n, rx)) for n, c, rx in cases]

with open(os.path.join(out, "cases.tsv"), "w") as f:
    for c in cases:
        f.write("\t".join(str(x) for x in c) + "\n")
print(len(cases))
