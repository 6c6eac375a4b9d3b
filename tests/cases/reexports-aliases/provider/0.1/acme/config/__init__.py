"""Configuration objects, defined one per module and re-exported here."""

from acme.config.cache import CacheConfig
from acme.config.model import ModelConfig

__all__ = ["CacheConfig", "ModelConfig"]
