"""Decorators of every shape, written for the catalogue."""

import functools
import warnings


def identity(func):
    return func


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def updated(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    functools.update_wrapper(wrapper, func)
    return wrapper


def plain_forwarder(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def maybe(enabled=True):
    def decorate(func):
        if not enabled:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper

    return decorate


class Traced:
    def __init__(self, label):
        self.label = label

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper


def renamed(**renames):
    """Accept old keyword names, with a warning, and pass them on under the new ones."""

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    warnings.warn(f"{old} is now {new}", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def keyword_only_soon(func):
    """Positional use of the keyword-only parameters still works, with a warning."""
    import inspect

    signature = inspect.signature(func)
    positional = [p.name for p in signature.parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
    keyword_only = [p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        extra = len(args) - len(positional)
        if extra <= 0:
            return func(*args, **kwargs)
        warnings.warn("pass them as keywords", FutureWarning, stacklevel=2)
        kwargs.update(zip(keyword_only, args[len(positional) :]))
        return func(*args[: len(positional)], **kwargs)

    return wrapper


def opaque(func):
    def wrapper(x):
        return func(x, 1)

    return wrapper


traced = functools.partial(maybe, enabled=True)


_REGISTRY = {}


def registered(func):
    return _REGISTRY.setdefault(func.__name__, func)
