"""File helpers."""

from __future__ import annotations


def save(path: str) -> str:
    return path


def write(path: str) -> str:
    return path
