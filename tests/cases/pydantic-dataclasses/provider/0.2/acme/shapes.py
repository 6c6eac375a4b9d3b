"""Pydantic dataclasses: unknown keywords fail only when their config forbids extras."""

from __future__ import annotations

from dataclasses import InitVar

import pydantic.dataclasses
from pydantic import ConfigDict
from pydantic.dataclasses import dataclass


@pydantic.dataclasses.dataclass(config=ConfigDict(extra="forbid"))
class Box:
    width: int
    height: int = 1


@dataclass
class Tag:
    """The default config: unknown keywords are ignored."""

    name: str


@dataclass
class Grid:
    rows: int
    scale: InitVar[int]
    cols: int = 1

    def __post_init__(self, scale: int) -> None:
        self.rows *= scale
