"""Tests of the {{module}} package, run by the recipe's test on each target."""
import unittest

import {{module}}


class TestLibrary(unittest.TestCase):
    def test_add(self):
        self.assertEqual({{module}}.add(2, 3), 5)

    def test_overflow(self):
        with self.assertRaises(OverflowError):
            {{module}}.add(2**62, 2**62)

    def test_total(self):
        self.assertEqual({{module}}.total([1, 2, 3, 4]), 10)

    def test_version(self):
        self.assertEqual({{module}}.version(), "0.1.0")


if __name__ == "__main__":
    unittest.main()
