"""The first record API, dropped in 0.2."""

from __future__ import annotations


class Thing:
    def __init__(self, name: str = "thing") -> None:
        self.name = name


def thing() -> Thing:
    return Thing()
