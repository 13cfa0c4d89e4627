"""Plugin discovery, the way larger frameworks do it.

Order (first registration of a device name wins; built-in backends
were registered before any of these):

1. entry points in the group "tfmini.plugins": the entry's name is the
   device name; its object is either a function returning the library
   path or a str holding it;
2. TFMINI_PLUGINS="name:path[,name:path...]";
3. every *.so in a "tfmini-plugins" directory beside the tfmini package
   or in any site-packages directory; the plugin names itself.

Works on Python 3.8 to 3.12: importlib.metadata.entry_points() returns
a dict of lists before 3.10 and a selectable collection after.
"""

import os
import warnings

GROUP = "tfmini.plugins"
ENV = "TFMINI_PLUGINS"
DROP_IN_DIR = "tfmini-plugins"


def entry_points(group=GROUP):
    """The entry points of group, one per name, sorted by name."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return []
    eps = metadata.entry_points()
    if hasattr(eps, "select"):
        found = eps.select(group=group)
    else:
        found = eps.get(group, [])
    by_name = {}
    for ep in found:
        by_name.setdefault(ep.name, ep)
    return [by_name[name] for name in sorted(by_name)]


def entry_point_path(ep):
    """The library path an entry point names: a function's result or a str."""
    obj = ep.load()
    if callable(obj):
        obj = obj()
    return os.fspath(obj)


def env_plugins(value, warn):
    """Parse TFMINI_PLUGINS into (name, path) pairs."""
    pairs = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, path = item.partition(":")
        if not sep or not name or not path:
            warn("tfmini: %s: '%s' is not name:path" % (ENV, item))
            continue
        pairs.append((name, path))
    return pairs


def drop_in_dirs():
    """Existing tfmini-plugins directories, each once."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    try:
        import site

        roots += site.getsitepackages()
        if site.ENABLE_USER_SITE:
            roots.append(site.getusersitepackages())
    except AttributeError:  # an old virtualenv's site.py
        pass
    dirs, seen = [], set()
    for root in roots:
        d = os.path.join(root, DROP_IN_DIR)
        real = os.path.realpath(d)
        if real not in seen and os.path.isdir(d):
            seen.add(real)
            dirs.append(d)
    return dirs


def discover(load_plugin, error, category):
    """Load every plugin found; warn (category) for each that fails (error)."""

    def warn(msg):
        warnings.warn(msg, category, stacklevel=4)

    def attempt(name, path):
        try:
            load_plugin(name, path)
        except error as e:
            warn(str(e))

    for ep in entry_points():
        try:
            path = entry_point_path(ep)
        except Exception as e:  # a broken plugin package must not break us
            warn("tfmini: plugin '%s' (entry point %s): cannot get its "
                 "library path: %s: %s" % (ep.name, ep.value,
                                           type(e).__name__, e))
            continue
        attempt(ep.name, path)
    for name, path in env_plugins(os.environ.get(ENV, ""), warn):
        attempt(name, path)
    for d in drop_in_dirs():
        for f in sorted(os.listdir(d)):
            if f.endswith(".so"):
                attempt(None, os.path.join(d, f))
