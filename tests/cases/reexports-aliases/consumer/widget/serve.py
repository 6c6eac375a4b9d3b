"""Starts an engine through acme's public, re-exported names."""

from __future__ import annotations

import acme
from acme import Engine as E
from acme import Tokenizer
from acme.config import CacheConfig, ModelConfig


def start() -> acme.Engine:
    return acme.Engine("tiny", swap_space=2)  # expect: unexpected-keyword


def start_aliased() -> acme.Engine:
    return E("tiny", cache_config=CacheConfig(), swap_space=2)  # expect: unexpected-keyword


def start_seeded() -> acme.Engine:
    return E("tiny", seed=1)  # near-miss


def cache() -> CacheConfig:
    return CacheConfig(block_size=32, swap_space=4.0)  # expect: unexpected-keyword


def cache_two_hops() -> CacheConfig:
    # acme -> acme.config -> acme.config.cache
    return acme.CacheConfig(swap_space=8.0)  # expect: unexpected-keyword


def cache_prefix() -> CacheConfig:
    return CacheConfig(block_size=32, enable_prefix_caching=True)  # near-miss


def model() -> ModelConfig:
    return ModelConfig("tiny", max_len=128)  # near-miss


def tokenizer() -> Tokenizer:
    # defined in acme._impl.text in 0.1 and acme._impl.tokens in 0.2; re-exported by both
    return acme.Tokenizer("tiny", lowercase=True)  # near-miss


def tokenizer_imported() -> Tokenizer:
    return Tokenizer("tiny")  # near-miss
