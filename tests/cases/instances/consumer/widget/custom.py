"""Subclasses acme's Scheduler and reaches the provider's methods through `self`."""

from __future__ import annotations

from acme.engine import Scheduler


class QuietScheduler(Scheduler):
    def flush(self) -> None:
        self.drain()  # expect: removed-symbol

    def submit_all(self, requests: list[str]) -> None:
        for request in requests:
            self.add_request(request)  # near-miss: add_request() still takes a request

    def label(self) -> str:
        return "quiet"

    def describe(self) -> str:
        return self.label()  # near-miss: our own method, not the provider's


def quiet() -> None:
    scheduler = QuietScheduler(None)
    scheduler.add_request("r4", priority=3)  # expect: unexpected-keyword
    scheduler.flush()  # near-miss: defined here
