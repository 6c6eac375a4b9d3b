"""The `config` marker (vLLM 0.11 style): an identity decorator, the class is made elsewhere."""

from __future__ import annotations

from typing import TypeVar

ConfigT = TypeVar("ConfigT")


def config(cls: type[ConfigT]) -> type[ConfigT]:
    """Marks a class as an engine config; returns it unchanged."""
    return cls
