"""Typed records: a NamedTuple, TypedDicts and an Enum."""

from __future__ import annotations

import enum
from typing import NamedTuple, TypedDict

from typing_extensions import NotRequired, Required


class Point(NamedTuple):
    x: float
    y: float


class Size(NamedTuple):
    width: int
    height: int
    depth: int


class Style(TypedDict):
    color: str
    font: str


class Layout(TypedDict, total=False):
    columns: Required[int]
    rows: Required[int]
    margin: NotRequired[int]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
