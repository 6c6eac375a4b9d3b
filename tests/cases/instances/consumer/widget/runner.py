"""Drives acme's Scheduler through every kind of object the scan follows."""

from __future__ import annotations

from typing import Optional

from acme.engine import Config, Scheduler, make_scheduler


def local() -> int:
    scheduler = Scheduler(Config())
    scheduler.add_request("r1", priority=1)  # expect: unexpected-keyword
    scheduler.add_request("r2")  # near-miss: no priority passed
    return scheduler.schedule().total  # near-miss: schedule() only gained an optional budget


def pending() -> int:
    scheduler = Scheduler(Config())
    return len(scheduler.requests)  # expect: removed-symbol


class Service:
    def __init__(self) -> None:
        self.scheduler = Scheduler(Config(blocks=4))

    def submit(self, request_id: str) -> None:
        self.scheduler.add_request(request_id)  # near-miss

    def close(self, request_id: str) -> None:
        self.scheduler.finish(request_id)  # expect: missing-argument

    def restart(self) -> None:
        self.scheduler.reset(hard=True)  # near-miss: reset() did not change


def drain_all(scheduler: Scheduler) -> None:
    scheduler.drain()  # expect: removed-symbol


def maybe_reset(scheduler: Optional[Scheduler] = None) -> None:
    if scheduler is not None:
        scheduler.reset()  # near-miss


def from_factory() -> None:
    make_scheduler(Config()).add_request("r3", priority=2)  # expect: unexpected-keyword


def build() -> Scheduler:
    return Scheduler(Config())


def from_own_factory() -> None:
    built = build()
    built.drain()  # expect: removed-symbol


def unknown(engine: object, other: Scheduler) -> None:
    engine.drain()  # near-miss: an object the scan cannot name
    other = engine
    other.drain()  # near-miss: rebound to something else in the same function
