"""The client API."""

from __future__ import annotations

from acme.helpers import moved_helper as moved_helper
from acme.session import Session

__all__ = ["KEPT_CONST", "Client", "Session", "kept", "moved_helper"]

KEPT_CONST: int = 4


def kept() -> str:
    return "kept"


class Client:
    def __init__(self, url: str = "local") -> None:
        self.url = url

    def fetch(self, key: str) -> str:
        return f"{self.url}/{key}"
