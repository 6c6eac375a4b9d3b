"""Tests that talk to an index see none of this machine's pip configuration and never wait."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from auditor.sources import fetch

if TYPE_CHECKING:
    import pytest

PIP_ENV = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "DRIFT_AUDIT_CACHE_DIR")


def isolate(monkeypatch: pytest.MonkeyPatch, *, no_retry_delays: bool = True) -> None:
    """No pip config file, no index or cache from the environment; retries without delays."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for var in PIP_ENV:
        monkeypatch.delenv(var, raising=False)
    if no_retry_delays:
        monkeypatch.setattr(fetch, "RETRY_DELAYS", (0.0, 0.0, 0.0))
