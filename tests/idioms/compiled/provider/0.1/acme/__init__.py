"""acme 0.1: a package whose core is compiled (acme/_core.c, built by the oracle's test)."""

from acme._core import Device, Tensor, argmax, scale


class Param(Tensor):
    """A Python subclass of the compiled Tensor: its methods come from the C type."""


def ones() -> Tensor:
    return Tensor()


class Mixin:
    pass


class Array(Tensor, Mixin):
    """A compiled base first, a Python base after it (pandas' Categorical)."""

    def constructor(self):
        return Array
