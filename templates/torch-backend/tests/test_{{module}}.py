"""Tests of the {{module}} backend, run by the recipe's test on each target:
natively for x86_64, in Debian's arm64 CPython and torch under qemu for
aarch64."""
import unittest

import torch

import {{module}}


class TestDevice(unittest.TestCase):
    def test_empty(self):
        x = torch.empty(5, device="privateuseone")
        self.assertEqual(x.device, {{module}}.device)
        self.assertEqual(tuple(x.shape), (5,))

    def test_to_and_back(self):
        a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        x = a.to({{module}}.device)
        self.assertEqual(x.device, {{module}}.device)
        back = x.cpu()
        self.assertEqual(back.device.type, "cpu")
        self.assertTrue(torch.equal(back, a))


class TestAdd(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.a, self.b = torch.randn(4, 37), torch.randn(4, 37)
        self.x, self.y = self.a.to({{module}}.device), self.b.to({{module}}.device)

    def test_add(self):
        z = self.x + self.y
        self.assertEqual(z.device, {{module}}.device)
        self.assertTrue(torch.equal(z.cpu(), self.a + self.b))

    def test_add_alpha(self):
        z = torch.add(self.x, self.y, alpha=2)
        self.assertTrue(torch.equal(z.cpu(), torch.add(self.a, self.b, alpha=2)))

    def test_other_dtypes_are_refused_by_the_kernel(self):
        i = torch.arange(3).to({{module}}.device)
        with self.assertRaisesRegex(RuntimeError, "only float32 is implemented"):
            i + i


class TestUnregistered(unittest.TestCase):
    def test_other_operators_raise(self):
        # The device implements add only: sub is not registered for it.
        x = torch.ones(3).to({{module}}.device)
        with self.assertRaisesRegex(NotImplementedError, "aten::sub"):
            x - x


if __name__ == "__main__":
    unittest.main()
