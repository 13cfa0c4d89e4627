"""greet: a ctypes wrapper around libgreet.so, shipped beside this file."""
import ctypes
import os

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libgreet.so"))
_lib.greet_add.argtypes = [ctypes.c_int, ctypes.c_int]
_lib.greet_add.restype = ctypes.c_int


def add(a, b):
    return _lib.greet_add(a, b)


def hello(name):
    buf = ctypes.create_string_buffer(256)
    _lib.greet_format(buf, len(buf), name.encode())
    return buf.value.decode()
