# Maintainers: where a definition that is gone from its old home lives now.
#
# Owns: `MoveSearch`, the part of ProviderAPI behind `moved()`: the modules loaded so far, an
#       import of the name under another name, then the modules near its old home (its
#       surviving ancestor packages and what they import, breadth first, within its top-level
#       package; for a top-level package the release no longer ships, within the ones it
#       does), each read only when its source mentions the name, at most MAX_MOVE_MODULES.
# Takes: a dotted path the target release lacks. Gives: the dotted path of a definition of
# that name elsewhere, or None; used for suggestions only, never for a verdict.
"""The moved-name search: where a gone definition went."""

from __future__ import annotations

import ast
from collections import deque
from typing import TYPE_CHECKING

from auditor.provider.classes import Unknown
from auditor.provider.loading import ModuleLoader
from auditor.provider.lookup import _MARKER
from auditor.provider.paths import bare, candidates
from auditor.provider.pyvalues import absolute

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import griffe


MAX_MOVE_MODULES = 48  # modules read in search of where a gone definition went


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
        return _definition_in(self._near(dotted, name), name, dotted)

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
