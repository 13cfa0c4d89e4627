"""tfmini's own tests of the reference CPU backend: `make check`."""

import unittest
import warnings

import tfmini


class TestCpu(unittest.TestCase):
    def test_devices(self):
        self.assertEqual(tfmini.devices()[0], "cpu:0")

    def test_tensor(self):
        t = tfmini.tensor([[1, 2, 3], [4, 5, 6]])
        self.assertEqual(t.shape, (2, 3))
        self.assertEqual(t.device, "cpu:0")
        self.assertEqual(t.tolist(), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        flat = tfmini.tensor([1, 2, 3, 4, 5, 6], shape=(3, 2))
        self.assertEqual(flat.tolist(), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        self.assertEqual(tfmini.tensor(2.5).tolist(), 2.5)
        self.assertEqual(tfmini.tensor([]).shape, (0,))

    def test_bad_tensors(self):
        with self.assertRaises(ValueError):
            tfmini.tensor([[1, 2], [3]])
        with self.assertRaises(ValueError):
            tfmini.tensor([1, 2, 3], shape=(2, 2))
        with self.assertRaises(TypeError):
            tfmini.tensor(["a"])
        with self.assertRaises(ValueError):
            tfmini.tensor([1], device="nope")
        with self.assertRaises(TypeError):
            tfmini.Tensor()

    def test_ops(self):
        a = tfmini.tensor([1.5, -2.0, 3.0])
        b = tfmini.tensor([2.0, 4.0, -1.0])
        self.assertEqual(tfmini.add(a, b).tolist(), [3.5, 2.0, 2.0])
        self.assertEqual(tfmini.mul(a, b).tolist(), [3.0, -8.0, -3.0])
        self.assertEqual(tfmini.scale(a, 2).tolist(), [3.0, -4.0, 6.0])
        self.assertEqual(tfmini.relu(a).tolist(), [1.5, 0.0, 3.0])
        self.assertEqual(tfmini.sum(a).tolist(), 2.5)
        self.assertEqual(tfmini.sum(a).shape, ())
        m = tfmini.tensor([[1, 2], [3, 4]])
        self.assertEqual(tfmini.matmul(m, m).tolist(),
                         [[7.0, 10.0], [15.0, 22.0]])

    def test_bad_ops(self):
        a = tfmini.tensor([1.0, 2.0])
        with self.assertRaises(ValueError):
            tfmini.add(a, tfmini.tensor([1.0]))
        with self.assertRaises(ValueError):
            tfmini.matmul(a, a)
        with self.assertRaises(TypeError):
            tfmini.add(a, [1.0, 2.0])

    def test_info(self):
        info = tfmini.plugin_info("cpu")
        self.assertEqual(info["api_version"], "1.0")
        self.assertTrue(info["builtin"])
        with self.assertRaises(KeyError):
            tfmini.plugin_info("nope")

    def test_load_missing(self):
        with self.assertRaises(tfmini.PluginError) as cm:
            tfmini.load_plugin("x", "/nonexistent/libx.so")
        self.assertIn("plugin 'x' (/nonexistent/libx.so): cannot load",
                      str(cm.exception))


if __name__ == "__main__":
    warnings.simplefilter("error")
    unittest.main()
