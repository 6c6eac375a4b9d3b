# Maintainers: what a run is doing now, for a progress display.
#
# Owns: one small mutable object that the pipeline updates as it goes (the stage, releases
# done out of how many) and that knows where to read the bytes fetched so far. It writes
# nothing: the CLI, the only module that writes to the terminal, polls `snapshot()` from a
# display thread when stderr is a terminal. Plain ints and strings, replaced whole, so a
# reader on another thread never sees half an update.
"""Progress of a run, updated by the stages and read by a display."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Where an audit is, for the status line."""

    stage: str  # "resolving", "scanning", "fetching", "checking vllm 0.17.0", ...
    done: int  # releases checked
    total: int  # releases to check (0: not known yet)
    bytes_fetched: int


class Progress:
    """Updated by audit(); `snapshot()` is safe to call from another thread."""

    def __init__(self) -> None:
        self._state = Snapshot("starting", 0, 0, 0)
        self._bytes: Callable[[], int] = lambda: 0

    def read_bytes_from(self, source: Callable[[], int]) -> None:
        self._bytes = source

    def stage(self, name: str) -> None:
        state = self._state
        self._state = Snapshot(name, state.done, state.total, 0)

    def releases(self, done: int, total: int) -> None:
        self._state = Snapshot(self._state.stage, done, total, 0)

    def snapshot(self) -> Snapshot:
        state = self._state
        try:
            fetched = self._bytes()
        except Exception:  # a display must never break the run
            fetched = 0
        return Snapshot(state.stage, state.done, state.total, fetched)
