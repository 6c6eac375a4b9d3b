"""Uses acme's network helpers, some of which 0.2 deprecates.

In 0.2 fetch is marked @deprecated, load warns with a DeprecationWarning, LegacyClient's
docstring says `.. deprecated::`, and Client.from_env is marked @deprecated. old_helper was
deprecated in 0.1 already.
"""

from __future__ import annotations

import acme.net
from acme.net import (
    Client,  # near-miss: only its from_env is deprecated
    LegacyClient,  # expect: deprecated: importing a deprecated name
    fetch,  # expect: deprecated
    fetch_all,
    load,  # expect: deprecated
    old_helper,
    read,
)


def get() -> str:
    return fetch("u")  # expect: deprecated


def get_by_path() -> str:
    return acme.net.fetch("u")  # expect: deprecated


def get_all() -> list[str]:
    return fetch_all(["u"])  # near-miss: the replacement


def load_file() -> str:
    return load("p")  # expect: deprecated


def read_file() -> str:
    return read("p")  # near-miss


def legacy() -> LegacyClient:
    return LegacyClient("h")  # expect: deprecated


def from_env() -> Client:
    return Client.from_env()  # expect: deprecated


def from_url() -> Client:
    return Client.from_url("h")  # near-miss


def helper() -> None:
    old_helper()  # near-miss: deprecated before the baseline already
