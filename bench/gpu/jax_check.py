"""The installed jax_cuda_m1_plugin wheel on a GPU (bench/gpu/run.sh):
JAX lists one m1 device per CUDA device, arrays go to CUDA memory and
come back bit for bit, and the wheel's own libm1_cuda.so computes relu,
add and a matmul on the device with numpy's results. Prints a table;
exit 0 when every check holds, 1 when one does not, 2 when there is no
CUDA device (the plugin's one line then comes first, from JAX).

    python jax_check.py
"""
import ctypes
import os
import sys

import numpy as np

import jax_cuda_m1_plugin as plugin

here = os.path.dirname(os.path.abspath(plugin.__file__))
print("jax_cuda_m1_plugin from", here)
n, why = plugin.cuda_devices()
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64 stays float64
print("jax", jax.__version__, "jaxlib", plugin.jaxlib_version())
print("JAX's devices:", jax.devices())  # the plugin's line, if any
if not n:
    print("no CUDA device:", why)
    sys.exit(2)

bad = 0


def row(what, detail, ok):
    global bad
    bad |= not ok
    print("| %-28s | %-26s | %-4s |" % (what, detail, "ok" if ok else "FAIL"))


print("| check                        | detail                     |      |")
print("|------------------------------|----------------------------|------|")
devs = jax.devices("m1")
row("m1 devices", "%d for %d CUDA" % (len(devs), n), len(devs) == min(n, 64))
d = devs[0]
rng = np.random.default_rng(38)
cases = 0
same = True
for dt in (np.float32, np.float64, np.int32, np.int8, np.uint8, np.float16):
    for shape in ((), (0,), (7,), (2, 3), (4, 5, 6), (1024, 1024)):
        size = int(np.prod(shape)) * np.dtype(dt).itemsize
        x = rng.integers(0, 256, size=size, dtype=np.uint8).view(dt)
        x = x.reshape(shape)
        y = jax.device_put(x, d)
        same &= y.devices() == {d} and np.asarray(y).tobytes() == x.tobytes()
        cases += 1
row("to CUDA memory and back", "%d arrays, bit for bit" % cases, same)
x = np.arange(24, dtype=np.int32).reshape(4, 6).T
y = jax.device_put(x, d)
row("strided host array", "4x6 transposed",
    np.asarray(y).tobytes() == np.ascontiguousarray(x).tobytes())
if len(devs) > 1:
    z = jax.device_put(y, devs[1])
    row("device to device", "m1:0 to m1:1",
        np.asarray(z).tobytes() == np.ascontiguousarray(x).tobytes())
c = jax.device_put(y, jax.devices("cpu")[0])
row("to the CPU, summed there", "jax.numpy on the CPU",
    int(jax.numpy.sum(c)) == int(x.sum()))

# The wheel's kernels, as the plugin's package installed them.
lib = ctypes.CDLL(os.path.join(here, "libm1_cuda.so"))
f32 = np.ctypeslib.ndpointer(np.float32, flags="C_CONTIGUOUS")
lib.m1_cuda_relu.argtypes = [f32, f32, ctypes.c_size_t]
lib.m1_cuda_add.argtypes = [f32, f32, f32, ctypes.c_size_t]
lib.m1_cuda_matmul.argtypes = [f32, f32, f32] + [ctypes.c_int] * 3
lib.m1_cuda_error.restype = ctypes.c_char_p


def call(fn, *args):
    err = fn(*args)
    if err:
        print("m1 CUDA failed:", lib.m1_cuda_error(err).decode())
    return err == 0


a = rng.standard_normal(1 << 22).astype(np.float32)
b = rng.standard_normal(1 << 22).astype(np.float32)
out = np.empty_like(a)
row("relu on the device", "4194304, equal to numpy",
    call(lib.m1_cuda_relu, a, out, a.size) and
    np.array_equal(out, np.maximum(a, 0)))
row("add on the device", "4194304, equal to numpy",
    call(lib.m1_cuda_add, a, b, out, a.size) and np.array_equal(out, a + b))
m, k, p = 512, 384, 256
x = rng.standard_normal((m, k)).astype(np.float32)
w = rng.standard_normal((k, p)).astype(np.float32)
out = np.empty((m, p), np.float32)
ok = call(lib.m1_cuda_matmul, x, w, out, m, k, p)
diff = float(np.max(np.abs(out - x @ w))) if ok else float("inf")
row("matmul on the device", "512x384x256, max diff %.2g" % diff,
    ok and diff < 1e-3)
sys.exit(1 if bad else 0)
