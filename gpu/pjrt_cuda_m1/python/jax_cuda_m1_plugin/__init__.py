"""The m1 backend on CUDA as a JAX PJRT plugin.

JAX imports this module through the entry point "m1" in the group
"jax_plugins" and calls initialize(). It registers libpjrt_cuda_m1.so
(beside this file) as the platform "m1", its arrays in CUDA memory,
if two things hold:
  - the running jaxlib is in the window this build was made for
    (_build.py, from the PJRT header and the jaxlib release, as
    jax_m1_plugin's);
  - libm1_cuda.so's m1_cuda_available() counts a CUDA device: the
    library is loaded through ctypes, libcudart.so.13 from the
    nvidia-cuda-runtime wheel through its RUNPATH.
Otherwise it says why in one line (CUDA's own error string when there
is no device) and registers nothing: JAX goes on with the CPU.

It is jax_m1_plugin's platform on another device (the same PJRT code):
install one of the two. One m1 device per CUDA device.
"""

import ctypes
import logging
import os
import re

from . import _build

__version__ = "1.0.0"

_log = logging.getLogger(__name__)
_here = os.path.dirname(os.path.abspath(__file__))


def library_path():
    """The path of the PJRT plugin library installed beside this file."""
    return os.path.join(_here, "libpjrt_cuda_m1.so")


def cuda_devices():
    """(the number of CUDA devices, why there is none or None)."""
    try:
        lib = ctypes.CDLL(os.path.join(_here, "libm1_cuda.so"))
    except OSError as e:
        return 0, "cannot load libm1_cuda.so: %s" % e
    why = ctypes.c_char_p()
    lib.m1_cuda_available.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    lib.m1_cuda_available.restype = ctypes.c_int
    n = lib.m1_cuda_available(ctypes.byref(why))
    if n > 0:
        return n, None
    return 0, (why.value or b"no device").decode("utf-8", "replace")


def _release(version):
    """(major, minor) of a version string: "0.10.2" -> (0, 10)."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def jaxlib_version():
    """The running jaxlib's version, or None when it cannot be read."""
    try:
        from importlib.metadata import version
        return version("jaxlib")
    except Exception:
        return None


def window_problem(running=None):
    """Why the running jaxlib is outside the window, or None."""
    running = running if running is not None else jaxlib_version()
    lo, hi = _build.JAXLIB_WINDOW
    rel = _release(running) if running else None
    if rel is not None and _release(lo) <= rel < _release(hi):
        return None
    return ("jax_cuda_m1_plugin %s was built for jaxlib %s (PJRT C API "
            "%d.%d; it loads into jaxlib >=%s,<%s), but the running jaxlib "
            "is %s: the m1 platform is not registered"
            % ((__version__, _build.JAXLIB_BUILT_FOR)
               + tuple(_build.PJRT_API_VERSION) + (lo, hi,
                                                   running or "unknown")))


def compatibility_problem(env=None):
    """Why jaxlib would refuse the plugin's PJRT minor version, or None
    (ENABLE_PJRT_COMPATIBILITY off: see jax_m1_plugin)."""
    env = os.environ if env is None else env
    val = env.get("ENABLE_PJRT_COMPATIBILITY")
    if val is None or val.strip().lower() in ("1", "t", "true", "y", "yes"):
        return None
    return ("jax_cuda_m1_plugin %s is PJRT C API %d.%d, and "
            "ENABLE_PJRT_COMPATIBILITY=%s makes jaxlib accept only its own "
            "PJRT version: the m1 platform is not registered"
            % ((__version__,) + tuple(_build.PJRT_API_VERSION) + (val,)))


def initialize():
    """Register the m1 platform on CUDA with JAX (called by JAX itself)."""
    problem = window_problem() or compatibility_problem()
    if problem:
        _log.warning("%s", problem)
        return
    n, why = cuda_devices()
    if not n:
        _log.warning("jax_cuda_m1_plugin: no CUDA device: %s: the m1 "
                     "platform is not registered", why)
        return
    from jax._src import xla_bridge
    # Below the CPU's priority (0): m1 compiles nothing, so the CPU stays
    # JAX's default backend and m1 is used when asked for by name.
    xla_bridge.register_plugin("m1", priority=-100,
                               library_path=library_path(),
                               options={"num_devices": min(n, 64)})
