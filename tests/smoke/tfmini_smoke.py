#!/usr/bin/env python3
"""Smoke test of an installed tfmini and one device backend.

Runs every op on "cpu" (the reference kernels) and on the device under
test with several shapes, including lengths that are not multiples of 8
so the vector kernels' scalar tails run, and negative values and -0.0
for relu, then compares:

  add, mul, scale, relu   bit for bit
  sum, matmul             |got - want| <= 1e-5 * sum of |terms|

It also checks devices(), plugin_info() and a few errors, prints a short
report and exits 1 if anything is wrong (2 for a usage error).

usage: tfmini_smoke.py [--devices cpu:0,m1:0] [--device m1] [--isa avx2]
                       [--builtin | --plugin]

Each option may also come from the environment: SMOKE_DEVICES,
SMOKE_DEVICE, SMOKE_ISA, SMOKE_KIND (builtin or plugin). Python 3.8+,
standard library only.
"""

import argparse
import os
import struct
import sys

TOLERANCE = 1e-5
LENGTHS = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1001]
MATMUL_SHAPES = [(1, 1, 1), (1, 5, 3), (3, 5, 7), (4, 8, 8), (5, 9, 13),
                 (16, 3, 17), (2, 33, 6), (7, 1, 9)]


class Rng:
    """A small LCG, so the data is the same on every run and Python."""

    def __init__(self, seed):
        self.state = seed

    def value(self):
        self.state = (self.state * 1103515245 + 12345) % (1 << 31)
        r = self.state >> 8
        if r % 17 == 0:
            return -0.0
        if r % 13 == 0:
            return 0.0
        return ((r % 20001) - 10000) / 977.0

    def values(self, n):
        return [self.value() for _ in range(n)]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def flat(v):
    if isinstance(v, list):
        out = []
        for item in v:
            out.extend(flat(item))
        return out
    return [v]


class Smoke:
    def __init__(self, tfmini, device):
        self.tfmini = tfmini
        self.device = device
        self.failures = []
        self.checks = 0
        self.worst = {}  # op -> largest error / tolerance seen

    def fail(self, msg):
        self.failures.append(msg)

    def pair(self, values, shape):
        """The same data on cpu and on the device under test."""
        t = self.tfmini
        return (t.tensor(values, shape=shape, device="cpu"),
                t.tensor(values, shape=shape, device=self.device))

    def exact(self, op, want, got, shape):
        self.checks += 1
        if got.shape != tuple(shape) or want.shape != got.shape:
            return self.fail("%s %s: shape %s, want %s"
                             % (op, shape, got.shape, want.shape))
        w, g = flat(want.tolist()), flat(got.tolist())
        for i, (x, y) in enumerate(zip(w, g)):
            if bits(x) != bits(y):
                return self.fail("%s %s: element %d is %r, cpu gives %r"
                                 % (op, shape, i, y, x))

    def close(self, op, want, got, magnitudes, shape):
        self.checks += 1
        w, g = flat(want.tolist()), flat(got.tolist())
        if len(w) != len(g) or len(w) != len(magnitudes):
            return self.fail("%s %s: %d results, want %d"
                             % (op, shape, len(g), len(w)))
        for i, (x, y, mag) in enumerate(zip(w, g, magnitudes)):
            err = abs(x - y)
            allowed = TOLERANCE * mag
            ratio = err / allowed if allowed else (0.0 if err == 0 else 1e9)
            self.worst[op] = max(self.worst.get(op, 0.0), ratio)
            if err > allowed:
                return self.fail("%s %s: element %d is %r, cpu gives %r "
                                 "(error %.3g, allowed %.3g)"
                                 % (op, shape, i, y, x, err, allowed))

    def elementwise(self, rng):
        t = self.tfmini
        for n in LENGTHS:
            shape = (n,) if n % 2 else (2, n // 2)
            a_cpu, a_dev = self.pair(rng.values(n), shape)
            b_cpu, b_dev = self.pair(rng.values(n), shape)
            self.exact("add", t.add(a_cpu, b_cpu), t.add(a_dev, b_dev), shape)
            self.exact("mul", t.mul(a_cpu, b_cpu), t.mul(a_dev, b_dev), shape)
            self.exact("scale", t.scale(a_cpu, -1.375),
                       t.scale(a_dev, -1.375), shape)
            self.exact("relu", t.relu(a_cpu), t.relu(a_dev), shape)
            self.exact("to", a_cpu, a_dev.to("cpu"), shape)
            values = flat(a_cpu.tolist())
            self.close("sum", t.sum(a_cpu), t.sum(a_dev),
                       [sum(abs(v) for v in values)], shape)

    def matmul(self, rng):
        t = self.tfmini
        for m, k, n in MATMUL_SHAPES:
            av, bv = rng.values(m * k), rng.values(k * n)
            a_cpu, a_dev = self.pair(av, (m, k))
            b_cpu, b_dev = self.pair(bv, (k, n))
            a32, b32 = flat(a_cpu.tolist()), flat(b_cpu.tolist())
            mags = [sum(abs(a32[i * k + p] * b32[p * n + j]) for p in range(k))
                    for i in range(m) for j in range(n)]
            self.close("matmul", t.matmul(a_cpu, b_cpu),
                       t.matmul(a_dev, b_dev), mags, (m, k, n))

    def errors(self):
        t = self.tfmini
        a = t.tensor([1.0, -2.0, 3.0], device=self.device)
        b = t.tensor([1.0, 2.0, 3.0], device="cpu")
        for what, call in (("mixed devices", lambda: t.add(a, b)),
                           ("mismatched shapes",
                            lambda: t.add(a, t.tensor([1.0], device=self.device))),
                           ("matmul of vectors", lambda: t.matmul(a, a))):
            self.checks += 1
            try:
                call()
            except ValueError:
                continue
            self.fail("%s did not raise ValueError" % what)
        self.checks += 1
        if a.device != self.device or a.shape != (3,):
            self.fail("tensor on %s: device %r shape %r"
                      % (self.device, a.device, a.shape))


def option(args, name, env):
    value = getattr(args, name)
    return value if value is not None else os.environ.get(env)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--devices", help="exact devices() list, comma-separated")
    p.add_argument("--device", help="device type under test (default m1)")
    p.add_argument("--isa", help="expected plugin_info(device)['isa']")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--builtin", dest="kind", action="store_const",
                      const="builtin", help="expect the backend built in")
    kind.add_argument("--plugin", dest="kind", action="store_const",
                      const="plugin", help="expect the backend as a plugin")
    args = p.parse_args()
    devices = option(args, "devices", "SMOKE_DEVICES")
    device = option(args, "device", "SMOKE_DEVICE") or "m1"
    isa = option(args, "isa", "SMOKE_ISA")
    kind = option(args, "kind", "SMOKE_KIND")

    import tfmini

    found = tfmini.devices()
    print("tfmini %s from %s" % (tfmini.__version__,
                                 os.path.dirname(tfmini.__file__)))
    print("devices: %s" % ", ".join(found))
    if devices is not None and found != devices.split(","):
        print("FAIL: devices() is %r, want %r" % (found, devices.split(",")))
        return 1
    if device + ":0" not in found:
        print("FAIL: no device %s:0" % device)
        return 1
    info = tfmini.plugin_info(device)
    print("%s: %s %s, device API %s, isa %s%s" % (
        device, "built in" if info["builtin"] else "plugin",
        info["library_path"], info["api_version"], info["isa"],
        " (%s)" % info["note"] if info["note"] else ""))

    smoke = Smoke(tfmini, device + ":0")
    if isa is not None and info["isa"] != isa:
        smoke.fail("isa is %r, want %r" % (info["isa"], isa))
    if kind is not None and info["builtin"] != (kind == "builtin"):
        smoke.fail("backend is %s, want %s" % (
            "built in" if info["builtin"] else "a plugin", kind))
    rng = Rng(20240601)
    smoke.elementwise(rng)
    smoke.matmul(rng)
    smoke.errors()
    for op in sorted(smoke.worst):
        print("%s: worst error %.3g of the tolerance" % (op, smoke.worst[op]))
    for msg in smoke.failures[:20]:
        print("FAIL: " + msg)
    if smoke.failures:
        print("%d of %d checks failed on %s:0"
              % (len(smoke.failures), smoke.checks, device))
        return 1
    print("OK: %d checks on %s:0 (add, mul, scale, relu exact; sum, matmul "
          "within %g)" % (smoke.checks, device, TOLERANCE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
