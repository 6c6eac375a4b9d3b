"""acme: engines."""

__version__ = "0.2"
