"""Sessions, split out of acme.api."""

from __future__ import annotations


class Session:
    def __init__(self, name: str) -> None:
        self.name = name
