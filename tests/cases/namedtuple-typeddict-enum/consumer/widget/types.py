"""Builds acme's NamedTuples, TypedDicts and Enum members.

In 0.2 Point lost `z`; Size gained the required `depth`; Style and Layout changed their keys
(a TypedDict is a plain dict at run time: any keys are accepted); Color lost BLUE (calls
of Color are Enum lookups by value, never a constructor).
"""

from __future__ import annotations

from acme.types import Color, Layout, Point, Size, Style


def point_3d() -> Point:
    return Point(x=1.0, y=2.0, z=3.0)  # expect: unexpected-keyword


def point_positional() -> Point:
    return Point(1.0, 2.0, 3.0)  # expect: too-many-positional


def point() -> Point:
    return Point(1.0, y=2.0)  # near-miss


def size() -> Size:
    return Size(4, 3)  # expect: missing-argument


def size_3d() -> Size:
    return Size(4, 3, depth=2)  # near-miss: passes the new field


def style() -> Style:
    return Style(color="red", weight=700)  # near-miss: a TypedDict accepts any keys at run time


def layout() -> Layout:
    return Layout(columns=2, gap=4, padding=1)  # near-miss: a dict, whatever its declared keys


def color() -> Color:
    return Color("red")  # near-miss: an Enum lookup by value


def color_by_keyword() -> Color:
    return Color(value="green")  # near-miss


def green() -> Color:
    return Color.GREEN  # near-miss: still a member
