"""Imports the provider function; other widget modules reuse it from here."""

from __future__ import annotations

from acme.text.clean import normalize

__all__ = ["normalize", "tidy"]


def tidy(value: str = " A ") -> str:
    return normalize(value.strip(), lowercase=True)  # near-miss
