"""numpy-style: removed names are refused with a message."""

__former_attrs__ = {"float_": "use float64"}
__expired__ = {"product": "use prod"}


def prod(a):
    return a


float64 = float


def __getattr__(attr):
    if attr in __former_attrs__:
        raise AttributeError(__former_attrs__[attr])
    if attr in __expired__:
        raise AttributeError(f"`{attr}` was removed: {__expired__[attr]}")
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
