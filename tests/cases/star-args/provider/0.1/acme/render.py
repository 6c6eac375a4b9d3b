"""Drawing shapes on a canvas."""

from __future__ import annotations


def draw(shape: str, color: str = "black", *, width: int = 1, dashed: bool = False) -> str:
    return f"{shape}:{color}:{width}:{dashed}"


def paint(canvas: str, layer: int) -> str:
    return f"{canvas}#{layer}"
