"""Tables a function fills at import time, from what the analysis cannot read (the
environment): whatever they hold, a name may be among them."""

import os

_TABLE = {}
_NAMES = ()


def _fill():
    for key in [*sorted(os.environ), "HOME_DIR"]:
        _TABLE[key] = key.lower()


def _load():
    global _NAMES
    _NAMES = (*sorted(os.environ), "USER_DIR")


_fill()
_load()


def __getattr__(name):
    if name in _TABLE:
        return _TABLE[name]
    if name in _NAMES:
        return name
    raise AttributeError(name)
