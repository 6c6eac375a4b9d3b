"""The client API."""

from __future__ import annotations

GONE_CONST: int = 3
KEPT_CONST: int = 4


def gone() -> str:
    return "gone"


def kept() -> str:
    return "kept"


def moved_helper(x: int) -> int:
    return x * 2


class Client:
    def __init__(self, url: str = "local") -> None:
        self.url = url

    def fetch(self, key: str) -> str:
        return f"{self.url}/{key}"

    def old_method(self) -> str:
        return self.url


class Session:
    def __init__(self, name: str) -> None:
        self.name = name
