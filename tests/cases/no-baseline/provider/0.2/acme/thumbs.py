"""Thumbnail rendering."""

from __future__ import annotations


def thumbnail(path: str, size: int = 128) -> bytes:
    return f"{path}@{size}".encode()


def crop(path: str, box: tuple[int, int, int, int]) -> bytes:
    return path.encode()
