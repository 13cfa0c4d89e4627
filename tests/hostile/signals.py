#!/usr/bin/python3
"""Signals at random moments, for t1705-hostile-signals.sh.

Runs `tfbuild recipe --target all` of one small recipe again and again,
each run in a session of its own (setsid), and sends tfbuild alone (not
its group) SIGINT or SIGTERM after a delay drawn from a seeded PRNG, in
[0, 1.2 x a clean run's duration]; every fifth run is instead aimed at
the moment tfbuild asks a compiler for its identity (the compiler is a
shim that, while a flag file exists, writes a mark and sleeps in a child
process). Runs come in pairs: the build tree and output folder are
removed before the first, so its kill may come at any stage; the second
starts from what the first left (interrupted twice); then an unkilled
run must succeed with the bytes of the clean reference run.

After each killed run: how it ended (died of the signal, or exit 0 if it
was over first); which processes of the run are still alive after a
short settling time (same process group or session as tfbuild, or an
environment, command line or directory naming the run's build tree);
what in the output folder is not a finished file identical to the
reference's; temporary files left in the build tree and fetch cache.

One line per case, tab-separated, to the results file:
    NAME  WANT  RC  VERDICT_EXTRA  LOG  WHAT
RC is 128+N only when the run died of signal N ("exit:C" when it exited
with C >= 128 instead); VERDICT_EXTRA is escape, partial or poisoned, or
"-". Wheels and SHA256SUMS must have the reference's bytes; the
provenance too, but for each step's origin (built or up to date) and
the sandbox it ran in (only a step that ran has one). tests/hostile/lib.sh's hostile_judge turns that into a verdict.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}
# tf_mkdtemp_in (.NAME.XXXXXX), tf_write_file_atomic (NAME.tmp.XXXXXX),
# a wheel's temporary file (.NAME.whl.XXXXXX), a download (DIGEST.XXXXXX).
TEMP = re.compile(r"(^\..+\.[A-Za-z0-9]{6}$)|(\.tmp\.[A-Za-z0-9]{6}$)")


def run_tfbuild(a, build, out, log, tag):
    env = dict(os.environ, TFBUILD_SIGNAL_RUN=tag)
    with open(log, "wb") as f:
        return subprocess.Popen(
            [a.tfbuild, "recipe", "-q", a.recipe, "--target", "all",
             "--out", out, "--build-dir", build, "--cache", a.cache],
            stdout=f, stderr=subprocess.STDOUT, env=env,
            start_new_session=True, preexec_fn=default_signals)


def default_signals():
    # A suite started in the background by a non-interactive shell has
    # SIGINT ignored, and tfbuild rightly keeps an ignored signal
    # ignored (nohup): give every run the default dispositions.
    for s in SIGNALS.values():
        signal.signal(s, signal.SIG_DFL)


def wait_status(p, block=True):
    """How p ended: "128+N" for signal N, its exit code, or None."""
    pid, st = os.waitpid(p.pid, 0 if block else os.WNOHANG)
    if not pid:
        return None
    p.returncode = 0  # reaped here; keep Popen from waiting again
    if os.WIFSIGNALED(st):
        return str(128 + os.WTERMSIG(st))
    code = os.WEXITSTATUS(st)
    return str(code) if code < 128 else "exit:%d" % code


def proc_field(pid, name):
    try:
        with open("/proc/%d/%s" % (pid, name), "rb") as f:
            return f.read()
    except OSError:
        return b""


def leftovers(run_pid, build, tag):
    """Processes of the run still alive (zombies are dead: skipped)."""
    me = os.getpid()
    mark = b"TFBUILD_SIGNAL_RUN=" + tag.encode()
    bdir = build.encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        pid = int(d)
        stat = proc_field(pid, "stat")
        rp = stat.rfind(b")")
        if rp < 0:
            continue
        fields = stat[rp + 2:].split()
        state, pgrp, sid = fields[0], int(fields[2]), int(fields[3])
        if state in (b"Z", b"X"):
            continue
        ours = pgrp == run_pid or sid == run_pid
        if not ours:
            env = proc_field(pid, "environ")
            cmd = proc_field(pid, "cmdline")
            try:
                cwd = os.readlink("/proc/%d/cwd" % pid).encode()
            except OSError:
                cwd = b""
            ours = (mark + b"\0" in env + b"\0" or bdir + b"/" in env or
                    bdir + b"/" in cmd or cwd == bdir or
                    cwd.startswith(bdir + b"/"))
        if ours:
            found.append((pid, cmd_of(pid)))
    return found


def cmd_of(pid):
    return proc_field(pid, "cmdline").replace(b"\0", b" ").decode(
        "utf-8", "replace").strip()


def settle_leftovers(run_pid, build, tag):
    # tfbuild SIGKILLs what a step left in its group on its way out; the
    # kernel may take a moment to finish those. Anything alive after
    # 0.3 s was left running.
    deadline = time.monotonic() + 0.3
    while True:
        left = leftovers(run_pid, build, tag)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for pid, _ in left:  # do not let them disturb the next runs
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def without_origin(v, annotations=False):
    """A provenance without what says how each step's output came to be
    (built, up to date, restored; and for a step that ran, its sandbox):
    a run after an interrupted one finds some steps done, and says so.
    The run's own sandbox (internalParameters) stays compared."""
    if isinstance(v, dict):
        return {k: without_origin(x, k == "annotations") for k, x in v.items()
                if k not in ("origin", "cacheKey")
                and not (annotations and k == "sandbox")}
    if isinstance(v, list):
        return [without_origin(x) for x in v]
    return v


def same(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        x, y = f.read(), g.read()
    if x == y or not a.endswith(".intoto.json"):
        return x == y
    try:
        return without_origin(json.loads(x)) == without_origin(json.loads(y))
    except ValueError:
        return False


def output_problems(out, ref):
    """What in out is not a finished file with the reference's bytes."""
    bad = []
    if not os.path.isdir(out):
        return bad
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        refp = os.path.join(ref, name)
        if not os.path.isfile(refp) or os.path.islink(path) \
                or not os.path.isfile(path):
            bad.append("stray %s" % name)
        elif not same(path, refp):
            bad.append("%s differs from the clean run's" % name)
    return bad


def stray_temps(*roots):
    bad = []
    for root in roots:
        for dirpath, dirs, files in os.walk(root):
            for n in dirs + files:
                if TEMP.search(n):
                    bad.append(os.path.join(dirpath, n))
    return bad


def kill_run(a, n, signame, delay, aimed):
    tag = "%d-%d" % (os.getpid(), n)
    log = os.path.join(a.work, "log.%d" % n)
    notes = []
    if aimed:
        if os.path.exists(a.mark):
            os.unlink(a.mark)
        open(a.flag, "w").close()
        # A compiler changed within 2 s is not remembered (env/probe.c):
        # tfbuild asks it again.
        for s in a.shims:
            os.utime(s)
    p = run_tfbuild(a, a.build, a.out, log, tag)
    rc = None
    if aimed:
        t = time.monotonic() + 10
        while not os.path.exists(a.mark) and time.monotonic() < t:
            rc = wait_status(p, block=False)
            if rc is not None:
                break
            time.sleep(0.002)
        if not os.path.exists(a.mark):
            notes.append("the probe was not reached")
    else:
        time.sleep(delay)
    if rc is None:
        os.kill(p.pid, SIGNALS[signame])  # a zombie at worst: not reaped yet
        rc = wait_status(p)
    if aimed:
        os.unlink(a.flag)
    extra = ""
    left = settle_leftovers(p.pid, a.build, tag)
    if left:
        extra = "escape"
        notes += ["still running: %d %s" % x for x in left]
    bad = output_problems(a.out, a.ref) + stray_temps(a.build, a.cache)
    if bad:
        extra = extra or "partial"
        notes += bad
    with open(log, "a") as f:
        for x in notes:
            f.write(x + "\n")
    want = "0" if rc == "0" else str(128 + SIGNALS[signame])
    what = "SIG%s %s" % (signame, "at the compiler probe" if aimed
                        else "after %.3f s" % delay)
    return ("run-%d" % n, want, rc, extra, log, what)


def recover(a, g):
    log = os.path.join(a.work, "log.recover-%d" % g)
    p = run_tfbuild(a, a.build, a.out, log, "recover-%d" % g)
    rc = wait_status(p)
    extra = ""
    bad = []
    if rc == "0":
        names = set(os.listdir(a.ref))
        have = set(os.listdir(a.out)) if os.path.isdir(a.out) else set()
        bad = ["missing %s" % x for x in sorted(names - have)]
        bad += output_problems(a.out, a.ref)
    if bad or rc != "0":
        # It trusted something the interrupted runs left half-done.
        extra = "poisoned"
    strays = stray_temps(a.build, a.cache)
    if strays:
        extra = extra or "partial"
        bad += strays
    if bad:
        with open(log, "a") as f:
            for x in bad:
                f.write(x + "\n")
    return ("next-run-%d" % g, "0", rc, extra, log,
            "the next run succeeds with the clean run's bytes")


def clean_run(a, out, build):
    t = time.monotonic()
    p = run_tfbuild(a, build, out, os.path.join(a.work, "log.clean"), "clean")
    if wait_status(p) != "0":
        sys.exit("the clean run failed: see %s/log.clean" % a.work)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfbuild", required=True)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--shim", action="append", default=[])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--group", type=int, default=2)
    ap.add_argument("--results", required=True)
    a = ap.parse_args()
    a.shims = a.shim
    a.build = os.path.join(a.work, "b")
    a.out = os.path.join(a.work, "out")
    a.ref = os.path.join(a.work, "ref")
    a.cache = os.path.join(a.work, "cache")
    a.flag = os.path.join(a.work, "slow-probe")
    a.mark = os.path.join(a.work, "in-probe")
    # The reference (which warms the fetch cache), then the clean run
    # timed: a fresh build tree, the warm cache.
    clean_run(a, a.ref, os.path.join(a.work, "bref"))
    took = clean_run(a, os.path.join(a.work, "clean"),
                     os.path.join(a.work, "bclean"))
    if output_problems(os.path.join(a.work, "clean"), a.ref):
        sys.exit("two clean runs differ")
    rng = random.Random(a.seed)
    print("# seed %d, %d runs, a clean run took %.2f s" % (a.seed, a.runs, took))
    rows = []
    left = took
    for n in range(1, a.runs + 1):
        if (n - 1) % a.group == 0:
            shutil.rmtree(a.build, ignore_errors=True)
            shutil.rmtree(a.out, ignore_errors=True)
            if n == 1:  # the first group also fetches
                shutil.rmtree(a.cache, ignore_errors=True)
            left = took
        signame = rng.choice(sorted(SIGNALS))
        # A run resuming what a killed one left has only the rest to do:
        # draw its moment from that, or most resumed runs end first.
        delay = rng.uniform(0, 1.2 * left)
        aimed = n % 5 == 3 and bool(a.shims)
        row = kill_run(a, n, signame, delay, aimed)
        if row[2] != "0" and not aimed:
            left = max(left - delay, 0.15 * took)
        rows.append(row)
        if n % a.group == 0 or n == a.runs:
            rows.append(recover(a, (n - 1) // a.group + 1))
    with open(a.results, "w") as f:
        for r in rows:
            f.write("\t".join(x or "-" for x in r) + "\n")


if __name__ == "__main__":
    main()
