"""{{name}}: lib{{module}}, the C library beside this file, through ctypes."""
import ctypes
import os

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "lib{{module}}.so"))
_lib.{{module}}_add.argtypes = (ctypes.c_long, ctypes.c_long, ctypes.POINTER(ctypes.c_long))
_lib.{{module}}_add.restype = ctypes.c_int
_lib.{{module}}_version.argtypes = ()
_lib.{{module}}_version.restype = ctypes.c_char_p


def add(a, b):
    """a + b, computed in C; OverflowError past a C long."""
    out = ctypes.c_long()
    if _lib.{{module}}_add(a, b, ctypes.byref(out)):
        raise OverflowError("add: the sum overflows")
    return out.value


def total(values):
    """The sum of values, added in C one at a time."""
    result = 0
    for value in values:
        result = add(result, value)
    return result


def version():
    """lib{{module}}'s version."""
    return _lib.{{module}}_version().decode()


__all__ = ["add", "total", "version"]
