"""Small test doubles shared by the unit tests."""

from __future__ import annotations

from textwrap import dedent
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


class DictTree:
    """A SourceTree in memory: posix path -> source text (dedented); records every read."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = {k: dedent(v) for k, v in files.items()}
        self.reads: list[str] = []

    def read_text(self, path: str) -> str | None:
        self.reads.append(path)
        return self.files.get(path)

    def is_dir(self, path: str) -> bool:
        return any(k.startswith(path + "/") for k in self.files)

    def walk(self) -> Iterator[str]:
        return iter(sorted(self.files))
