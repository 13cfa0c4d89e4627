"""libspng, the PNG decoder (https://libspng.org), through ctypes.

    import spng
    width, height, rgba = spng.decode(open("x.png", "rb").read())
"""
import ctypes
import os

__all__ = ["decode", "version", "SpngError"]

_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libspng.so"))

_FMT_RGBA8 = 1  # enum spng_format


class _Ihdr(ctypes.Structure):  # struct spng_ihdr
    _fields_ = [("width", ctypes.c_uint32), ("height", ctypes.c_uint32),
                ("bit_depth", ctypes.c_uint8), ("color_type", ctypes.c_uint8),
                ("compression_method", ctypes.c_uint8),
                ("filter_method", ctypes.c_uint8),
                ("interlace_method", ctypes.c_uint8)]


_lib.spng_version_string.restype = ctypes.c_char_p
_lib.spng_version_string.argtypes = []
_lib.spng_strerror.restype = ctypes.c_char_p
_lib.spng_strerror.argtypes = [ctypes.c_int]
_lib.spng_ctx_new.restype = ctypes.c_void_p
_lib.spng_ctx_new.argtypes = [ctypes.c_int]
_lib.spng_ctx_free.restype = None
_lib.spng_ctx_free.argtypes = [ctypes.c_void_p]
_lib.spng_set_png_buffer.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
_lib.spng_get_ihdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Ihdr)]
_lib.spng_decoded_image_size.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_size_t)]
_lib.spng_decode_image.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                   ctypes.c_int, ctypes.c_int]


class SpngError(Exception):
    """A libspng error, with its message."""


def version():
    """The version of the libspng this package carries, e.g. '0.7.3'."""
    return _lib.spng_version_string().decode()


def _check(ret):
    if ret != 0:
        raise SpngError(_lib.spng_strerror(ret).decode())


def decode(png):
    """Decode PNG bytes into (width, height, RGBA8 bytes)."""
    ctx = _lib.spng_ctx_new(0)
    if not ctx:
        raise MemoryError("spng_ctx_new")
    try:
        _check(_lib.spng_set_png_buffer(ctx, png, len(png)))
        ihdr = _Ihdr()
        _check(_lib.spng_get_ihdr(ctx, ctypes.byref(ihdr)))
        size = ctypes.c_size_t()
        _check(_lib.spng_decoded_image_size(ctx, _FMT_RGBA8, ctypes.byref(size)))
        out = ctypes.create_string_buffer(size.value)
        _check(_lib.spng_decode_image(ctx, out, size.value, _FMT_RGBA8, 0))
        return ihdr.width, ihdr.height, out.raw
    finally:
        _lib.spng_ctx_free(ctx)
