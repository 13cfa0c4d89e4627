"""JAX with the m1 PJRT plugin, as a user drives it:
  python check_jax.py
(the plugin found through its "jax_plugins" entry point, or on
PYTHONPATH). Prints "ok ..." lines, then "isa X" last; raises at the
first failure.
"""
import os
import sys

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import jax_m1_plugin  # noqa: E402

print("from", os.path.dirname(os.path.abspath(jax_m1_plugin.__file__)))
print("jax", jax.__version__)
devs = jax.devices("m1")
want = int(os.environ.get("JAX_M1_DEVICES", "1"))
assert len(devs) == want, devs
assert [d.id for d in devs] == list(range(want)), devs
d = devs[0]
assert d.platform == "m1" and d.device_kind == "M1", (d.platform, d.device_kind)
assert d.process_index == 0
assert jax.default_backend() == "cpu", jax.default_backend()
isa = getattr(d, "isa", None)
assert isa in ("avx2", "sse2", "neon", "scalar"), isa
mem = d.default_memory()
assert mem.kind == "device", mem.kind
assert d.addressable_memories() == [mem]
print("ok devices", devs, "kind", d.device_kind, "memory", mem.kind)

rng = np.random.default_rng(25)
shapes = [(), (0,), (3, 0, 2), (7,), (2, 3), (4, 5, 6)]
dtypes = [np.float32, np.float64, np.int32, np.int8, np.uint8, np.int64,
          np.float16, ml_dtypes.bfloat16, np.bool_, np.complex64]
n = 0
for dt in dtypes:
    for shape in shapes:
        raw = rng.integers(0, 256, size=int(np.prod(shape)) *
                           np.dtype(dt).itemsize, dtype=np.uint8)
        x = raw.view(dt).reshape(shape) if dt != np.bool_ else \
            (raw % 2).astype(np.bool_).reshape(shape)
        y = jax.device_put(x, d)
        assert y.devices() == {d}, y.devices()
        assert y.dtype == x.dtype and y.shape == x.shape, (y.dtype, y.shape)
        back = np.asarray(y)
        assert back.dtype == x.dtype and back.shape == x.shape
        assert back.tobytes() == x.tobytes(), (dt, shape)
        n += 1
print("ok", n, "arrays round trip bit for bit")

# A strided (transposed) host array: the plugin honours byte_strides.
x = np.arange(24, dtype=np.int32).reshape(4, 6).T
assert not x.flags.c_contiguous
y = jax.device_put(x, d)
assert np.asarray(y).tobytes() == np.ascontiguousarray(x).tobytes()
print("ok strided host array")

if len(devs) > 1:
    z = jax.device_put(y, devs[1])
    assert z.devices() == {devs[1]}
    assert np.asarray(z).tobytes() == np.ascontiguousarray(x).tobytes()
    print("ok copy between m1 devices")

# Back to the CPU, and the CPU still computes.
c = jax.device_put(y, jax.devices("cpu")[0])
assert int(jnp.sum(c)) == int(x.sum())
print("ok to the cpu and computed there")

# Compiling for m1 is an error with the plugin's message, not a crash.
try:
    jax.jit(lambda v: v + 1)(y)
except Exception as e:
    msg = str(e)
    assert "the m1 plugin cannot compile StableHLO" in msg, msg
    print("ok jit refused:", msg.splitlines()[0][:160])
else:
    raise AssertionError("jit on m1 did not fail")

y.delete()
assert y.is_deleted()
print("ok delete")
print("isa", isa)
sys.stdout.flush()
