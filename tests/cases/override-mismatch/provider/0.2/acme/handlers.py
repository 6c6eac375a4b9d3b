"""Handlers: subclasses override the hooks; `run` and `emit` call them."""

from __future__ import annotations


class Handler:
    def handle(self, request: str, context: dict[str, object] | None = None) -> str:
        return request

    def on_event(self, event: str) -> str:
        return event

    def close(self) -> None:
        return None

    def run(self, request: str) -> str:
        return self.handle(request, context={"version": 2})

    def emit(self, event: str) -> str:
        return self.on_event(event)

    def shutdown(self) -> None:
        self.close()
