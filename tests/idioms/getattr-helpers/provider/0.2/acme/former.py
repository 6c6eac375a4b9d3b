__former_attrs__ = {"float_": "use float64", "Inf": "use inf"}
__expired__ = {"product": "use prod"}


def prod(a):
    return a


float64 = float
inf = float("inf")
Inf = inf


def __getattr__(attr):
    if attr in __former_attrs__:
        raise AttributeError(__former_attrs__[attr])
    if attr in __expired__:
        raise AttributeError(f"`{attr}` was removed: {__expired__[attr]}")
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
