"""Reads members of acme's Color enum and constants of its Palette class.

In 0.2 Color lost the member BLUE and Palette lost ACCENT. An Enum's members are the
assignments in its class body; enum.Enum adds no public name a consumer would read.
"""

from __future__ import annotations

import acme.colors
from acme.colors import Color, Palette


def blue() -> Color:
    return Color.BLUE  # expect: removed-symbol


def blue_by_path() -> Color:
    return acme.colors.Color.BLUE  # expect: removed-symbol


def green() -> Color:
    return Color.GREEN  # near-miss: still a member


def accent() -> str:
    return Palette.ACCENT  # expect: removed-symbol


def primary() -> str:
    return Palette.PRIMARY  # near-miss


def members() -> object:
    return Color.__members__  # near-miss: from enum's metaclass
