"""Handlers: subclasses override the hooks; `run` and `emit` call them."""

from __future__ import annotations


class Handler:
    def handle(self, request: str) -> str:
        return request

    def on_event(self, event: str, source: str) -> str:
        return f"{event}@{source}"

    def close(self) -> None:
        return None

    def run(self, request: str) -> str:
        return self.handle(request)

    def emit(self, event: str) -> str:
        return self.on_event(event, "core")

    def shutdown(self) -> None:
        self.close()
