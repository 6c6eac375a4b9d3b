"""acme: an inference engine. The public names are re-exported from private modules."""

from acme._impl.core import Engine as Engine
from acme._impl.text import Tokenizer as Tokenizer
from acme.config import CacheConfig as CacheConfig

__all__ = ["CacheConfig", "Engine", "Tokenizer"]
