"""acme 0.1: a module __getattr__ that serves deprecated aliases, lazy submodules, a version."""

import importlib
import warnings

_RENAMED = {"old_run": "run", "OldThing": "Thing"}
_LAZY = ("plugins", "extras")
_CONSTANTS = {**{"ANSWER": 42}, **{"NAME": "acme"}}
_PRIVATE = frozenset(f"_{n}" for n in ("secret", "hidden"))


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
        return importlib.import_module(f".{name}", __name__)
    if name in _CONSTANTS:
        return _CONSTANTS[name]
    if name == "__version__":
        return "0.1"
    if name in _PRIVATE:
        return None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
