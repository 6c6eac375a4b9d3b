"""Calls that unpack *args and **kwargs: only what is certain is reported.

An explicit keyword the callee lost is certain whatever **kw holds; a missing argument is not
when **kw (or *args, for a positional parameter) could supply it.
"""

from __future__ import annotations

from acme.render import draw, paint

STYLE: dict[str, object] = {"width": 2}
PAINT_OPTIONS: dict[str, object] = {"opacity": 0.5}
SHAPE: tuple[str, str] = ("square", "red")
TARGET: tuple[str, int] = ("main", 1)


def dashed_square() -> str:
    return draw("square", dashed=True, **STYLE)  # expect: unexpected-keyword


def dashed_unpacked() -> str:
    return draw(*SHAPE, dashed=True)  # expect: unexpected-keyword


def styled_square() -> str:
    return draw("square", **STYLE)  # near-miss: STYLE might hold `dashed`; cannot know


def styled_unpacked() -> str:
    return draw(*SHAPE, width=3)  # near-miss


def paint_plain() -> str:
    return paint("main", 1)  # expect: missing-argument


def paint_with_options() -> str:
    return paint("main", 1, **PAINT_OPTIONS)  # near-miss: **PAINT_OPTIONS may supply opacity


def paint_unpacked() -> str:
    return paint(*TARGET, **PAINT_OPTIONS)  # near-miss
