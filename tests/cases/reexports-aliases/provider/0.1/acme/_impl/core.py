"""The engine."""

from __future__ import annotations

from acme.config.cache import CacheConfig


class Engine:
    def __init__(
        self,
        model: str,
        *,
        cache_config: CacheConfig | None = None,
        swap_space: int = 4,
        seed: int = 0,
    ) -> None:
        self.model = model
        self.cache_config = cache_config or CacheConfig()
        self.swap_space = swap_space
        self.seed = seed
