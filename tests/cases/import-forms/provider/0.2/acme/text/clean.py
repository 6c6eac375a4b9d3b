"""Text cleaning."""

from __future__ import annotations


def normalize(text: str, *, lowercase: bool = False) -> str:
    return text.lower() if lowercase else text
