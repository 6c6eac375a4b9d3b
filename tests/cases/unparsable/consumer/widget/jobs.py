"""A healthy module next to a broken one: its findings are still reported."""

from __future__ import annotations

import acme.tasks


def nightly() -> str:
    return acme.tasks.run("nightly", retries=2)  # expect: unexpected-keyword


def hourly() -> str:
    return acme.tasks.run("hourly", timeout=60.0)  # near-miss
