"""{{name}}: a PJRT plugin for JAX, the platform "{{module}}".

JAX imports this package through the entry point "{{module}}" in the
group "jax_plugins" and calls initialize(), which registers
lib{{module}}.so (beside this file) -- if the running jaxlib is in the
window this build was made for (_build.py, written at build time from
the PJRT header and the jaxlib release). Outside it, initialize() says
so once, naming both versions, and registers nothing: JAX goes on with
its other backends.

The plugin holds float32 arrays (jax.device_put, and back to the host);
it compiles nothing, so it registers below the CPU: the CPU stays JAX's
default backend, and jax.devices("{{module}}") lists this one's.
"""

import logging
import os
import re

from . import _build

__version__ = "0.1.0"

_log = logging.getLogger(__name__)


def library_path():
    """The path of the plugin library installed beside this file."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "lib{{module}}.so")


def _release(version):
    """(major, minor) of a version string: "0.10.2" -> (0, 10)."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def window_problem(running=None):
    """Why the running jaxlib is outside the window, or None."""
    if running is None:
        try:
            from importlib.metadata import version
            running = version("jaxlib")
        except Exception:
            running = None
    lo, hi = _build.JAXLIB_WINDOW
    rel = _release(running)
    if rel is not None and _release(lo) <= rel < _release(hi):
        return None
    return ("{{module}} %s was built for jaxlib %s (PJRT C API %d.%d; it "
            "loads into jaxlib >=%s,<%s), but the running jaxlib is %s: "
            "the {{module}} platform is not registered"
            % ((__version__, _build.JAXLIB_BUILT_FOR)
               + tuple(_build.PJRT_API_VERSION)
               + (lo, hi, running or "unknown")))


def initialize():
    """Register the {{module}} platform with JAX (called by JAX itself)."""
    problem = window_problem()
    if problem:
        _log.warning("%s", problem)
        return
    from jax._src import xla_bridge
    # Below the CPU's priority (0): the plugin compiles nothing, so the
    # CPU stays JAX's default backend and this one is used when named.
    xla_bridge.register_plugin("{{module}}", priority=-100,
                               library_path=library_path())
