"""An Enum and a plain class with constants."""

from __future__ import annotations

import enum


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Palette:
    PRIMARY = "red"
    ACCENT = "blue"
