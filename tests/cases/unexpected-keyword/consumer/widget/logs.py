"""Logging and small numeric helpers."""

from __future__ import annotations

from acme.kv import clamp, log_event


def announce(name: str = "start") -> str:
    return log_event(name, color=True)  # near-miss: `color` went into **options in 0.2


def announce_level() -> str:
    return log_event("stop", level="warning")  # near-miss


def clamp_ratio() -> int:
    # `high` became positional-only in 0.2: passing it by keyword is one unexpected-keyword
    # finding (not also a missing-argument for `high`)
    return clamp(3, 0, high=5)  # expect: unexpected-keyword


def clamp_plain() -> int:
    return clamp(3, 0, 5)  # near-miss: all three by position
