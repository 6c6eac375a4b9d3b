"""acme 0.2: defaults and return shapes moved; every call still binds."""

from __future__ import annotations

import typing as t

_UNSET = object()
_DEFAULT = object()


def top_k(scores, k=2) -> int:
    """Only the best score now: one item, not a list."""
    return sorted(scores, reverse=True)[0]


def best(scores) -> int | None:
    return max(scores) if scores else None


def pairs(items) -> dict[str, int]:
    return {str(i): i for i in items}


def load(path, strict=True) -> dict:
    return {"path": path, "strict": strict}


def fetch(n, retries=5, label="a") -> int:
    return n * retries


def window(n, size=None) -> int:
    return n if size is None else size


def mode(x, how=_DEFAULT) -> str:
    return "default" if how is _DEFAULT else str(how)


class Pool:
    def __init__(self, size=8, name="pool"):
        self.size = size
        self.name = name

    def take(self, n) -> t.List[int]:
        return list(range(n))
