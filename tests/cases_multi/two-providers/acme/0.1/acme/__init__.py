from __future__ import annotations

from acme.engine import Engine, start

__all__ = ["Engine", "start"]
