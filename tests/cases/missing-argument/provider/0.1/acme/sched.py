"""The request scheduler."""

from __future__ import annotations

from typing import Any


class Scheduler:
    """Decides which requests run in the next step."""

    def __init__(
        self,
        vllm_config: dict[str, Any],
        kv_cache_config: dict[str, Any],
        structured_output_manager: object | None,
        include_finished_set: bool = False,
        log_stats: bool = False,
    ) -> None:
        self.vllm_config = vllm_config
        self.kv_cache_config = kv_cache_config
        self.structured_output_manager = structured_output_manager
        self.include_finished_set = include_finished_set
        self.log_stats = log_stats
