"""Serd, the RDF syntax library (https://drobilla.net/software/serd.html),
through ctypes.

    import serd
    print(serd.turtle_to_ntriples('@prefix ex: <http://example.org/> . ex:a ex:b "c" .'))
"""
import ctypes
import os

__all__ = ["turtle_to_ntriples", "strerror", "SerdError"]

_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libserd-0.so.0"))

_TURTLE, _NTRIPLES = 1, 2  # SerdSyntax
_SUCCESS = 0               # SerdStatus


class _Chunk(ctypes.Structure):  # SerdChunk
    _fields_ = [("buf", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_p = ctypes.c_void_p
for _name, _res, _args in [
        ("serd_env_new", _p, [_p]),
        ("serd_env_free", None, [_p]),
        ("serd_writer_new", _p, [ctypes.c_int, ctypes.c_int, _p, _p, _p, _p]),
        ("serd_writer_finish", ctypes.c_int, [_p]),
        ("serd_writer_free", None, [_p]),
        ("serd_reader_new", _p, [ctypes.c_int, _p, _p, _p, _p, _p, _p]),
        ("serd_reader_read_string", ctypes.c_int, [_p, ctypes.c_char_p]),
        ("serd_reader_free", None, [_p]),
        ("serd_chunk_sink_finish", _p, [ctypes.POINTER(_Chunk)]),
        ("serd_strerror", ctypes.c_char_p, [ctypes.c_int]),
        ("serd_free", None, [_p])]:
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _res, _args


def _addr(name):
    """The C function NAME itself, to hand to serd as a callback."""
    return ctypes.cast(getattr(_lib, name), _p)


class SerdError(Exception):
    """A serd error status, with its message."""


def strerror(status):
    return _lib.serd_strerror(status).decode()


def turtle_to_ntriples(text):
    """Parse Turtle TEXT and return it as N-Triples, all in serd's C code:
    the reader's sinks are the writer's own functions."""
    env = _lib.serd_env_new(None)
    chunk = _Chunk(None, 0)
    writer = _lib.serd_writer_new(_NTRIPLES, 0, env, None,
                                  _addr("serd_chunk_sink"), ctypes.addressof(chunk))
    reader = _lib.serd_reader_new(_TURTLE, writer, None,
                                  _addr("serd_writer_set_base_uri"),
                                  _addr("serd_writer_set_prefix"),
                                  _addr("serd_writer_write_statement"),
                                  _addr("serd_writer_end_anon"))
    try:
        st = _lib.serd_reader_read_string(reader, text.encode())
        _lib.serd_writer_finish(writer)
    finally:
        _lib.serd_reader_free(reader)
        _lib.serd_writer_free(writer)
        _lib.serd_env_free(env)
        out = _lib.serd_chunk_sink_finish(ctypes.byref(chunk))
        result = ctypes.string_at(out).decode() if out else ""
        _lib.serd_free(out)
    if st != _SUCCESS:
        raise SerdError(strerror(st))
    return result
