"""The scheduler, its configuration and its results."""

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
        self.requests: list[str] = []

    def add_request(self, request: str, priority: int = 0) -> None:
        self.requests.append(request)

    def schedule(self) -> Output:
        return Output(len(self.requests))

    def finish(self, request_id: str) -> None:
        self.requests.remove(request_id)

    def drain(self) -> None:
        self.requests.clear()

    def reset(self, hard: bool = False) -> None:
        self.requests = []


def make_scheduler(config: Config) -> Scheduler:
    return Scheduler(config)
