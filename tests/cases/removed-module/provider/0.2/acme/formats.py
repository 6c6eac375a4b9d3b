"""Old home of the text codecs, kept so that existing imports keep working."""

from __future__ import annotations

from acme.codecs.text import parse as parse
from acme.codecs.text import render as render

__all__ = ["parse", "render"]
