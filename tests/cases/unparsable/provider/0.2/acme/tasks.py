"""Running background tasks."""

from __future__ import annotations


def run(name: str, *, timeout: float = 30.0) -> str:
    return name
