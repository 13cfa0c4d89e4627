"""The m1 device backend for tfmini, as a plugin.

tfmini finds it through the entry point "m1" in the group
"tfmini.plugins", which names library_path() below. Nothing else here
is meant to be imported.
"""

import os

__version__ = "1.0.0"


def library_path():
    """The path of the plugin library installed beside this file."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "libtfmini_m1.so")
