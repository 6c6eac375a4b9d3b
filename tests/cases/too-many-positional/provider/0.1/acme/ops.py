"""Mixing operations."""

from __future__ import annotations


def blend(a: float, b: float, weight: float = 0.5) -> float:
    return a * (1 - weight) + b * weight


def total(first: float, second: float) -> float:
    return first + second


class Mixer:
    def __init__(self, rate: int, channels: int, gain: float = 1.0) -> None:
        self.rate = rate
        self.channels = channels
        self.gain = gain


def place(x: int, y: int) -> tuple[int, int]:
    return (x, y)


def anchor(x: int, y: int) -> tuple[int, int]:
    return (x, y)
