"""Builds the scheduler by hand, the way the engine core does."""

from __future__ import annotations

from typing import Any

from acme.sched import Scheduler

CONFIG: dict[str, Any] = {"model": "tiny"}
KV_CACHE: dict[str, Any] = {"num_blocks": 64}
SCHEDULER_OPTIONS: dict[str, Any] = {"block_size": 16}


def make_scheduler() -> Scheduler:
    # a finding sits on the line where the call starts
    return Scheduler(  # expect: missing-argument
        vllm_config=CONFIG,
        kv_cache_config=KV_CACHE,
        structured_output_manager=None,
    )


def make_scheduler_positional() -> Scheduler:
    return Scheduler(CONFIG, KV_CACHE, None, log_stats=True)  # expect: missing-argument


def make_scheduler_updated() -> Scheduler:
    return Scheduler(CONFIG, KV_CACHE, None, block_size=16)  # near-miss: passes the new parameter


def make_scheduler_from_options() -> Scheduler:
    # **SCHEDULER_OPTIONS may hold block_size: nothing can be known, so nothing is said
    return Scheduler(CONFIG, KV_CACHE, None, **SCHEDULER_OPTIONS)  # near-miss: **kw may supply it
