"""Builds acme's pydantic dataclasses whose config forbids extras.

In 0.2 Point (config as a dict literal) lost `z`; Span (config through a module constant
STRICT = ConfigDict(extra="forbid")) lost `step`. Both reject the removed keyword.
"""

from __future__ import annotations

from acme.shapes import Point, Span


def point_3d() -> Point:
    return Point(x=1.0, z=2.0)  # expect: unexpected-keyword


def point_2d() -> Point:
    return Point(1.0, y=2.0)  # near-miss


def strided_span() -> Span:
    return Span(start=0, step=2)  # expect: unexpected-keyword


def span() -> Span:
    return Span(start=0, stop=4)  # near-miss
