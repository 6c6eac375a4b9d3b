"""The public API."""

from __future__ import annotations


def make_legacy(size: int) -> dict[str, int]:
    return {"size": size}


class Pool:
    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
