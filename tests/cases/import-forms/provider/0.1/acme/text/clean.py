"""Text cleaning."""

from __future__ import annotations

import unicodedata


def normalize(text: str, *, lowercase: bool = False, strip_accents: bool = False) -> str:
    if strip_accents:
        text = "".join(
            c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
        )
    return text.lower() if lowercase else text
