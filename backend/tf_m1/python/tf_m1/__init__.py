"""The m1 device backend for TensorFlow, as a PluggableDevice.

TensorFlow loads ../tensorflow-plugins/libtf_m1.so itself at
`import tensorflow` and shows the device as '/physical_device:M1:0'.
This package only reads what the library counts, for tests and
diagnostics.
"""

import ctypes
import os

__version__ = "0.1.0"


def library_path():
    """The path of the plugin library TensorFlow loads."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "tensorflow-plugins",
                        "libtf_m1.so")


def _lib():
    # Already loaded by TensorFlow: dlopen returns the same library.
    lib = ctypes.CDLL(library_path())
    lib.m1_tf_kernel_calls.restype = ctypes.c_ulonglong
    lib.m1_tf_kernel_calls.argtypes = [ctypes.c_char_p]
    lib.m1_tf_isa.restype = ctypes.c_char_p
    return lib


def kernel_calls(op):
    """How many times the op (e.g. "MatMul") ran on m1's kernels."""
    return _lib().m1_tf_kernel_calls(op.encode())


def isa():
    """The kernel table in use ("avx2", "neon", ...), or None when the
    device was not registered (another TensorFlow release)."""
    name = _lib().m1_tf_isa()
    return name.decode() if name else None
