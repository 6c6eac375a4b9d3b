"""Sources: a spec or a path in, a readable tree of Python source out. Never builds or imports.

What it owns: PEP 508 specs and direct references, the package index (simple repository API,
PEP 503 HTML and PEP 691 JSON), the user's pip configuration for the index URL, choosing a
wheel (else the sdist), reading `.py`/`.pyi` straight out of archives, the local cache, and the
consumer's own metadata (Requires-Dist, for the inferred baseline).

What it gives: `Release` objects whose `tree` answers `read_text(path)` for posix paths relative
to the import root. The provider stage only ever asks for the files it needs through that
interface, so a later tree can fetch members lazily (ranged reads) without any other change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class SourceTree(Protocol):
    """Read access to one release's import root (where `pkg/__init__.py` lives)."""

    def read_text(self, path: str) -> str | None:
        """The decoded text of a posix relative path, or None when there is no such file."""

    def is_dir(self, path: str) -> bool:
        """Whether a folder exists at that path (namespace packages)."""

    def walk(self) -> Iterator[str]:
        """Every `.py` and `.pyi` path in the tree, sorted (consumers are scanned whole)."""


def file_digest(tree: SourceTree, path: str) -> str | None:
    """What a file of the tree holds, as `text_sha256` of its text; None when there is no such
    file. A tree that knows it without reading the file (remote.WheelTree keeps each member's
    digest beside it) says so through `digest`; another is read. UnicodeDecodeError and
    OSError as read_text."""
    probe = getattr(tree, "digest", None)
    if probe is not None:
        found: str | None = probe(path)
        return found
    text = tree.read_text(path)
    return None if text is None else text_sha256(text)


def folder_entries(tree: SourceTree, folder: str) -> tuple[str, ...] | None:
    """The names directly in a folder of the tree that may be modules (`name.py`,
    `name.pyi`, a folder `name`: each stem an identifier), sorted; () for no such folder;
    None when the tree cannot list a folder (a test's tree: nothing is listed then). A tree
    that can say has `entries`, as it has `has_extension`."""
    probe = getattr(tree, "entries", None)
    return tuple(probe(folder)) if probe is not None else None


def module_entries(names: Iterable[str]) -> tuple[str, ...]:
    """Of a folder's names, those that may be modules, sorted (what `entries` gives)."""
    return tuple(sorted(n for n in set(names) if _module_like(n)))


def _module_like(name: str) -> bool:
    stem = name[: -len(".pyi")] if name.endswith(".pyi") else name.removesuffix(".py")
    return stem.isidentifier() and (stem == name or name in (f"{stem}.py", f"{stem}.pyi"))


def text_sha256(text: str) -> str:
    """The sha256 of a provider file's text (what the memo and release reuse compare)."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def has_extension(tree: SourceTree, base: str) -> bool:
    """Whether the tree holds an extension module at `base` (`pkg/mod`, no suffix): a tree
    that can say has `has_extension`; one that cannot (a test's tree) holds none."""
    probe = getattr(tree, "has_extension", None)
    return bool(probe(base)) if probe is not None else False


class PrefetchingTree(SourceTree, Protocol):
    """A tree that fetches lazily may also be told, ahead of time, what will be read."""

    def prefetch(self, paths: Iterable[str]) -> None:
        """Start fetching these paths (any that exist) so later read_text calls are fast."""


@dataclass(frozen=True)
class Release:
    """One version of one distribution, with its source tree."""

    name: str  # canonical distribution name (PEP 503 normalised)
    version: str | None
    tree: SourceTree
    origin: str  # "index", "folder /abs", "installed", "file:///..."
    import_names: tuple[str, ...]  # top-level importable packages/modules in the tree
    requires: tuple[str, ...] = ()  # Requires-Dist (or [project] dependencies), as written
    bytes_fetched: int = 0
    extra: dict[str, str] = field(default_factory=dict)


# Re-exports, imported on first use (PEP 562): `auditor.sources.pipconf` or `.cachedir` alone
# must not pull in the index client, packaging and the archive readers (a replayed run reads
# neither; replay.py). Those modules import `Release` from this package.
_LAZY = {
    "infer_baseline": "auditor.sources.consumer",
    "infer_baseline_why": "auditor.sources.consumer",
    "resolve_consumer": "auditor.sources.consumer",
    "Index": "auditor.sources.index",
    "open_index": "auditor.sources.index",
}

if TYPE_CHECKING:
    from auditor.sources.consumer import infer_baseline, infer_baseline_why, resolve_consumer
    from auditor.sources.index import Index, open_index


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "Index",
    "Release",
    "SourceTree",
    "infer_baseline",
    "infer_baseline_why",
    "open_index",
    "resolve_consumer",
]
