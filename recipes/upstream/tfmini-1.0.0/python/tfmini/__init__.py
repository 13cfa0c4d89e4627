"""tfmini: a small ML framework with pluggable device backends.

    >>> import tfmini
    >>> tfmini.devices()
    ['cpu:0', 'm1:0']
    >>> a = tfmini.tensor([[1, 2], [3, 4]], device="m1")
    >>> tfmini.matmul(a, a).tolist()
    [[7.0, 10.0], [15.0, 22.0]]

Device backends ("plugins") are shared libraries exporting
TFM_GetDeviceApi (see include/tfmini/device_api.h). They are found at
import, in this order, by tfmini._plugins.discover():

1. the entry-point group "tfmini.plugins" of installed distributions;
2. the TFMINI_PLUGINS environment variable, "name:path[,name:path...]";
3. every *.so in a "tfmini-plugins" directory in site-packages.

A plugin that cannot be loaded gives a tfmini.PluginWarning and is left
out; tfmini.load_plugin() raises tfmini.PluginError instead.
"""

import os as _os

from . import _tfmini
from ._tfmini import (  # noqa: F401  (re-exported)
    PluginError,
    Tensor,
    add,
    devices,
    matmul,
    mul,
    relu,
    scale,
    sum,
    tensor,
)

__version__ = "1.0.0"
__all__ = [
    "PluginError", "PluginWarning", "Tensor", "add", "api_version",
    "devices", "load_plugin", "matmul", "mul", "plugin_info", "relu",
    "scale", "sum", "tensor",
]

#: The device API version this tfmini implements, as (major, minor).
api_version = (_tfmini.API_VERSION_MAJOR, _tfmini.API_VERSION_MINOR)


class PluginWarning(UserWarning):
    """A plugin was found but not loaded; the message says why."""


def load_plugin(name, path):
    """Load the plugin library at path and register its devices as name.

    name may be None to use the name the plugin gives itself. Returns the
    registered device type name. Raises PluginError, naming the plugin,
    its path and the reason, if the library cannot be loaded, its device
    API version is not supported, or the name is already taken.
    """
    return _tfmini.load_plugin(name, _os.fspath(path))


def plugin_info(name):
    """Describe the backend registered as name (e.g. "m1") as a dict:

    name          the device type name, as in "m1:0"
    api_version   the device API version it implements, a "MAJOR.MINOR" str
    isa           the instruction set its kernels use ("avx2", "neon", ...)
    library_path  the plugin library's real path; for a backend built into
                  tfmini, the path of tfmini's extension module
    builtin       True if the backend is built into tfmini
    plugin_name   the name the plugin gives itself
    version       the plugin's own version string
    num_devices   how many devices it has
    note          a remark from the plugin (e.g. an ISA fallback), or None
    """
    info = _tfmini.plugin_info(name)
    if info["library_path"] is None:
        info["library_path"] = _os.path.realpath(_tfmini.__file__)
    return info


def _startup():
    import warnings

    from . import _plugins

    for msg in _tfmini._init_warnings:
        warnings.warn(msg, PluginWarning, stacklevel=3)
    _plugins.discover(load_plugin, PluginError, PluginWarning)


_startup()
