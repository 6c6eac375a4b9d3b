"""Submitting and tracking jobs."""

from __future__ import annotations


def submit(name: str, priority: int = 0) -> str:
    return f"{name}:{priority}"


def cancel(job_id: str, *, force: bool = False) -> bool:
    return force


def status(job_id: str, *, verbose: bool = False) -> str:
    return "queued"


def purge(queue: str, *, older_than: int) -> int:
    return 0
