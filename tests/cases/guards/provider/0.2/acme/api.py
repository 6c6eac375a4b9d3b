"""The public API."""

from __future__ import annotations


def make(*, size: int) -> dict[str, int]:
    return {"size": size}


class Pool:
    def __init__(self, name: str, workers: int = 1) -> None:
        self.name = name
        self.workers = workers
