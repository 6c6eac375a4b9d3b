"""The builtin aliases refused by __getattr__, from a table a comprehension builds (numpy
1.24-1.26's __former_attrs__)."""

import warnings

from acme.np import numeric
from acme.np.numeric import *

__all__ = ["numeric"]
__all__ += numeric.__all__

__former_attrs__ = {n: f"np.{n} was removed: use {n}" for n in ("float", "int", "bool", "object")}
__future_scalars__ = {"bool", "object"}


def __getattr__(attr):
    if attr in __future_scalars__:
        warnings.warn(f"np.{attr} will be a NumPy scalar", FutureWarning, stacklevel=2)
    if attr in __former_attrs__:
        raise AttributeError(__former_attrs__[attr])
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
