#!/usr/bin/env python3
"""Does `make deps` (ci/install-deps.sh) install what the suite needs?

    depscheck.py SRC_ROOT DEPS...

DEPS are the packages install-deps.sh installs on this machine (its
TFBUILD_DEPS_DRY_RUN list for a machine where nothing is installed). A
minimal Debian (debootstrap --variant=minbase) has only the Essential
and Priority: required packages; what else the suite needs must be in
DEPS or in what they depend on. Checked, one line each on stdout for
what is missing (exit 1), nothing when all is there (exit 0):

  - every `target-packages` name of a recipe in recipes/ and tests/
    (YAML files, and recipes the test scripts write) whose targets
    include this machine's: a native target package must be installed
    on the build machine;
  - every program the test scripts (tests/e2e, tests/lib) name that
    lives in a Debian package of this machine (found with dpkg -S).

Installed packages' Depends and Pre-Depends (this machine's dpkg
status) stand for what apt would install with DEPS.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = sys.argv[1]
DEPS = {d for d in sys.argv[2:] if ":" not in d}
NATIVE = {"x86_64": "amd64", "aarch64": "arm64"}
HOST = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                      text=True, check=True).stdout.strip()

# Programs the scripts name where a command could start but that the
# suite does not need a package for (words in messages, here-documents).
NOT_RUN = {
}


def files(top, exts):
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x not in ("tmp", "__pycache__")]
        for n in sorted(names):
            if n.endswith(exts):
                yield os.path.join(d, n)


def status():
    """Installed packages: name -> (essential, priority, deps)."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f",
         "${Package}\t${Essential}\t${Priority}\t${Depends}, ${Pre-Depends}\t${db:Status-Abbrev}\n"],
        capture_output=True, text=True, check=True).stdout
    pkgs = {}
    for line in out.splitlines():
        name, ess, prio, deps, st = line.split("\t")
        if not st.startswith("ii"):
            continue
        names = set()
        for alt in deps.split(","):
            for d in alt.split("|"):
                d = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", d).strip()
                if d:
                    names.add(d.split(":")[0])
        pkgs[name] = (ess == "yes", prio, names)
    return pkgs


def provided(pkgs):
    """What installing DEPS brings: DEPS and their dependency closure."""
    # Virtual packages: name -> packages that provide it.
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Provides}\n"],
                         capture_output=True, text=True, check=True).stdout
    prov = {}
    for line in out.splitlines():
        name, provides = line.split("\t")
        for p in provides.split(","):
            p = re.sub(r"\(.*?\)", "", p).strip()
            if p:
                prov.setdefault(p, set()).add(name)
    seen, todo = set(), list(DEPS)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo.extend(pkgs.get(p, (False, "", set()))[2])
        todo.extend(prov.get(p, ()))
    return seen


def base(pkgs):
    return {n for n, (ess, prio, _) in pkgs.items() if ess or prio == "required"}


def target_packages():
    """(where, name) of every native target package."""
    rx = re.compile(r"target-packages:\s*\[([^\]]*)\]")
    for f in sorted(set(files(os.path.join(ROOT, "recipes"), (".yaml",))) |
                    set(files(os.path.join(ROOT, "tests"), (".yaml", ".sh")))):
        text = open(f, encoding="utf-8", errors="replace").read()
        m = re.search(r"^\s*targets:\s*\[([^\]]*)\]", text, re.M)
        if m and not any(NATIVE.get(t.strip()) == HOST for t in m.group(1).split(",")):
            continue
        for line_no, line in enumerate(text.splitlines(), 1):
            for m in rx.finditer(line):
                for name in m.group(1).split(","):
                    name = name.strip().strip("\"'").split("=")[0]
                    # Names made to be refused (t1205) are not needed.
                    if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", name) or "no-such" in name:
                        continue
                    yield "%s:%d" % (os.path.relpath(f, ROOT), line_no), name


# A word where a command starts: at the start of a line, or after &&,
# ||, |, ;, ( or $(, {, !, then, do, or as `command -v WORD`, with
# VAR=value assignments before it.
CMD = re.compile(r"(?:^|&&|\|\||[|;({!]|\$\(|\bthen|\bdo|command -v)\s*"
                 r"(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*"
                 r"([a-z][a-z0-9_.+-]*[a-z0-9])(?=\s|$|;|\)|&|\|)")


def programs():
    """(where, program, package) of each program the scripts name."""
    path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    owner = {}
    for f in sorted(set(files(os.path.join(ROOT, "tests", "e2e"), (".sh",))) |
                    set(files(os.path.join(ROOT, "tests", "lib"), (".sh",)))):
        for line_no, line in enumerate(open(f, encoding="utf-8"), 1):
            if line.lstrip().startswith("#"):
                continue
            for word in set(CMD.findall(line)):
                if word in NOT_RUN:
                    continue
                if word not in owner:
                    exe = shutil.which(word, path=path)
                    pkg = None
                    if exe:
                        for p in (exe, os.path.realpath(exe), "/bin/" + word, "/sbin/" + word):
                            r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
                            found = [ln.split(":")[0].split(",")[0].strip()
                                     for ln in r.stdout.splitlines()
                                     if not ln.startswith("diversion by")]
                            if r.returncode == 0 and found:
                                pkg = found[0]
                                break
                    owner[word] = pkg
                if owner[word]:
                    yield "%s:%d" % (os.path.relpath(f, ROOT), line_no), word, owner[word]


def main():
    pkgs = status()
    have = provided(pkgs) | base(pkgs)
    missing = 0
    told = set()
    for where, name in target_packages():
        if name not in have and name not in told:
            told.add(name)
            missing += 1
            print("%s: target package '%s' is needed installed on the build "
                  "machine (%s), but ci/install-deps.sh does not install it" % (where, name, HOST))
    for where, word, pkg in programs():
        if pkg not in have and pkg not in told:
            told.add(pkg)
            missing += 1
            print("%s: '%s' (Debian package %s) is run by the tests, but "
                  "ci/install-deps.sh does not install it" % (where, word, pkg))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
