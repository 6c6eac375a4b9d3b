"""The scheduler, its configuration and its results.

Since 0.1: add_request() lost `priority`, finish() needs a `status`, drain() is gone,
schedule() takes an optional budget, the request list is called `pending`.
"""

from __future__ import annotations


class Config:
    def __init__(self, blocks: int = 8) -> None:
        self.blocks = blocks


class Output:
    def __init__(self, total: int) -> None:
        self.total = total


class Scheduler:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.pending: list[str] = []

    def add_request(self, request: str) -> None:
        self.pending.append(request)

    def schedule(self, budget: int | None = None) -> Output:
        return Output(len(self.pending))

    def finish(self, request_id: str, status: str) -> None:
        self.pending.remove(request_id)

    def reset(self, hard: bool = False) -> None:
        self.pending = []


def make_scheduler(config: Config) -> Scheduler:
    return Scheduler(config)
