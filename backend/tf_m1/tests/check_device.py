"""The M1 PluggableDevice in a real TensorFlow: listed, and Relu, AddV2
and MatMul on '/M_ONE:0' agree with the CPU, eagerly and in a tf.function,
run by m1's kernels (the library's counters). Prints one "ok ..." line
per check and "isa NAME" last; raises on the first failure."""

import time

t0 = time.monotonic()
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_m1  # noqa: E402

print("import %.1f s" % (time.monotonic() - t0))
t1 = time.monotonic()

devices = tf.config.list_physical_devices()
assert tf.config.PhysicalDevice(name="/physical_device:M_ONE:0",
                                device_type="M_ONE") in devices, devices
print("ok listed", devices)

rng = np.random.default_rng(25)
a = rng.standard_normal((5, 7)).astype(np.float32)
b = rng.standard_normal((5, 7)).astype(np.float32)
c = rng.standard_normal((7, 3)).astype(np.float32)
big = rng.standard_normal((33, 65)).astype(np.float32)


def on(device, fn, *args):
    with tf.device(device):
        out = fn(*args)
    return out


def check(name, op, fn, *args, exact=True):
    before = tf_m1.kernel_calls(op)
    m1 = on("/M_ONE:0", fn, *args)
    after = tf_m1.kernel_calls(op)
    cpu = on("/CPU:0", fn, *args)
    assert m1.device.endswith("device:M_ONE:0"), (name, m1.device)
    assert after > before, (name, op, before, after)
    if exact:
        np.testing.assert_array_equal(m1.numpy(), cpu.numpy(), err_msg=name)
    else:
        np.testing.assert_allclose(m1.numpy(), cpu.numpy(), rtol=1e-5,
                                   atol=1e-5, err_msg=name)
    print("ok %s (%s: %d call(s))" % (name, op, after - before))


check("relu", "Relu", tf.nn.relu, a)
check("add", "AddV2", tf.add, a, b)
check("matmul", "MatMul", tf.matmul, a, c, exact=False)
check("matmul transpose_a", "MatMul",
      lambda x, y: tf.matmul(x, y, transpose_a=True), a, b, exact=False)
check("matmul transpose_b", "MatMul",
      lambda x, y: tf.matmul(x, y, transpose_b=True), a, b, exact=False)
check("matmul 33x65", "MatMul",
      lambda x: tf.matmul(x, x, transpose_b=True), big, exact=False)


@tf.function
def layer(x, w, bias):
    return tf.nn.relu(tf.add(tf.matmul(x, w), bias))


bias = rng.standard_normal((5, 3)).astype(np.float32)
calls = {op: tf_m1.kernel_calls(op) for op in ("Relu", "AddV2", "MatMul")}
m1 = on("/M_ONE:0", layer, a, c, bias)
cpu = on("/CPU:0", layer, a, c, bias)
np.testing.assert_allclose(m1.numpy(), cpu.numpy(), rtol=1e-5, atol=1e-5)
for op, n in calls.items():
    assert tf_m1.kernel_calls(op) > n, (op, n)
print("ok tf.function (Relu, AddV2, MatMul on m1)")

print("checks %.1f s" % (time.monotonic() - t1))
print("isa", tf_m1.isa())
