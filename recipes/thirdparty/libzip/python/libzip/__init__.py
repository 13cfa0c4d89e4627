"""libzip (https://libzip.org), the zip archive library, through ctypes.

    import libzip
    libzip.write("a.zip", {"a.txt": (b"hello", libzip.BZIP2)})
    libzip.read("a.zip")   # {"a.txt": (b"hello", libzip.BZIP2)}

libzip links zlib and libbz2; this wheel carries its own copies of them
(in libzip.libs/, found through libzip.so.5's RUNPATH).
"""
import ctypes
import os

__all__ = ["read", "write", "version", "STORE", "DEFLATE", "BZIP2", "ZipError"]

_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libzip.so.5"))

STORE, DEFLATE, BZIP2 = 0, 8, 12          # ZIP_CM_*
_CREATE, _TRUNCATE, _RDONLY = 1, 8, 16     # zip_open flags
_FL_OVERWRITE = 8192


class _Stat(ctypes.Structure):  # struct zip_stat
    _fields_ = [("valid", ctypes.c_uint64), ("name", ctypes.c_char_p),
                ("index", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("comp_size", ctypes.c_uint64), ("mtime", ctypes.c_long),
                ("crc", ctypes.c_uint32), ("comp_method", ctypes.c_uint16),
                ("encryption_method", ctypes.c_uint16), ("flags", ctypes.c_uint32)]


_p = ctypes.c_void_p
for _name, _res, _args in [
        ("zip_libzip_version", ctypes.c_char_p, []),
        ("zip_open", _p, [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
        ("zip_close", ctypes.c_int, [_p]),
        ("zip_discard", None, [_p]),
        ("zip_get_error", _p, [_p]),
        ("zip_error_strerror", ctypes.c_char_p, [_p]),
        ("zip_error_init_with_code", None, [_p, ctypes.c_int]),
        ("zip_error_fini", None, [_p]),
        ("zip_source_buffer", _p, [_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_int]),
        ("zip_source_free", None, [_p]),
        ("zip_file_add", ctypes.c_int64, [_p, ctypes.c_char_p, _p, ctypes.c_uint32]),
        ("zip_set_file_compression", ctypes.c_int,
         [_p, ctypes.c_uint64, ctypes.c_int32, ctypes.c_uint32]),
        ("zip_get_num_entries", ctypes.c_int64, [_p, ctypes.c_uint32]),
        ("zip_stat_index", ctypes.c_int, [_p, ctypes.c_uint64, ctypes.c_uint32,
                                          ctypes.POINTER(_Stat)]),
        ("zip_fopen_index", _p, [_p, ctypes.c_uint64, ctypes.c_uint32]),
        ("zip_fread", ctypes.c_int64, [_p, _p, ctypes.c_uint64]),
        ("zip_fclose", ctypes.c_int, [_p])]:
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _res, _args


class ZipError(Exception):
    """A libzip error, with libzip's message."""


def version():
    """The version of the libzip this package carries, e.g. '1.7.3'."""
    return _lib.zip_libzip_version().decode()


def _open(path, flags):
    err = ctypes.c_int(0)
    za = _lib.zip_open(os.fsencode(path), flags, ctypes.byref(err))
    if not za:
        ze = ctypes.create_string_buffer(64)  # zip_error_t, opaque here
        _lib.zip_error_init_with_code(ze, err.value)
        msg = _lib.zip_error_strerror(ze).decode()
        _lib.zip_error_fini(ze)
        raise ZipError("%s: %s" % (path, msg))
    return za


def _fail(za, what):
    msg = _lib.zip_error_strerror(_lib.zip_get_error(za)).decode()
    _lib.zip_discard(za)
    raise ZipError("%s: %s" % (what, msg))


def write(path, members):
    """Write a zip at PATH from {name: (bytes, method)}, method one of
    STORE, DEFLATE, BZIP2."""
    za = _open(path, _CREATE | _TRUNCATE)
    keep = []  # libzip reads the buffers at zip_close
    for name, (data, method) in sorted(members.items()):
        buf = ctypes.create_string_buffer(data, len(data))
        keep.append(buf)
        src = _lib.zip_source_buffer(za, buf, len(data), 0)
        if not src:
            _fail(za, name)
        idx = _lib.zip_file_add(za, name.encode(), src, _FL_OVERWRITE)
        if idx < 0:
            _lib.zip_source_free(src)
            _fail(za, name)
        if _lib.zip_set_file_compression(za, idx, method, 0) < 0:
            _fail(za, name)
    if _lib.zip_close(za) < 0:
        _fail(za, path)


def read(path):
    """Read the zip at PATH into {name: (bytes, method)}."""
    za = _open(path, _RDONLY)
    out = {}
    try:
        for i in range(_lib.zip_get_num_entries(za, 0)):
            st = _Stat()
            if _lib.zip_stat_index(za, i, 0, ctypes.byref(st)) < 0:
                _fail(za, "entry %d" % i)
            zf = _lib.zip_fopen_index(za, i, 0)
            if not zf:
                _fail(za, st.name.decode())
            buf = ctypes.create_string_buffer(st.size or 1)
            n = _lib.zip_fread(zf, buf, st.size)
            _lib.zip_fclose(zf)
            if n != st.size:
                raise ZipError("%s: short read" % st.name.decode())
            out[st.name.decode()] = (buf.raw[:n], st.comp_method)
    finally:
        _lib.zip_discard(za)
    return out
