"""acme: key-value cache helpers."""

__version__ = "0.1"
