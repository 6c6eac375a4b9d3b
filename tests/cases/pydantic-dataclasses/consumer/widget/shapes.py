"""Builds acme's pydantic dataclasses.

In 0.2 Box (config forbids extras) lost `depth`; Tag (default config: extras ignored) lost
`color`; Grid's InitVar `scale` lost its default and moved before `cols`.
"""

from __future__ import annotations

from acme.shapes import Box, Grid, Tag


def deep_box() -> Box:
    return Box(width=2, depth=3)  # expect: unexpected-keyword


def flat_box() -> Box:
    return Box(2, 3)  # near-miss: width and height are still the first two fields


def box_by_position() -> Box:
    return Box(2, 3, 4)  # expect: too-many-positional


def colored_tag() -> Tag:
    return Tag(name="t", color="blue")  # near-miss: the default config ignores extras


def grid() -> Grid:
    return Grid(rows=2)  # expect: missing-argument


def scaled_grid() -> Grid:
    return Grid(rows=2, cols=3, scale=2)  # near-miss: passes the InitVar by keyword

