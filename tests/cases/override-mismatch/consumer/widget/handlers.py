"""Subclasses of acme's Handler that override its hooks.

In 0.2 Handler.handle gained `context` (Handler.run passes it) and Handler.on_event lost
`source` (Handler.emit no longer passes it); close() did not change.
"""

from __future__ import annotations

from typing import Any

from acme.handlers import Handler


class EchoHandler(Handler):
    def handle(self, request: str) -> str:  # expect: override-mismatch: run() passes context=
        return request.upper()

    def on_event(self, event: str, source: str) -> str:  # expect: override-mismatch
        return f"{event} from {source}"


class FlexibleHandler(Handler):
    def handle(self, request: str, **kwargs: Any) -> str:  # near-miss: **kwargs takes context
        return request

    def on_event(self, event: str, source: str = "") -> str:  # near-miss: source has a default
        return event


class ContextHandler(Handler):
    def handle(self, request: str, *, context: Any = None) -> str:  # near-miss: takes context
        return request

    def close(self) -> None:  # near-miss: close() is unchanged
        return None

    def describe(self) -> str:  # near-miss: not a provider method
        return "context"
