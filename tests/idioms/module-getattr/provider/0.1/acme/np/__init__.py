"""The builtin aliases served with a deprecation by __getattr__ (numpy 1.23)."""

import builtins as _builtins
import warnings

from acme.np import numeric
from acme.np.numeric import *

__all__ = ["numeric"]
__all__ += numeric.__all__

__deprecated_attrs__ = {
    n: (getattr(_builtins, n), f"np.{n} is a deprecated alias") for n in ("float", "int", "bool", "object")
}


def __getattr__(attr):
    try:
        val, msg = __deprecated_attrs__[attr]
    except KeyError:
        pass
    else:
        warnings.warn(msg, DeprecationWarning, stacklevel=2)
        return val
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
