"""Calls acme's operations by position.

In 0.2 resize gained `scale` before `width`; blend swapped `src` and `dst`; crop gained `pad`
at the end; Window gained `title` first; Rect gained the field `z` first; Grid's InitVar
`scale` moved before `cols` (and lost its default). Every call below still binds in 0.2.
"""

from __future__ import annotations

from acme import ops
from acme.ops import Grid, Rect, Window, blend, crop, resize


def thumbnail() -> dict[str, object]:
    return resize("img", 64, 48)  # expect: positional-shift: 64 lands on `scale`


def thumbnail_by_name() -> dict[str, object]:
    return resize("img", width=64, height=48)  # near-miss: keywords are unaffected


def original() -> dict[str, object]:
    return resize("img")  # near-miss: `image` is still first


def overlay() -> dict[str, object]:
    return ops.blend("top.png", "base.png")  # expect: positional-shift: src and dst swapped


def overlay_by_name() -> dict[str, object]:
    return blend(src="top.png", dst="base.png", alpha=0.2)  # near-miss


def cropped() -> dict[str, object]:
    return crop("img", (0, 0, 8, 8), True)  # near-miss: `pad` was appended at the end


def window() -> Window:
    return Window(800, 600)  # expect: positional-shift: 800 lands on `title`


def rect() -> Rect:
    return Rect(3, 4)  # expect: positional-shift: a field inserted first


def grid() -> Grid:
    return Grid(2, 3)  # expect: positional-shift: 3 was `cols`, now lands on `scale`
