"""{{name}}: a TensorFlow PluggableDevice, '/{{DEVICE}}:0'.

TensorFlow loads ../tensorflow-plugins/lib{{module}}.so by itself at
`import tensorflow` (every library in a tensorflow-plugins directory of
site-packages); this package only names the device:

    import tensorflow as tf, {{module}}
    with tf.device({{module}}.device):
        y = tf.nn.relu(x)
"""
import os

__version__ = "0.1.0"

# TensorFlow's device type ([A-Z][A-Z_]* only: the digits of the
# project's name are spelled out).
device_type = "{{DEVICE}}"
device = "/%s:0" % device_type


def library_path():
    """The path of the plugin library TensorFlow loads."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "tensorflow-plugins",
                        "lib{{module}}.so")


__all__ = ["device", "device_type", "library_path"]
