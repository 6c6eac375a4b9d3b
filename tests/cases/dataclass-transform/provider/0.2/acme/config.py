"""Engine configuration classes: pydantic dataclasses made by `config`."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from acme.utils import config


@config
class CacheConfig:
    block_size: int = 16
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)


@config
class ModelConfig:
    model: str
    dtype: str = "auto"


@config(config=ConfigDict(extra="allow"))
class LoadConfig:
    load_format: str = "auto"
