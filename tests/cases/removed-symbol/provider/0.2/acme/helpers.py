"""Helpers split out of acme.api."""

from __future__ import annotations


def moved_helper(x: int) -> int:
    return x * 2
