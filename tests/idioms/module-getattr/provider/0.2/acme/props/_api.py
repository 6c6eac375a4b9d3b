"""A decorator that turns a class's properties into a module's dynamic names."""

import functools
import warnings


def module_properties(cls):
    props = {name: p for name, p in vars(cls).items() if isinstance(p, property)}
    instance = cls()

    @functools.cache
    def __getattr__(name):
        if name in props:
            return props[name].__get__(instance)
        raise AttributeError(f"module {cls.__module__!r} has no attribute {name!r}")

    return __getattr__


def deprecated(prop):
    def getter(self):
        warnings.warn("deprecated", DeprecationWarning, stacklevel=2)
        return prop.fget(self)

    return property(getter)
