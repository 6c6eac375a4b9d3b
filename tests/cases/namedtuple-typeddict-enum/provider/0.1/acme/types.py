"""Typed records: a NamedTuple, TypedDicts and an Enum."""

from __future__ import annotations

import enum
from typing import NamedTuple, TypedDict

from typing_extensions import NotRequired, Required


class Point(NamedTuple):
    x: float
    y: float
    z: float = 0.0


class Size(NamedTuple):
    width: int
    height: int = 0


class Style(TypedDict):
    color: str
    weight: int


class Layout(TypedDict, total=False):
    columns: Required[int]
    gap: int
    padding: NotRequired[int]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"
