"""Small helpers (a package since 0.2)."""

from __future__ import annotations


def slugify(text: str) -> str:
    return "-".join(text.lower().split())
