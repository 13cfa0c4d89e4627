#!/usr/bin/env python3
"""What each part of a step's sandbox costs: bwrap run with the options
tfbuild gives a real step (taken from `tfbuild -vv`), and with one part
left out at a time, interleaved, `true` as the command: the median wall
time and CPU time (user + system of bwrap and everything it started,
its PID 1 included, from getrusage as their reaper; a busy machine
inflates it less than the wall time).

    python3 bench/sandbox_parts.py [N]   (default 100; TFBUILD=... to pick one)
"""
import ctypes
import os
import resource
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


MOUNTS = {"--ro-bind": 2, "--bind": 2, "--dev-bind": 2, "--symlink": 2,
          "--tmpfs": 1, "--dir": 1, "--dev": 1, "--proc": 1}
# what bwrap applies to the option after it: a tmpfs's --size, --perms
PREFIX = {"--size", "--perms"}


def no_mounts(opts, test):
    """opts without the mounts (and a tmpfs's --size, a --perms) whose
    target passes test."""
    out, i = [], 0
    while i < len(opts):
        pre = 0
        while opts[i + pre] in PREFIX:
            pre += 2
        n = MOUNTS.get(opts[i + pre])
        if n is not None:
            end = i + pre + 1 + n
            if test(opts[end - 1]):
                i = end
                continue
            out.extend(opts[i:end])
            i = end
            continue
        out.append(opts[i])
        i += 1
    return out


def with_dev(opts):
    """opts with bwrap's own --dev in place of tfbuild's /dev."""
    out = no_mounts(opts, under("/dev"))
    i = out.index("--proc")
    return out[:i] + ["--dev", "/dev"] + out[i:]


def under(*dirs):
    return lambda t: any(t == d or t.startswith(d.rstrip("/") + "/")
                         for d in dirs)


def subreaper():
    """Become the reaper of what bwrap leaves: its PID 1 ends after bwrap
    (killed by --die-with-parent), so without this its time, the
    namespaces' teardown, would go to init and not be counted."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def reap():
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    subreaper()
    with tempfile.TemporaryDirectory() as tmp:
        bwrap, opts = step_argv(tmp)
        nouser = drop(drop(opts, ["--unshare-user", "--disable-userns"], 0),
                      ["--uid", "--gid"], 1)
        cases = {
            "as a step runs": opts,
            "without its own user namespace": nouser,
            "without the bind of /etc": no_mounts(opts, under("/etc")),
            "without /sys/devices/system/cpu":
                no_mounts(opts, under("/sys")),
            "without the tmpfs of /run": no_mounts(opts, under("/run")),
            "without the recipe's directory (a place of the run)":
                no_mounts(opts, lambda t: t == tmp),
            "without the step's HOME and TMPDIR tmpfs": no_mounts(
                opts, lambda t: t.endswith("/home") or t.endswith("/tmp")
                and t != "/tmp"),
            "without /dev (a tmpfs, 6 devices, 4 links, shm)":
                no_mounts(opts, under("/dev")),
            "with bwrap's --dev as /dev (a devpts more, of no size)":
                with_dev(opts),
            "without --remount-ro /": drop(opts, ["--remount-ro"], 1),
            "the sandbox before issue 35 (--ro-bind / /, /dev, /proc, "
            "/tmp)": ["--die-with-parent", "--new-session", "--unshare-all",
                      "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                      "/proc", "--tmpfs", "/tmp"],
            "no mount but / (--ro-bind / /), no namespace":
                ["--ro-bind", "/", "/"],
        }
        times = {k: [] for k in cases}
        cpu = {k: [] for k in cases}
        for _ in range(n):
            for k, o in cases.items():
                r = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run([bwrap] + o + ["--", "true"],
                               env={"PATH": "/usr/bin:/bin"}, check=True,
                               stdout=subprocess.DEVNULL)
                times[k].append((time.perf_counter() - t) * 1000)
                reap()
                e = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[k].append((e.ru_utime + e.ru_stime - r.ru_utime -
                               r.ru_stime) * 1000)
    print("| bwrap ... true (%d mount options), median of %d | wall ms "
          "| CPU ms |" % (sum(o in MOUNTS for o in opts), n))
    print("| --- | ---: | ---: |")
    for k, v in times.items():
        v.sort()
        c = sorted(cpu[k])
        print("| %s | %.1f | %.1f |" % (k, v[len(v) // 2], c[len(c) // 2]))


main()
