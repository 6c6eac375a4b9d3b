"""Network helpers."""

from __future__ import annotations

import warnings

from typing_extensions import deprecated


@deprecated("fetch() is deprecated: use fetch_all()")
def fetch(url: str) -> str:
    return url


def fetch_all(urls: list[str]) -> list[str]:
    return list(urls)


def load(path: str) -> str:
    warnings.warn("load is deprecated, use read", DeprecationWarning, stacklevel=2)
    return path


def read(path: str) -> str:
    return path


def old_helper() -> None:
    """Deprecated: already in 0.1."""
    warnings.warn("old_helper() is deprecated", DeprecationWarning, stacklevel=2)


class LegacyClient:
    """A client for the old protocol.

    .. deprecated:: 0.2
       Use Client.
    """

    def __init__(self, host: str = "localhost") -> None:
        self.host = host


class Client:
    def __init__(self, host: str = "localhost") -> None:
        self.host = host

    @classmethod
    @deprecated("Client.from_env() is deprecated: use Client.from_url()")
    def from_env(cls) -> Client:
        return cls()

    @classmethod
    def from_url(cls, url: str) -> Client:
        return cls(url)
