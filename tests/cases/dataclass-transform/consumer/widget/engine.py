"""Builds acme's engine configs.

In 0.1 `config` only marked classes made by pydantic's dataclass with its default config
(unknown keywords ignored); in 0.2 `config` makes them itself and forbids unknown keywords
unless told otherwise (LoadConfig allows them). CacheConfig lost `swap_space`; ModelConfig's
`model` lost its default.
"""

from __future__ import annotations

from acme.config import CacheConfig, LoadConfig, ModelConfig


def cache() -> CacheConfig:
    return CacheConfig(block_size=8, swap_space=2.0)  # expect: unexpected-keyword


def cache_unknown() -> CacheConfig:
    # never a field, but ignored by 0.1's default config: it breaks only now
    return CacheConfig(block_size=8, num_gpu_blocks=4)  # expect: unexpected-keyword


def cache_fits() -> CacheConfig:
    return CacheConfig(block_size=8, gpu_memory_utilization=0.5)  # near-miss


def model() -> ModelConfig:
    return ModelConfig(dtype="half")  # expect: missing-argument


def named_model() -> ModelConfig:
    return ModelConfig(model="tiny", dtype="half")  # near-miss


def load() -> LoadConfig:
    return LoadConfig(load_format="safetensors", download_dir="/d")  # near-miss: extra="allow"
