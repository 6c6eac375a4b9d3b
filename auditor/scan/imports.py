# Maintainers: import statements of the consumer.
#
# Owns: turning `from ..pkg import x` into an absolute dotted name, one IMPORT model.Site per
# imported provider module or name (positioned on the alias), and the `alternatives` of
# imports that stand in for each other (`try: from a import X / except ImportError: from b
# import X`, or the two branches of a version check).
# Takes: calls from the walker, which also records the local bindings in its Scope.
# Gives: `ImportRecorder.finish()` -> the file's IMPORT sites, alternatives filled in.
# Imports of consumer modules give no site; `from .a import F` is followed later, by
# resolve.Resolver, to whatever `a` bound `F` to.
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from auditor.model import Action, Site

if TYPE_CHECKING:
    import ast

    from auditor.scan.facts import Positions


def absolute_module(module: str, is_package: bool, name: str | None, level: int) -> str | None:
    """The absolute module a `from` import names, or None beyond the top-level package."""
    if level == 0:
        return name
    parts = module.split(".")
    if not is_package:
        parts.pop()
    drop = level - 1
    if drop >= len(parts):
        return None
    base = parts[: len(parts) - drop]
    if name:
        base.append(name)
    return ".".join(base) or None


def root_of(path: str) -> str:
    return path.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class _Entry:
    """One name an import binds, and where it points."""

    key: str  # the bound name (or the dotted module of a plain `import a.b`)
    target: str
    site: int | None  # index into ImportRecorder.sites when the target is the provider's


class ImportRecorder:
    """Collects one file's imports; makes IMPORT sites and links alternatives."""

    def __init__(self, positions: Positions, providers: frozenset[str]) -> None:
        self._positions = positions
        self._providers = providers
        self._sites: list[Site] = []
        self._entries: list[_Entry] = []
        self._alternatives: dict[int, dict[str, None]] = {}

    def record(
        self,
        key: str,
        target: str,
        node: ast.alias | ast.stmt,
        *,
        scope: str,
        guarded: bool,
        module_only: bool,
    ) -> None:
        index = None
        if root_of(target) in self._providers:
            index = len(self._sites)
            location = self._positions.of(node)
            site = Site(Action.IMPORT, target, scope, location, None, guarded, module_only)
            self._sites.append(site)
        self._entries.append(_Entry(key, target, index))

    def mark(self) -> int:
        """A position in the entries, to delimit the branches of a guard."""
        return len(self._entries)

    def link(self, branches: list[tuple[int, int]]) -> None:
        """Imports binding the same name in different branches are alternatives."""
        groups = [self._entries[start:end] for start, end in branches]
        for i, group in enumerate(groups):
            others = [e for j, g in enumerate(groups) if j != i for e in g]
            for entry in group:
                self._link_entry(entry, others)

    def _link_entry(self, entry: _Entry, others: list[_Entry]) -> None:
        if entry.site is None:
            return
        for other in others:
            if other.key == entry.key and other.target != entry.target:
                self._alternatives.setdefault(entry.site, {})[other.target] = None

    def finish(self) -> list[Site]:
        return [
            replace(site, alternatives=tuple(self._alternatives[i]))
            if i in self._alternatives
            else site
            for i, site in enumerate(self._sites)
        ]
