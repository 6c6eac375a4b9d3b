"""Uses acme's normalize() through the consumer's own modules.

The finding belongs where the call is, here, not where the name was imported (core.py).
"""

from __future__ import annotations

from widget.core import normalize as core_normalize

from .core import normalize


def plain() -> str:
    return normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def absolute() -> str:
    return core_normalize("Ä", strip_accents=True)  # expect: unexpected-keyword


def fine() -> str:
    return normalize("A")  # near-miss
