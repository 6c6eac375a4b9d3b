"""Pydantic dataclasses whose config forbids extras, written in forms other than ConfigDict(...)."""

from __future__ import annotations

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

STRICT = ConfigDict(extra="forbid")


@dataclass(config={"extra": "forbid"})
class Point:
    x: float
    y: float = 0.0


@dataclass(config=STRICT)
class Span:
    start: int
    stop: int = 0
