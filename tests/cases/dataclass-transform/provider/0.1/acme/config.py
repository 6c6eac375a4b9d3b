"""Engine configuration classes: pydantic dataclasses marked with `config`."""

from __future__ import annotations

from pydantic import Field
from pydantic.dataclasses import dataclass

from acme.utils import config


@config
@dataclass
class CacheConfig:
    block_size: int = 16
    swap_space: float = 4.0
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)


@config
@dataclass
class ModelConfig:
    model: str = "tiny"
    dtype: str = "auto"


@config
@dataclass
class LoadConfig:
    load_format: str = "auto"
    download_dir: str | None = None
