"""acme 0.2: old_run is gone from the renames, `extras` is no longer lazy, plugins.load lost
`strict`; constants come from a dict built by a comprehension and .update()."""

import importlib
import warnings

_RENAMED = {"OldThing": "Thing"}
_LAZY = ["plugins"]
_CONSTANTS = {k: v for k, v in [("ANSWER", 42)]}
_CONSTANTS.update({"NAME": "acme"})
_PRIVATE = frozenset({"_secret"})


def run(a, b=1):
    return a


class Thing:
    def __init__(self, size):
        self.size = size


def __getattr__(name):
    if name in _RENAMED:
        warnings.warn(f"{name} is deprecated; use {_RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[_RENAMED[name]]
    if name in _LAZY:
        return importlib.import_module("." + name, __name__)
    try:
        return _CONSTANTS[name]
    except KeyError:
        pass
    if name == "__version__":
        return "0.2"
    if name in _PRIVATE:
        return None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
