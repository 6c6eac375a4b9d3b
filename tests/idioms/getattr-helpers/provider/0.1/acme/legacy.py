"""Flask-style: a deprecated name imported and returned inside __getattr__."""


def current():
    return 1


def __getattr__(name):
    if name == "_stack":
        import warnings

        from acme.shapes import make as _stack

        warnings.warn("'_stack' is deprecated", DeprecationWarning, stacklevel=2)
        return _stack
    raise AttributeError(name)
