"""A table whose `__getattr__` serves its columns (data keys) and nothing else, with methods
installed at import time by setattr loops (the shapes of pandas' NDFrame and its ops)."""

from typing import Literal


class NDFrame:
    _metadata = []

    def __init__(self, data=None):
        object.__setattr__(self, "_data", dict(data or {}))
        object.__setattr__(self, "name", "frame")

    def __getattr__(self, name):
        """Columns as attributes; anything else is the regular lookup."""
        if name in self._data:
            return self[name]
        return object.__getattribute__(self, name)

    def __getitem__(self, key):
        return self._data[key]

    def __finalize__(self, other):
        for name in set(self._metadata) & set(other._metadata):
            object.__setattr__(self, name, getattr(other, name, None))
        return self

    @classmethod
    def _axis_name(cls, axis) -> Literal["index", "columns"]:
        return ("index", "columns")[axis]

    def set_axis(self, axis, labels):
        setattr(self, self._axis_name(axis), labels)
        return self

    def head(self):
        return self

    def mad(self):
        return 0.0

    @classmethod
    def _add_numeric_operations(cls):
        def total(self):
            return 0

        setattr(cls, "total", total)
        cls.product = total


class DataFrame(NDFrame):
    def append(self, other):
        return self

    def iteritems(self):
        return iter(())

    def ge(self, other):
        return True


class Series(NDFrame):
    def iteritems(self):
        return iter(())


class Proxy:
    """Delegates every attribute it lacks to the object it wraps."""

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def __getattr__(self, name):
        return getattr(self._wrapped, name)

    def old(self):
        return 1


class Plain:
    pass


def _make(name):
    def method(self, other):
        return True

    method.__name__ = name
    return method


def _add_comparisons(cls):
    for name in ("ne", "lt", "gt"):
        setattr(cls, name, _make(name))


_ARITH = {"add": "+", "sub": "-"}
for _name in _ARITH:
    setattr(DataFrame, _name, _make(_name))

_add_comparisons(DataFrame)
_add_comparisons(Series)
_add_comparisons(Plain)
DataFrame._add_numeric_operations()
