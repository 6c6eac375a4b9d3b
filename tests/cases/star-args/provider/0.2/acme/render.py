"""Drawing shapes on a canvas."""

from __future__ import annotations


def draw(shape: str, color: str = "black", *, width: int = 1) -> str:
    return f"{shape}:{color}:{width}"


def paint(canvas: str, layer: int, *, opacity: float) -> str:
    return f"{canvas}#{layer}@{opacity}"
