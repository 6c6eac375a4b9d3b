"""File helpers."""

from __future__ import annotations

import warnings


def save(path: str) -> str:
    warnings.warn("save() is deprecated: use write()", DeprecationWarning, stacklevel=2)
    return path


def write(path: str) -> str:
    return path
