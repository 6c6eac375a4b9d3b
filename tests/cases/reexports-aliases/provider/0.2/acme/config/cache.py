"""Cache configuration."""

from __future__ import annotations


class CacheConfig:
    def __init__(
        self,
        block_size: int = 16,
        gpu_memory_utilization: float = 0.9,
        enable_prefix_caching: bool = False,
    ) -> None:
        self.block_size = block_size
        self.gpu_memory_utilization = gpu_memory_utilization
        self.enable_prefix_caching = enable_prefix_caching
