# Maintainers: what checking one release read of its tree, so a later release can reuse it.
#
# Owns: `ProbedTree`, a provider SourceTree that records every answer it gives (each file's
#       sha256, each folder and extension-module check, each folder listed), the `Probes` it
#       ends with, and `Answers`, another release's tree asked the same questions once each
#       (the files any earlier release read prefetched together). A release whose answers
#       are all the same as an earlier one's gets that release's verdicts
#       (`CheckedRelease.same_as`) without parsing anything: a drift timeline of 35
#       releases stays cheap.
# Takes: SourceTrees. Gives: probes and yes/no; DRIFT_AUDIT_NO_MEMO_INDEX=1 asks every time.
"""Release reuse: the answers a provider tree gave, compared across releases."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auditor.sources import file_digest, folder_entries, has_extension, text_sha256

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from auditor.bind import Verdict
    from auditor.difference import Basis
    from auditor.model import Site
    from auditor.provider import Absent
    from auditor.sources import Release, SourceTree


class ProbedTree:
    """A SourceTree that records every answer it gives: file digests and folder checks."""

    def __init__(self, tree: SourceTree) -> None:
        self.tree = tree
        self._files: dict[str, str | None] = {}
        self._dirs: dict[str, bool] = {}
        self._extensions: dict[str, bool] = {}
        self._entries: dict[str, tuple[str, ...] | None] = {}

    def read_text(self, path: str) -> str | None:
        text = self.tree.read_text(path)
        self._files[path] = digest_of(text)
        return text

    def digest(self, path: str) -> str | None:
        """sources.file_digest() of the tree, recorded as reading the file would be."""
        found = self._files[path] = file_digest(self.tree, path)
        return found

    def is_dir(self, path: str) -> bool:
        found = self.tree.is_dir(path)
        self._dirs[path] = found
        return found

    def has_extension(self, base: str) -> bool:
        found = has_extension(self.tree, base)
        self._extensions[base] = found
        return found

    def entries(self, path: str) -> tuple[str, ...]:
        """sources.folder_entries() of the tree, recorded (a folder's listing: moves.py)."""
        found = self._entries[path] = folder_entries(self.tree, path)
        return found or ()

    def walk(self) -> Iterator[str]:
        raise NotImplementedError("a provider tree is read by path, never walked")

    def prefetch(self, paths: Iterable[str]) -> None:
        prefetch = getattr(self.tree, "prefetch", None)
        if prefetch is not None:
            prefetch(paths)

    def probes(self) -> Probes:
        return Probes(
            tuple(sorted(self._files.items())),
            tuple(sorted(self._dirs.items())),
            tuple(sorted(self._extensions.items())),
            tuple(sorted(self._entries.items())),
        )


@dataclass(frozen=True)
class Probes:
    """Every answer a provider tree gave while one release was checked."""

    files: tuple[tuple[str, str | None], ...]  # path -> sha256 of its text, None: no file
    dirs: tuple[tuple[str, bool], ...]
    extensions: tuple[tuple[str, bool], ...] = ()  # module path -> an extension module there
    entries: tuple[tuple[str, tuple[str, ...] | None], ...] = ()  # folder -> what it holds

    def answered_by(self, answers: Answers) -> bool:
        """Whether the tree gives every one of these answers (same content, same absences)."""
        try:
            same_files = all(answers.digest(p) == d for p, d in self.files)
            same_dirs = all(answers.is_dir(p) == found for p, found in self.dirs)
            return (
                same_files
                and same_dirs
                and all(has_extension(answers.tree, b) == found for b, found in self.extensions)
                and all(folder_entries(answers.tree, f) == found for f, found in self.entries)
            )
        except (OSError, UnicodeDecodeError):
            return False


class Answers:
    """One release's tree, each file's digest and each folder check asked once: a release
    is compared with every release checked before it (a timeline of 35 compared each file
    up to 34 times). The files any earlier release read are fetched together, once.
    DRIFT_AUDIT_NO_MEMO_INDEX=1 asks the tree every time, as before."""

    def __init__(self, tree: SourceTree, earlier: Sequence[Probes]) -> None:
        self.tree = tree
        self._digests: dict[str, str | None] = {}
        self._dirs: dict[str, bool] = {}
        self._keep = not os.environ.get("DRIFT_AUDIT_NO_MEMO_INDEX")
        prefetch = getattr(tree, "prefetch", None)
        wanted = sorted({p for probes in earlier for p, d in probes.files if d is not None})
        if prefetch is not None and wanted:
            prefetch(wanted)

    def digest(self, path: str) -> str | None:
        if path in self._digests:
            return self._digests[path]
        found = file_digest(self.tree, path)
        if self._keep:
            self._digests[path] = found
        return found

    def is_dir(self, path: str) -> bool:
        if path in self._dirs:
            return self._dirs[path]
        found = self.tree.is_dir(path)
        if self._keep:
            self._dirs[path] = found
        return found


@dataclass(frozen=True)
class CheckedRelease:
    """A release checked: its sites, the answers its tree gave, its verdicts."""

    version: str
    import_names: tuple[str, ...]
    sites: tuple[Site, ...]
    probes: Probes
    verdicts: tuple[Verdict, ...]
    absent: Mapping[str, Absent] = field(default_factory=dict)  # releases.absent_names
    bases: tuple[Basis | None, ...] = ()  # what each undecided verdict rests on (difference.py)

    def same_as(self, release: Release, answers: Answers) -> bool:
        return release.import_names == self.import_names and self.probes.answered_by(answers)


def digest_of(text: str | None) -> str | None:
    return None if text is None else text_sha256(text)
