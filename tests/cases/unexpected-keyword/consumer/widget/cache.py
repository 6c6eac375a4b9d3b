"""Cache setup for the widget engine."""

from __future__ import annotations

import acme.kv
from acme.kv import make_cache_config


def config_with_specs() -> dict[str, object]:
    return make_cache_config("tiny", ["g0"], specs={"g0": 16})  # expect: unexpected-keyword


def config_with_blocks() -> dict[str, object]:
    return make_cache_config("tiny", ["g0"], num_blocks=64)  # near-miss: keyword still exists


def config_plain() -> dict[str, object]:
    return acme.kv.make_cache_config("tiny", groups=["g0"])  # near-miss: never passed `specs`


def pool_from_specs() -> acme.kv.Pool:
    # a staticmethod reached through its class
    return acme.kv.Pool.build(8, specs={"g0": 16})  # expect: unexpected-keyword


def pool_by_size() -> acme.kv.Pool:
    return acme.kv.Pool.build(size=8)  # near-miss: `size` is still there


def pool_default() -> acme.kv.Pool:
    return acme.kv.Pool.create(size=8)  # near-miss: classmethod, unchanged
