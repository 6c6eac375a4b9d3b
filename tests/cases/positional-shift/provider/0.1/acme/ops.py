"""Image operations. Each returns what it was given, by parameter name."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar

from pydantic.dataclasses import dataclass


def resize(image: str, width: int = 0, height: int = 0) -> dict[str, object]:
    return {"image": image, "width": width, "height": height}


def blend(src: str, dst: str, alpha: float = 0.5) -> dict[str, object]:
    return {"src": src, "dst": dst, "alpha": alpha}


def crop(image: str, box: tuple[int, ...] = (), strict: bool = False) -> dict[str, object]:
    return {"image": image, "box": box, "strict": strict}


class Window:
    def __init__(self, width: int = 640, height: int = 480) -> None:
        self.args = {"width": width, "height": height}


@dataclasses.dataclass
class Rect:
    x: int = 0
    y: int = 0


@dataclass
class Grid:
    rows: int
    cols: int = 1
    scale: InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        self.rows *= scale
