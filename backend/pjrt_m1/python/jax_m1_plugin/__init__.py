"""The m1 backend as a JAX PJRT plugin.

JAX imports this module through the entry point "m1" in the group
"jax_plugins" and calls initialize(), which registers libpjrt_m1.so
(beside this file) as the platform "m1" -- if the running jaxlib is in
the window this build was made for (_build.py, generated at build time
from the PJRT header and the jaxlib release). Outside it, initialize()
says so once, naming both versions, and registers nothing: JAX goes on
with its other backends (the CPU).

m1 holds arrays (jax.device_put, transfers back to the host, copies
between m1 devices); it compiles nothing, so it registers below the CPU:
the CPU stays JAX's default backend, jax.devices("m1") lists m1's.

Set JAX_M1_DEVICES=N for N devices (default 1).
"""

import logging
import os
import re

from . import _build

__version__ = "1.0.0"

_log = logging.getLogger(__name__)


def library_path():
    """The path of the plugin library installed beside this file."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "libpjrt_m1.so")


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
        pass
    try:
        import jaxlib.version
        return jaxlib.version.__version__
    except Exception:
        return None


def window_problem(running=None):
    """Why the running jaxlib is outside the window, or None."""
    running = running if running is not None else jaxlib_version()
    lo, hi = _build.JAXLIB_WINDOW
    pjrt = "%d.%d" % _build.PJRT_API_VERSION
    rel = _release(running) if running else None
    if rel is not None and _release(lo) <= rel < _release(hi):
        return None
    return ("jax_m1_plugin %s was built for jaxlib %s (PJRT C API %s; "
            "it loads into jaxlib >=%s,<%s), but the running jaxlib is %s: "
            "the m1 platform is not registered"
            % (__version__, _build.JAXLIB_BUILT_FOR, pjrt, lo, hi,
               running or "unknown"))


def compatibility_problem(env=None):
    """Why jaxlib would refuse the plugin's PJRT minor version, or None.

    jaxlib 0.10 accepts a plugin of its own PJRT C API major version and
    any minor one while ENABLE_PJRT_COMPATIBILITY is unset or true; set to
    anything else (false, 0, empty) it wants exactly its own version, and
    a plugin it refuses makes every JAX call fail, the CPU's included.
    """
    env = os.environ if env is None else env
    val = env.get("ENABLE_PJRT_COMPATIBILITY")
    if val is None or val.strip().lower() in ("1", "t", "true", "y", "yes"):
        return None
    return ("jax_m1_plugin %s is PJRT C API %d.%d, and "
            "ENABLE_PJRT_COMPATIBILITY=%s makes jaxlib accept only its own "
            "PJRT version: the m1 platform is not registered"
            % ((__version__,) + tuple(_build.PJRT_API_VERSION) + (val,)))


def _options():
    n = os.environ.get("JAX_M1_DEVICES", "")
    return {"num_devices": int(n)} if n.isdigit() else {}


def initialize():
    """Register the m1 platform with JAX (called by JAX itself)."""
    problem = window_problem() or compatibility_problem()
    if problem:
        _log.warning("%s", problem)
        return
    from jax._src import xla_bridge
    # Below the CPU's priority (0): m1 compiles nothing, so the CPU stays
    # JAX's default backend and m1 is used when asked for by name.
    xla_bridge.register_plugin("m1", priority=-100,
                               library_path=library_path(),
                               options=_options())
