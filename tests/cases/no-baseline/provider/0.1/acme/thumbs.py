"""Thumbnail rendering."""

from __future__ import annotations


def thumbnail(path: str, size: int = 128, quality: int = 85) -> bytes:
    return f"{path}@{size}q{quality}".encode()


def crop(path: str, box: tuple[int, int, int, int]) -> bytes:
    return path.encode()
