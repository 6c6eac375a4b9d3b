"""Mixes two tracks."""

from __future__ import annotations

import acme.ops
from acme.ops import anchor, blend, place, total

EXTRA: tuple[float, ...] = ()
OTHER: tuple[float, ...] = (2.0,)


def fade() -> float:
    return blend(1.0, 2.0, 0.25)  # expect: too-many-positional


def fade_with_extra() -> float:
    # *EXTRA may be empty, but three explicit positionals are already one too many
    return blend(1.0, 2.0, 0.25, *EXTRA)  # expect: too-many-positional


def fade_by_keyword() -> float:
    return blend(1.0, 2.0, weight=0.25)  # near-miss: weight passed by keyword


def fade_unpacked() -> float:
    return blend(1.0, *OTHER)  # near-miss: *OTHER: the count is only a lower bound


def sum_three() -> float:
    return total(1.0, 2.0, 3.0)  # near-miss: too many for 0.1, but total() gained *more in 0.2


def open_mixer() -> acme.ops.Mixer:
    return acme.ops.Mixer(44100, 2, 0.5)  # expect: too-many-positional


def open_mixer_by_keyword() -> acme.ops.Mixer:
    return acme.ops.Mixer(44100, 2, gain=0.5)  # near-miss


def put() -> tuple[int, int]:
    # x and y are keyword-only now: one cause, one finding (no missing-argument for x or y)
    return place(1, 2)  # expect: too-many-positional


def pin() -> tuple[int, int]:
    # 2 was meant for y (keyword-only now: part of the cause); z is new and required: its own
    return anchor(1, 2)  # expect: too-many-positional, missing-argument
