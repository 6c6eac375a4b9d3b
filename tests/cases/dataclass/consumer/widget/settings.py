"""Builds acme's field-based settings objects.

In 0.2 RunSettings lost `legacy_mode`, gained the required `seed` and the defaulted `verbose`;
Limits lost `max_batch` and gained the defaulted `max_wait`; Record (made by an unknown
decorator) changed too, but its constructor cannot be known, so nothing is said about it.
"""

from __future__ import annotations

from acme.settings import Limits, Record, RunSettings


def unseeded() -> RunSettings:
    return RunSettings(name="run", steps=5)  # expect: missing-argument


def old_style() -> RunSettings:
    return RunSettings(name="run", legacy_mode=True)  # expect: unexpected-keyword, missing-argument


def positional() -> RunSettings:
    return RunSettings("run")  # expect: missing-argument


def seeded() -> RunSettings:
    return RunSettings(name="run", seed=3, verbose=True)  # near-miss: written for 0.2


def seeded_tags() -> RunSettings:
    return RunSettings("run", seed=3, tags=["a"])  # near-miss: `verbose` has a default


def with_cache() -> RunSettings:
    # `cache` is field(init=False): never a constructor parameter, in 0.1 or 0.2
    return RunSettings(name="run", seed=3, cache={})  # expect-preexisting: unexpected-keyword


def batch_limits() -> Limits:
    return Limits(max_batch=4)  # expect: unexpected-keyword


def token_limits() -> Limits:
    return Limits(max_tokens=512)  # near-miss: the new max_wait has a default


def record() -> Record:
    return Record(key="k", value=1)  # near-miss: unknown decorator, unknown constructor
