# Maintainers: where a definition that is gone from its old home lives now.
#
# Owns: `MoveSearch`, the part of ProviderAPI behind `moved()`: the modules loaded so far, an
#       import of the name under another name, then the modules near its old home (its
#       surviving ancestor packages and what they import, breadth first, within its top-level
#       package; for a top-level package the release no longer ships, within the ones it
#       does), each read only when its source mentions the name, at most MAX_MOVE_MODULES;
#       then the modules beside its old home that nothing imports (`pkg.util` gone, `def g`
#       in `pkg.net` now): the folders of the MAX_MOVE_FOLDERS nearest surviving ancestor
#       packages, listed (sources.folder_entries), nearest first, each module's text read
#       (at most MAX_MOVE_FILES) and visited only when it defines the name at its top
#       level; the nearest folder with a definition must hold one, or it is no answer (two
#       are a guess). A file that cannot be fetched ends the search, never the audit.
#       What the search read (modules, folders listed) is `move_basis()`: memo.py keeps an
#       answer only as long as all of it reads the same.
# Takes: a dotted path the target release lacks. Gives: the dotted path of a definition of
# that name elsewhere, or None; used for suggestions (and bind.py's move-import fix, safe only
# when the definition has the baseline's kind and signature), never for a verdict.
"""The moved-name search: where a gone definition went."""

from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auditor.errors import FetchError
from auditor.provider.classes import Unknown
from auditor.provider.loading import ModuleLoader
from auditor.provider.lookup import _MARKER
from auditor.provider.paths import bare, candidates
from auditor.provider.pyvalues import absolute
from auditor.sources import folder_entries

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import griffe


MAX_MOVE_MODULES = 48  # modules read in search of where a gone definition went
MAX_MOVE_FILES = 48  # module texts beside its old home read for a definition of the name
MAX_MOVE_FOLDERS = 2  # the nearest package folders of its old home listed for them


class MoveSearch(ModuleLoader):
    """Finds a definition of the same name elsewhere in the release."""

    def moved(self, dotted: str) -> str | None:
        """Where a definition with the same name lives now: among the modules loaded so far,
        then among the modules the surviving packages of its old home import (a package's
        `__init__` importing from a new submodule), read only when their source mentions the
        name, at most MAX_MOVE_MODULES of them."""
        name = bare(dotted.rpartition(".")[2])
        loaded = [  # the provider's own: a name gone from it never moved into the stdlib
            self._modules[m]
            for m in sorted(m for m, v in self._modules.items() if v and self.owns_itself(m))
        ]
        found = _definition_in(loaded, name, dotted)
        if found is not None:
            return found
        for module in loaded:  # an import of it under another name: `from x.y import name as _n`
            for member in module.members.values() if module is not None else ():
                target = str(getattr(member, "target_path", "")) if member.is_alias else ""
                if (
                    target.rpartition(".")[2] == name
                    and target != dotted
                    and self.owns_itself(target)
                ):
                    return target
        if _MARKER.search(dotted) or "." not in dotted:
            return None
        found = _definition_in(self._near(dotted, name), name, dotted)
        if found is None and self.owns_itself(dotted) and self._of_a_module(dotted):
            found = self._beside(dotted, name)
        return found

    def _of_a_module(self, dotted: str) -> bool:
        """Whether the gone name was a module's (its parent a module, or gone), not a
        class's: a method gone from a class did not move into a module beside it."""
        parent = dotted.rpartition(".")[0]
        try:
            if self._module(parent) is not None:
                return True
            grandparent, _, short = parent.rpartition(".")
            holder = self._module(grandparent) if grandparent else None
        except Unknown:
            return False
        member = holder.members.get(short) if holder is not None else None
        return member is None or (not member.is_alias and bool(member.is_module))

    def move_basis(self) -> tuple[frozenset[str], frozenset[str]] | None:
        """What the searches so far read beyond the modules loaded: the modules whose text
        was read (a definition's absence rests on them too) and the folders listed; None
        when a file beside an old home could not be fetched (offline, say): the search
        stopped there, and its answer is no answer to keep."""
        state = self._move_state()
        return None if state.cut else (frozenset(state.names), frozenset(state.listed))

    def _move_state(self) -> _Beside:
        state: _Beside | None = getattr(self, "_beside_state", None)
        if state is None:
            state = _Beside()
            self._beside_state: _Beside = state
        return state

    def _beside(self, dotted: str, name: str) -> str | None:
        """The one definition of `name` among the modules in the folder of a surviving
        ancestor package of its old home (the MAX_MOVE_FOLDERS nearest), nearest folder
        first, that nothing imports: a module is visited only when its text defines the
        name at its top level; a folder with two such definitions is no answer (which one
        is meant is a guess)."""
        parts = dotted.split(".")[:-1]
        budget, folders = MAX_MOVE_FILES, 0
        for i in range(len(parts), 0, -1):
            listed = self._listed(".".join(parts[:i]))[:budget]
            budget -= len(listed)
            folders += bool(listed)
            found = [m for m in listed if name in self._top_names(m)]
            if self._move_state().cut:
                return None  # a file that cannot be fetched: no answer beside it
            defined = [d for m in found if (d := self._defined_in(m, name, dotted)) is not None]
            if defined:
                return defined[0] if len(defined) == 1 else None
            if folders >= MAX_MOVE_FOLDERS or budget <= 0:
                break
        return None

    def _listed(self, package: str) -> list[str]:
        """The modules in a package's folder (its submodules and subpackages), fetched
        together ahead of reading."""
        entries = folder_entries(self.tree, package.replace(".", "/"))
        if not entries:
            return []
        self._move_state().listed.add(package)
        stems = {e.removesuffix(".pyi").removesuffix(".py") for e in entries}
        modules = [f"{package}.{stem}" for stem in sorted(stems) if stem != "__init__"]
        self.prefetch(m for m in modules if m not in self._move_state().names)
        return modules

    def _top_names(self, module: str) -> frozenset[str]:
        """The names a module's text binds at its top level (`def`, `class`, an assignment
        at column 0), read once per release; none when it cannot be read."""
        state = self._move_state()
        known = state.names.get(module)
        if known is not None:
            return known
        try:
            text = next((t for c in candidates(module) if (t := self.tree.read_text(c))), "")
        except (OSError, UnicodeDecodeError):
            text = ""
        except FetchError:  # a suggestion is never worth failing the audit for
            state.cut, text = True, ""
        found = state.names[module] = frozenset(
            n for match in _TOP_NAMES.finditer(text) for n in match.groups() if n
        )
        return found

    def _defined_in(self, module: str, name: str, dotted: str) -> str | None:
        """Where `module` defines `name` itself, as griffe reads it (not an import)."""
        try:
            loaded = self._module(module)
        except Unknown:
            return None
        return _definition_in([loaded], name, dotted)

    def _near(self, dotted: str, name: str) -> Iterable[griffe.Module]:
        """Modules near a gone definition's old home, nearest first: its surviving ancestor
        packages, then what they import or star-import, breadth first, within its top-level
        package (a top-level package the release no longer ships: from each it does ship);
        a module is visited only when its source mentions `name` (packages always, to go on
        from them)."""
        parts = dotted.split(".")[:-1]
        queue = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        tops = {parts[0]}
        if not self.owns_itself(dotted):
            queue, tops = sorted(self.provider_names), set(self.provider_names)
        seen: set[str] = set()
        visited = 0
        while queue and visited < MAX_MOVE_MODULES:
            path = queue.pop(0)
            if path in seen or not self.owns_itself(path) or path.split(".")[0] not in tops:
                continue
            seen.add(path)
            if not self._may_define(path, name):
                continue
            try:
                module = self._module(path)
            except Unknown:
                continue
            if module is None:
                continue
            visited += 1
            yield module
            queue += self._imports_of(path)

    def _imports_of(self, module: str) -> list[str]:
        """What a module's import statements name (modules, and modules of names), from its
        source: griffe keeps no member for a package's `from pkg import submodule`."""
        loaded = self._evaluator().host.module_ast(module)
        if loaded is None:
            return []
        tree, is_package = loaded
        package = module if is_package else module.rpartition(".")[0]
        out: list[str] = []
        for node in _statements(tree):
            if isinstance(node, ast.Import):
                out += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = absolute(node.module or "", node.level, package)
                out.append(base)
                out += [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
        return out

    def _may_define(self, module: str, name: str) -> bool:
        """A package (always: its imports lead on), or a module whose source names `name`."""
        if module in self._modules:
            return True
        for candidate in candidates(module):
            text = self.tree.read_text(candidate)
            if text is not None:
                return candidate.endswith(("__init__.py", "__init__.pyi")) or name in text
        return False


_TOP_NAMES = re.compile(
    r"^(?:(?:async[ \t]+)?def[ \t]+(\w+)|class[ \t]+(\w+)|(\w+)[ \t]*(?::|=(?!=)))", re.MULTILINE
)


@dataclass
class _Beside:
    """What the searches beside old homes read in one release: each module's top-level
    names (the modules whose text was read), the packages listed, whether one was cut."""

    names: dict[str, frozenset[str]] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)
    cut: bool = False


def _definition_in(modules: Iterable[griffe.Module | None], name: str, dotted: str) -> str | None:
    """The first of the modules that defines `name` itself (not by an import), elsewhere."""
    for module in modules:
        member = module.members.get(name) if module is not None else None
        if member is not None and not member.is_alias and member.path != dotted:
            return str(member.path)
    return None


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """ast.walk(tree) in its order, but what is under an expression (no statement is):
    the import statements come in the order ast.walk gives them, in a tenth of the nodes."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr))
        yield node
