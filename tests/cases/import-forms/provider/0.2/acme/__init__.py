"""acme: text utilities."""

from acme.text.clean import normalize as normalize

__all__ = ["normalize"]
