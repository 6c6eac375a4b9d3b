"""Model configuration."""

from __future__ import annotations


class ModelConfig:
    def __init__(self, model: str, max_len: int = 2048, dtype: str = "auto") -> None:
        self.model = model
        self.max_len = max_len
        self.dtype = dtype
