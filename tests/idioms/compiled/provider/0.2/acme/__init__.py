"""acme 0.2: a package whose core is compiled (acme/_core.c, built by the oracle's test)."""

from acme._core import Device, Tensor, argmax, scale


class Param(Tensor):
    """A Python subclass of the compiled Tensor: its methods come from the C type."""


def ones() -> Tensor:
    return Tensor()


class Mixin:
    def constructor(self):
        return type(self)


class Array(Tensor, Mixin):
    """0.2: `constructor` moved to the Python base that comes after the compiled one."""
