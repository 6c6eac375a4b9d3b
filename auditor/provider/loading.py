# Maintainers: provider modules loaded lazily, one at a time, and the state of one release.
#
# Owns: `ModuleLoader`, the base of ProviderAPI: the release's tree and import names, every
#       memo of one API (modules, lookups, decorators, star answers, class sources), the
#       tracking of which modules a lookup touched (for memo.py), visiting a module with
#       `griffe.visit` only when a lookup reaches it (parent packages first, so relative
#       imports resolve; a namespace package or an extension module with no stub as an empty
#       module), prefetching the files lookups will read, and `_Host`, what dynamic.Evaluator
#       asks of the release (module ASTs parsed once, stubs, member names, methods).
# Takes: a SourceTree (sources/). Gives: griffe modules (None: no such module), or Unreadable.
"""Provider modules visited on demand, and the state one ProviderAPI keeps."""

from __future__ import annotations

import ast
import warnings
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import griffe

from auditor.deep import deeply
from auditor.provider import dynamic
from auditor.provider.classes import Maker, Unknown
from auditor.provider.lookup import Unreadable, _function_ast, _Missing, logger
from auditor.provider.paths import candidates, module_files, prefixes
from auditor.sources import has_extension
from auditor.sources.stdlib import WithStdlib

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.model import Resolution
    from auditor.sources import SourceTree


class ModuleLoader:
    """The modules of one release, visited when a lookup first reaches them; the memos of
    the API built on it (api.py)."""

    def __init__(self, tree: SourceTree, import_names: Iterable[str], version: str | None):
        self.tree = tree
        self.provider_names = frozenset(import_names)  # the provider's own packages
        # and the standard library's, when the tree answers for it (sources/stdlib.py)
        stdlib = tree.stdlib if isinstance(tree, WithStdlib) else frozenset()
        self.import_names = self.provider_names | stdlib
        self.version = version
        self._modules: dict[str, griffe.Module | None] = {}
        self._namespaces: set[str] = set()  # namespace packages: folders with no __init__
        self._compiled: set[str] = set()  # extension modules with no stub: nothing is known
        self._bindings: dict[str, dict[str, int]] = {}  # module -> names its top level binds
        self._collection = griffe.ModulesCollection()
        self._lines = griffe.LinesCollection()
        self._cache: dict[tuple[str, bool, bool], tuple[Resolution, frozenset[str]]] = {}
        self._decorators: dict[str, tuple[Maker | str | None, frozenset[str]]] = {}
        self._tracking: list[set[str]] = []  # modules touched by the lookups under way
        self.load_errors: dict[str, str] = {}
        self._wanted: set[str] = set()  # every prefix of every path asked about so far
        self._texts: dict[str, tuple[str, str]] = {}  # module -> (file, source text)
        self._dynamic: dynamic.Evaluator | None = None
        self._stars: dict[tuple[str, str], tuple[tuple[Any, Unknown | None], frozenset[str]]] = {}
        self._star_path: set[tuple[str, str]] = set()  # (source, name) of star lookups under way
        self._cuts = 0  # star-import cycles cut so far (an answer below one is not kept)
        self._static_all: dict[str, bool] = {}  # module -> whether its __all__ is as written
        self._declared_alls: dict[str, frozenset[str] | object | None] = {}  # _declared_all

    @property
    def modules_loaded(self) -> int:
        return sum(1 for m in self._modules.values() if m is not None)

    def owns(self, dotted: str) -> bool:
        """Whether a dotted path lies inside what this release can read: the provider's
        packages, and the standard library's (typeshed's stubs) when the tree answers for it."""
        return dotted.split(".", 1)[0] in self.import_names

    def owns_itself(self, dotted: str) -> bool:
        """Whether a dotted path lies inside the provider's own packages."""
        return dotted.split(".", 1)[0] in self.provider_names

    def loaded_modules(self) -> frozenset[str]:
        return frozenset(name for name, module in self._modules.items() if module is not None)

    def _tracked(self, compute: Any) -> tuple[Any, frozenset[str]]:
        self._tracking.append(set())
        try:
            value = compute()
        finally:
            modules = frozenset(self._tracking.pop())
        return value, modules

    def _merge(self, modules: frozenset[str]) -> None:
        for touched in self._tracking:
            touched |= modules

    def prefetch(self, dotted_paths: Iterable[str]) -> None:
        """Tell a lazily fetching tree which module files lookups of these paths will read."""
        prefetch = getattr(self.tree, "prefetch", None)
        if prefetch is None:
            return
        owned = [d for d in dotted_paths if self.owns(d)]
        self._wanted.update(p for d in owned for p in prefixes(d))
        paths = {c for d in owned for c in module_files(d)}
        if paths:
            prefetch(sorted(paths))

    # ------------------------------------------------------------------ module loading

    def _module(self, name: str) -> griffe.Module | None:
        """The visited module `name`, or None when the release has no such module."""
        self._merge(frozenset((name,)))
        if name in self.load_errors:
            raise Unreadable(name, self.load_errors[name])
        if name in self._modules:
            return self._modules[name]
        self._modules[name] = None  # guards against re-entry while loading
        parent_name, _, short = name.rpartition(".")
        parent = self._module(parent_name) if parent_name else None
        if parent_name and parent is None:
            return None
        module = self._visit(name, short, parent)
        self._modules[name] = module
        return module

    def _visit(self, name: str, short: str, parent: griffe.Module | None) -> griffe.Module | None:
        base = name.replace(".", "/")
        for candidate in candidates(name):
            try:
                code = self.tree.read_text(candidate)
                if code is None:
                    continue
                filepath = PurePosixPath(candidate)
                self._texts[name] = (candidate, code)
                self._lines[filepath] = code.splitlines()  # type: ignore[index]  # for .source
                with warnings.catch_warnings():
                    # `"\d"` in a provider's source warns; under -W error that must not make
                    # the module unreadable (and be memoized as unknown)
                    warnings.simplefilter("ignore")
                    module = deeply(self._griffe_visit, short, filepath, code, parent)
            except Exception as error:  # a provider file that cannot be decoded or visited
                self.load_errors[name] = f"{type(error).__name__}: {error}"
                logger.warning("provider module %s could not be read: %s", name, error)
                raise Unreadable(name, self.load_errors[name]) from error
            if not self.owns_itself(name):  # typeshed's stub of a standard-library module
                module.extra["drift_audit"]["stdlib"] = True
            self._attach(module, parent)
            self.prefetch(_alias_targets(module, self._wanted))
            return module
        if has_extension(self.tree, base):  # an extension module with no stub beside it
            module = griffe.Module(short, filepath=None, parent=parent)
            self._compiled.add(name)
            self._attach(module, parent)
            return module
        if self.tree.is_dir(base):  # a namespace package
            module = griffe.Module(short, filepath=None, parent=parent)
            self._namespaces.add(name)
            self._attach(module, parent)
            return module
        return None

    def _griffe_visit(
        self, short: str, filepath: PurePosixPath, code: str, parent: griffe.Module | None
    ) -> griffe.Module:
        """griffe's visit of one module's source: nothing is kept of a visit cut short (by
        RecursionError: deep.py visits again on a deep stack). griffe reads a decorator's
        path through the modules loaded so far, and does not catch a cycle met there (a
        package binding `auto_docstring`, the function, over its submodule of that name:
        transformers 5): the module is then visited again with nothing to read through."""
        try:
            return self._griffe_visit_in(short, filepath, code, parent, self._collection)
        except griffe.CyclicAliasError:
            return self._griffe_visit_in(short, filepath, code, parent, griffe.ModulesCollection())

    def _griffe_visit_in(
        self,
        short: str,
        filepath: PurePosixPath,
        code: str,
        parent: griffe.Module | None,
        collection: griffe.ModulesCollection,
    ) -> griffe.Module:
        return griffe.visit(
            short,
            filepath,  # type: ignore[arg-type]
            code,
            parent=parent,
            modules_collection=collection,
            lines_collection=self._lines,
        )

    def _attach(self, module: griffe.Module, parent: griffe.Module | None) -> None:
        if parent is None:
            self._collection.set_member(module.name, module)
        elif module.name not in parent.members:  # the package's own binding wins
            parent.set_member(module.name, module)

    def _evaluator(self) -> dynamic.Evaluator:
        if self._dynamic is None:
            self._dynamic = dynamic.Evaluator(_Host(self))
        return self._dynamic

    if TYPE_CHECKING:  # defined by the parts built on this one (resolution.py, members.py,
        # signatures.py), which the evaluator's host and one another call back

        def _find(
            self, dotted: str, depth: int, *, module_only: bool = False, from_import: bool = False
        ) -> Any: ...

        def _follow(self, member: Any, depth: int) -> Any: ...

        def _class_member(
            self,
            cls: griffe.Class,
            name: str,
            path: str,
            depth: int,
            seen: set[str],
            *,
            on_class: bool = False,
        ) -> Any: ...

        def own_decorator(self, path: str) -> Maker | str | None: ...


class _Host:
    """What dynamic.Evaluator asks of a release, answered through one API (so every module it
    reads is tracked for the memo like any other)."""

    def __init__(self, api: ModuleLoader) -> None:
        self.api = api
        self._trees: dict[str, tuple[ast.Module, bool] | None] = {}  # parsed once each

    def module_ast(self, module: str) -> tuple[ast.Module, bool] | None:
        if not self.api.owns(module):
            return None
        try:
            if self.api._module(module) is None or module not in self.api._texts:
                return None  # (asking the API records the module as read, every time)
        except Unknown:
            return None
        if module not in self._trees:
            filename, text = self.api._texts[module]
            try:
                tree = ast.parse(text, filename=filename)
            except (SyntaxError, ValueError, RecursionError):
                self._trees[module] = None
            else:
                package = filename.endswith(("/__init__.py", "/__init__.pyi"))
                self._trees[module] = (tree, package)
        return self._trees[module]

    def stub_ast(self, module: str) -> ast.Module | None:
        path = module.replace(".", "/") + "/__init__.pyi"
        try:
            text = self.api.tree.read_text(path)
            return ast.parse(text, filename=path) if text is not None else None
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            return None

    def member_names(self, module: str) -> list[str] | None:
        try:
            found = self.api._module(module) if self.api.owns(module) else None
        except Unknown:
            return None
        return sorted(found.members) if found is not None else None

    def method(self, path: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str] | None:
        owner, _, name = path.rpartition(".")
        if not owner or not self.api.owns(path):
            return None
        try:
            cls = self.api._find(owner, 0)
            if not isinstance(cls, griffe.Class):
                return None
            member = self.api._class_member(cls, name, path, 0, seen=set(), on_class=True)
        except (_Missing, Unknown, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        node = _function_ast(member) if isinstance(member, griffe.Function) else None
        if node is None or not isinstance(member, griffe.Function):
            return None
        kind = next((k for k in ("classmethod", "staticmethod") if k in member.labels), "function")
        return node, member.module.path, kind

    def owns(self, path: str) -> bool:
        return self.api.owns(path)


def _alias_targets(module: griffe.Module, wanted: set[str]) -> list[str]:
    """Where the re-exports a lookup asks for lead (and every wildcard import): not every
    alias of a package's __init__, most of which no lookup ever follows."""
    targets = []
    for name, member in module.members.items():
        wildcard = getattr(member, "wildcard", None)
        if wildcard:
            targets.append(wildcard)
        elif member.is_alias and f"{module.path}.{name}" in wanted:
            targets.append(str(getattr(member, "target_path", "")))
    return targets
