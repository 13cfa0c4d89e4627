#!/usr/bin/env python3
"""What each part of a step's sandbox costs: bwrap run with the options
tfbuild gives a real step (taken from `tfbuild -vv`), and with one part
left out at a time, interleaved, `true` as the command.

    python3 bench/sandbox_parts.py [N]   (default 100; TFBUILD=... to pick one)
"""
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TFBUILD = os.environ.get("TFBUILD", os.path.join(ROOT, "tfbuild"))


def step_argv(tmp):
    """bwrap's options for a one-step recipe's step, as tfbuild runs it."""
    with open(os.path.join(tmp, "r.yaml"), "w") as f:
        f.write("schema: 1\nname: p\nversion: 1.0.0\nsteps:\n"
                "  - name: s\n    run: echo >\"$STAGE/x\"\n")
    out = subprocess.run([TFBUILD, "-vv", "recipe", "--force", "-j", "1",
                          os.path.join(tmp, "r.yaml")], cwd=tmp,
                         capture_output=True, text=True, check=True).stderr
    runs = [l.split("run: ", 1)[1] for l in out.splitlines()
            if "run: " in l and "bwrap" in l]
    argv = shlex.split(runs[-1])  # the first is the probe
    return argv[0], argv[1:argv.index("--")]


def drop(opts, names, nargs):
    out, i = [], 0
    while i < len(opts):
        if opts[i] in names:
            i += 1 + nargs
            continue
        out.append(opts[i])
        i += 1
    return out


def no_etc(opts):
    out, i = [], 0
    while i < len(opts):
        if opts[i] in ("--ro-bind", "--symlink") and \
                opts[i + 2].startswith("/etc/"):
            i += 3
            continue
        out.append(opts[i])
        i += 1
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as tmp:
        bwrap, opts = step_argv(tmp)
        nouser = drop(drop(opts, ["--unshare-user", "--disable-userns"], 0),
                      ["--uid", "--gid"], 1)
        cases = {
            "as a step runs": opts,
            "without its own user namespace": nouser,
            "without the binds of /etc": no_etc(opts),
            "the sandbox before issue 35 (--ro-bind / /, /dev, /proc, "
            "/tmp)": ["--die-with-parent", "--new-session", "--unshare-all",
                      "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                      "/proc", "--tmpfs", "/tmp"],
        }
        times = {k: [] for k in cases}
        for _ in range(n):
            for k, o in cases.items():
                t = time.perf_counter()
                subprocess.run([bwrap] + o + ["--", "true"],
                               env={"PATH": "/usr/bin:/bin"}, check=True,
                               stdout=subprocess.DEVNULL)
                times[k].append((time.perf_counter() - t) * 1000)
    print("| bwrap ... true (%d mount options), median of %d | ms |"
          % (sum(o in ("--ro-bind", "--bind", "--symlink", "--tmpfs")
                 for o in opts), n))
    print("| --- | ---: |")
    for k, v in times.items():
        v.sort()
        print("| %s | %.1f |" % (k, v[len(v) // 2]))


main()
