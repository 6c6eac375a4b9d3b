"""Names from the table, written into the namespace and __all__ in a loop; the builtins are
imported here but never exported (numpy's core/numerictypes.py)."""

from builtins import bool, float, int, object

from acme.np._aliases import all_types

__all__ = ["issctype"]


def issctype(x):
    return True


for key in all_types:
    globals()[key] = all_types[key]
    __all__.append(key)
