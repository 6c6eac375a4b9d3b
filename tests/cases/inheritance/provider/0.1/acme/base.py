"""The base of every acme model."""

from __future__ import annotations


class Base:
    def __init__(self, name: str, *, device: str = "cpu") -> None:
        self.name = name
        self.device = device
