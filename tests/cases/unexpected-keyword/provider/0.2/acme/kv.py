"""Key-value cache configuration."""

from __future__ import annotations


def make_cache_config(
    model: str,
    groups: list[str],
    *,
    num_blocks: int | None = None,
) -> dict[str, object]:
    """Build the cache configuration of `model` from its attention groups."""
    return {"model": model, "groups": list(groups), "num_blocks": num_blocks}


def clamp(value: int, low: int, high: int, /) -> int:
    return max(low, min(value, high))


def log_event(name: str, level: str = "info", **options: object) -> str:
    return f"[{level}] {name}"


class Pool:
    """A pool of cache blocks."""

    def __init__(self, size: int) -> None:
        self.size = size

    @staticmethod
    def build(size: int) -> Pool:
        return Pool(size)

    @classmethod
    def create(cls, size: int = 4) -> Pool:
        return cls(size)
