"""Concrete models. Most take their constructor from a base class."""

from __future__ import annotations

import torch

from acme.base import Base


class Derived(Base):
    def describe(self) -> str:
        return f"{self.name} on {self.device}"


class Special(Derived):
    """Two levels down from Base, still without an __init__ of its own."""


class Custom(Base):
    def __init__(self, name: str, dtype: str = "float32") -> None:
        super().__init__(name, dtype)


class Layer(torch.nn.Module):
    """Its constructor is torch's: it cannot be known from acme's source."""

    def forward(self, x: object) -> object:
        return x


class Head(torch.nn.Module):
    """Now a torch module: its constructor cannot be known from acme's source."""

    def forward(self, x: object) -> object:
        return x
