"""acme 0.1: the release the consumer was written against."""

from typing import Dict, List, Optional

_UNSET = object()


def top_k(scores, k=2) -> List[int]:
    """The k best scores."""
    return sorted(scores, reverse=True)[:k]


def best(scores) -> Optional[int]:
    return max(scores) if scores else None


def pairs(items) -> "Dict[str, int]":
    return {str(i): i for i in items}


def load(path, strict=False) -> dict:
    return {"path": path, "strict": strict}


def fetch(n, retries=3, label="a") -> int:
    return n * retries


def window(n, size=None) -> int:
    return n if size is None else size


def mode(x, how=_UNSET) -> str:
    return "default" if how is _UNSET else str(how)


class Pool:
    def __init__(self, size=4, name="pool"):
        self.size = size
        self.name = name

    def take(self, n) -> List[int]:
        return list(range(n))
