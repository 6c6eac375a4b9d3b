"""An __all__ extended by a function with another module's __all__ (numpy's extend_all)."""

from acme.np import types
from acme.np.types import *

__all__ = ["ones"]


def ones(n):
    return [1] * n


def extend_all(module):
    existing = set(__all__)
    for a in getattr(module, "__all__"):
        if a not in existing:
            __all__.append(a)


extend_all(types)
