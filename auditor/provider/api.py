"""ProviderAPI: "what is `a.b.C` in this release?", answered lazily, one module at a time.

What it owns: visiting modules with `griffe.visit` only when a lookup reaches them (vLLM has
~1,500 modules; an audit touches a few dozen), parent packages first so relative imports
resolve; walking dotted paths through modules, re-exports (griffe aliases), wildcard imports,
submodules, classes and their bases; and instance paths: a part ending in `()` stands for an
instance of the class before it, or what the function before it returns (its return
annotation), so `vllm.x.Scheduler().add_request` is the bound method and
`vllm.config.VllmConfig().cache_config` the attribute's annotated type.

What it takes: a `SourceTree` (sources/). What it gives: `Resolution`s (model.py).

Module namespaces as they run (dynamic.py): a name a module does not define is looked up the
way the interpreter would, through its `__getattr__` (PEP 562), a lazy loader, or the names it
writes into `globals()` at import time; served, refused or undecided. Never guess: a name that
may be provided dynamically in a way that cannot be followed (a class with `__getattr__`,
`setattr`, an external base or wildcard) is UNKNOWN, not missing; a callable whose signature
cannot be known has `signature=None` and a reason.
"""

from __future__ import annotations

import ast
import logging
import os
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import griffe

from auditor.deep import deeply
from auditor.model import Lookup, Resolution, Signature, Symbol, SymbolKind
from auditor.provider import (
    bindings,
    classes,
    dynamic,
    exprs,
    forwards,
    functions,
    hooks,
    returns,
    wrappers,
)
from auditor.provider.classes import Maker, Unknown
from auditor.provider.paths import bare, candidates, module_files, prefixes, star_parts
from auditor.provider.pyvalues import Partial, Stop, absolute, dotted
from auditor.sources import has_extension

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.sources import SourceTree

logger = logging.getLogger("drift_audit")
_RECONSTRUCT = re.compile(r"type\(\s*self\s*\)\s*\(|self\.__class__\s*\(|\bcls\s*\(")
_MARKER = re.compile(r"\(\)|\[\]|\[\*\]")
MAX_DEPTH = 40
MAX_MOVE_MODULES = 48  # modules read in search of where a gone definition went
MODULE_DUNDERS = frozenset(
    {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__path__",
     "__dict__", "__cached__", "__builtins__", "__annotations__"}
)  # fmt: skip  # what every module object has, whatever its source defines
Forwarded = tuple["str | None", "str | None", "tuple[str, ...]", "tuple[str, ...]"]
NO_FORWARD: Forwarded = (None, None, (), ())  # path, unless, taken, added
DYNAMIC_ATTRIBUTES = ("__getattr__", "__getattribute__")
PLAIN_ENUMS = frozenset({"enum.Enum", "enum.Flag"})  # no str/int mixin: no extra attributes
TYPE_API = frozenset({"mro"})  # what every class has from `type`, besides dunders
ENUM_API = frozenset(
    {
        "name",
        "value",
        "_name_",
        "_value_",
        "_missing_",
        "_generate_next_value_",
        "_ignore_",
        "_order_",
        "_member_names_",
        "_member_map_",
        "_value2member_map_",
        "_numeric_repr_",
        "_add_alias_",
        "_add_value_alias_",
        "_sort_order_",
    }
)


class _Missing(Exception):
    """A lookup reached a name that does not exist."""

    def __init__(self, path: str, *, module: bool) -> None:
        super().__init__(path)
        self.path = path
        self.module = module


@dataclass(frozen=True)
class _Instance:
    """An object of a provider class (what `Cls()` or an annotation denotes)."""

    cls: griffe.Class


@dataclass(frozen=True)
class _Dynamic:
    """A name a module serves at run time (dynamic.py): what it resolves to (None: not
    known) and the deprecation warning serving it gives."""

    path: str
    obj: Any
    deprecated: str | None


@dataclass(frozen=True)
class _Overloads:
    """A function a stub defines only by @overload variants (griffe keeps them aside)."""

    path: str


@dataclass(frozen=True)
class _Typed:
    """A value known only by its container annotation (`list[Param]`): its items are."""

    annotation: Any


@dataclass(frozen=True)
class _Bound:
    """A method reached through an instance: its first parameter is already supplied."""

    function: griffe.Function


class Unreadable(Unknown):
    """A provider module on a lookup's way could not be parsed: what the lookup asks is not
    known, and a site that needs it is reported (`unparsable-provider`), never passed."""

    def __init__(self, module: str, reason: str) -> None:
        super().__init__(f"module {module} could not be parsed: {reason}")
        self.module = module
        self.reason = reason


class Unlisted(Unknown):
    """A name a compiled module's (or class's) stub does not list: unknown by itself (a stub
    is a sketch of the C code), but a removal when the baseline's stub listed it."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(why)
        self.path = path


class ProviderAPI:
    """Answers lookups by dotted path against one provider release, loading modules lazily."""

    def __init__(self, tree: SourceTree, import_names: Iterable[str], version: str | None):
        self.tree = tree
        self.import_names = frozenset(import_names)
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
        self._class_sources: dict[int, _ClassSource] = {}  # id(class) -> its source, read once
        self._mentions: dict[tuple[str, str], bool] = {}  # (module, class) -> named at top level

    @property
    def modules_loaded(self) -> int:
        return sum(1 for m in self._modules.values() if m is not None)

    def owns(self, dotted: str) -> bool:
        """Whether a dotted path lies inside this provider's packages."""
        return dotted.split(".", 1)[0] in self.import_names

    # ------------------------------------------------------------------ public lookups

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        """What `dotted` is in this release: found (with a Symbol), missing, or unknown.

        `from_import`: the path is `from <all but the last part> import <last part>`, whose
        module part the import system imports (so no binding of a package shadows it)."""
        return self.resolve_tracked(dotted, module_only=module_only, from_import=from_import)[0]

    def resolve_tracked(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> tuple[Resolution, frozenset[str]]:
        """The resolution and every module whose file it depended on (for the memo)."""
        key = (dotted, module_only, from_import)
        if key not in self._cache:
            self._wanted.update(prefixes(dotted))
            resolve = lambda: self._resolve(dotted, module_only, from_import)  # noqa: E731
            self._cache[key] = self._tracked(resolve)
        resolution, modules = self._cache[key]
        self._merge(modules)
        return resolution, modules

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

    def _resolve(self, dotted: str, module_only: bool, from_import: bool) -> Resolution:
        star = star_parts(dotted)
        try:
            if star is not None:  # `a.*.b`: what a consumer's `from a import *` binds as b
                obj = self._star_bound(star[0], star[1])
            else:
                obj = self._find(dotted, depth=0, module_only=module_only, from_import=from_import)
        except _Missing as missing:
            status = Lookup.MISSING_MODULE if missing.module or module_only else Lookup.MISSING_NAME
            return Resolution(status, dotted, missing=missing.path)
        except Unreadable as unreadable:
            why = unreadable.reason
            return Resolution(Lookup.UNREADABLE, dotted, missing=unreadable.module, detail=why)
        except Unlisted as unlisted:
            return Resolution(Lookup.UNLISTED, dotted, missing=unlisted.path, detail=str(unlisted))
        except Unknown as unknown:
            return Resolution(Lookup.UNKNOWN, dotted, detail=str(unknown))
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError) as error:
            return Resolution(Lookup.UNKNOWN, dotted, detail=f"alias cycle or error: {error}")
        plain = obj.obj if isinstance(obj, _Dynamic) else obj
        if module_only and not isinstance(plain, griffe.Module):
            return Resolution(Lookup.MISSING_MODULE, dotted, missing=dotted)
        return Resolution(Lookup.FOUND, dotted, symbol=self._symbol(obj))

    def _declared(self, module: griffe.Module) -> frozenset[str] | object | None:
        """The module's `__all__` as its source spells it (`_declared_all`), once per module;
        None when it cannot be read."""
        if module.path not in self._declared_alls:
            loaded = self._evaluator().host.module_ast(module.path)  # parsed once, shared
            found = _declared_all(loaded[0]) if loaded is not None else None
            self._declared_alls[module.path] = found
        return self._declared_alls[module.path]

    def _star_bound(self, module_path: str, name: str) -> Any:
        """What `from module import *` binds as `name`: the name when the module exports it
        (its `__all__`, else its public names); _Missing when it binds no such name (the
        consumer's name is then something else: a builtin, another import), Unknown when
        that cannot be known (an `__all__` built at run time that does not list it)."""
        origin = self._module(module_path)
        if origin is None:
            raise _Missing(module_path, module=True)
        binds = _star_binds(origin, name, self._declared(origin), self._all_is_static(origin))
        if binds is None:
            raise Unknown(f"{module_path}.__all__ is not known statically; it may export {name}")
        if not binds:
            raise _Missing(f"{module_path}.{name}", module=False)
        return self._find(f"{module_path}.{name}", depth=0)

    def moved(self, dotted: str) -> str | None:
        """Where a definition with the same name lives now: among the modules loaded so far,
        then among the modules the surviving packages of its old home import (a package's
        `__init__` importing from a new submodule), read only when their source mentions the
        name, at most MAX_MOVE_MODULES of them."""
        name = bare(dotted.rpartition(".")[2])
        loaded = [self._modules[m] for m in sorted(m for m, v in self._modules.items() if v)]
        found = _definition_in(loaded, name, dotted)
        if found is not None:
            return found
        for module in loaded:  # an import of it under another name: `from x.y import name as _n`
            for member in module.members.values() if module is not None else ():
                target = str(getattr(member, "target_path", "")) if member.is_alias else ""
                if target.rpartition(".")[2] == name and target != dotted and self.owns(target):
                    return target
        if _MARKER.search(dotted) or not self.owns(dotted):
            return None
        return _definition_in(self._near(dotted, name), name, dotted)

    def _near(self, dotted: str, name: str) -> Iterable[griffe.Module]:
        """Modules near a gone definition's old home, nearest first: its surviving ancestor
        packages, then what they import or star-import, breadth first, within its top-level
        package; a module is visited only when its source mentions `name` (packages always,
        to go on from them)."""
        parts = dotted.split(".")[:-1]
        queue = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        seen: set[str] = set()
        visited = 0
        while queue and visited < MAX_MOVE_MODULES:
            path = queue.pop(0)
            if path in seen or not self.owns(path) or path.split(".")[0] != parts[0]:
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
        for node in ast.walk(tree):
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

    # ------------------------------------------------------------------ path walking

    def _find(
        self, dotted: str, depth: int, *, module_only: bool = False, from_import: bool = False
    ) -> Any:
        if depth > MAX_DEPTH:
            raise Unknown(f"too many re-exports while resolving {dotted}")
        parts = dotted.split(".")
        if not self.owns(dotted):
            raise Unknown(f"{dotted} is outside the provider")
        plain = [bare(p) for p in parts]
        imported = len(plain) - 1 if from_import else 0  # parts the import system imports
        module, used = self._longest_module(
            plain, parts, module_only=module_only, imported=imported
        )
        if module is None:
            raise _Missing(parts[0], module=True)
        obj: Any = module
        for index in range(used, len(parts)):
            path = ".".join(plain[: index + 1])
            if index < (len(plain) if module_only else imported) and isinstance(obj, griffe.Module):
                obj = self._imported_member(obj, plain[index], path, depth)
            else:
                obj = self._member(obj, plain[index], path, depth)
            for marker in _MARKER.findall(parts[index]):
                obj = (
                    self._call_result(obj, depth)
                    if marker == "()"
                    else self._element(obj, marker, depth)
                )
        return obj

    def _longest_module(
        self, plain: list[str], parts: list[str], *, module_only: bool = False, imported: int = 0
    ) -> tuple[Any, int]:
        for size in range(len(plain), 0, -1):
            if any(p != bare(p) for p in parts[: size - 1]):
                continue  # a module path never goes through a call or an item
            module = self._module(".".join(plain[:size]))
            if module is not None:
                attribute = size > max(1, imported) and not (module_only and size == len(plain))
                if attribute and self._shadowed(".".join(plain[: size - 1]), plain[size - 1]):
                    continue  # `pkg.name` is what pkg/__init__ binds, not the submodule
                if parts[size - 1] != plain[size - 1]:
                    raise Unknown(f"calling or subscripting module {module.path}")
                return module, size
        return None, 0

    def _shadowed(self, package: str, name: str) -> bool:
        """Whether `package` binds `name` to something else than its submodule `name`: then
        `package.name` (an attribute, `from package import name`) is that binding, as long as
        nothing imports the submodule (which would rebind it)."""
        parent = self._modules.get(package)
        member = parent.members.get(name) if parent is not None else None
        if member is None or isinstance(member, griffe.Module):
            return False
        if member.is_alias:
            return str(getattr(member, "target_path", "")) != f"{package}.{name}"
        return True

    def _element(self, obj: Any, marker: str, depth: int) -> Any:
        """`obj[k]` ("[]") or an element of iterating obj ("[*]"), from its annotation:
        `list[X]`, `Sequence[X]`, `tuple[X, ...]`, `set[X]` give X; `dict[K, V]` gives V when
        subscripted and K when iterated."""
        annotation = obj.annotation if isinstance(obj, (griffe.Attribute, _Typed)) else None
        element = exprs.element_annotation(annotation, iterate=marker == "[*]")
        if element is None:
            raise Unknown("the elements of this value are not known statically")
        return self._type_of(element, obj, depth)

    def _member(self, obj: Any, name: str, path: str, depth: int) -> Any:
        if isinstance(obj, griffe.Module):
            return self._module_member(obj, name, path, depth)
        if isinstance(obj, griffe.Class):
            try:
                return self._class_member(obj, name, path, depth, seen=set(), on_class=True)
            except _Missing:
                return self._metaclass_member(obj, name, path, depth)
        if isinstance(obj, _Instance):
            return self._instance_member(obj.cls, name, path, depth)
        if isinstance(obj, griffe.Attribute):
            return self._member(self._annotated(obj, depth), name, path, depth)
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                raise Unknown(f"{obj.path} is served at run time; what it is is not known")
            found = self._member(obj.obj, name, path, depth)
            return _Dynamic(path, found, obj.deprecated) if obj.deprecated else found
        raise Unknown(f"{path}: attribute of a {type(obj).__name__.lower()} is not tracked")

    def _imported_member(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        """`import a.b` / `from a.b import c`: the import system finds submodule `b` (or one
        the package put into its namespace); the package's `__getattr__` plays no part."""
        member = module.members.get(name)
        if member is None or getattr(member, "wildcard", None):
            self._unseen_member(module, name, path)
            raise _Missing(path, module=True)
        return self._follow(member, depth)

    def _unseen_member(self, module: griffe.Module, name: str, path: str) -> None:
        """A name a namespace package's folder does not hold may come from another
        distribution's portion of it (matplotlib's `mpl_toolkits` and basemap's
        `mpl_toolkits.basemap`): unknown by itself, a removal only when the baseline held it.
        What an extension module with no stub defines is not known at all (SQLAlchemy 2.0's
        `cyextension.immutabledict`), in any release: never a removal."""
        if module.path in self._compiled:
            raise Unknown(f"{module.path} is compiled and has no stub; {name} may be in it")
        if module.path in self._namespaces:
            raise Unlisted(
                path, f"{module.path} is a namespace package; another distribution may add {name}"
            )

    def _module_member(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        if name in MODULE_DUNDERS and name not in module.members:
            raise Unknown(f"{path} is set by the import system")
        member = module.members.get(name)
        if member is not None and not getattr(member, "wildcard", None):
            return self._follow(member, depth)
        overloads = getattr(module, "overloads", None) or {}
        if overloads.get(name):  # a stub's @overload set with no implementation beside it
            return _Overloads(f"{module.path}.{name}")
        submodule = self._module(f"{module.path}.{name}")
        if submodule is not None:
            return submodule
        self._unseen_member(module, name, path)
        found, undecided = self._from_wildcards(module, name, depth)
        if found is not None:
            return found
        if undecided is None and _from_stub(module):  # a compiled module's stub: a sketch
            raise Unlisted(path, f"{module.path} is compiled; its stub may not list {name}")
        if undecided is None:
            return self._served(module, name, path, depth)
        try:  # a wildcard source could not say: only the module's own machinery can decide
            served = self._served(module, name, path, depth)
        except (_Missing, Unknown):
            raise undecided from None
        return served

    def _top_level_binding(self, module: griffe.Module, name: str) -> griffe.Attribute | None:
        """The attribute an unpacking, a loop, a `with` or a walrus at the module's top level
        binds as `name` (bindings.py), made a member of the module the first time it is
        asked for; None when the top level binds no such name."""
        loaded = self._evaluator().host.module_ast(module.path)
        if loaded is None:
            return None
        if module.path not in self._bindings:
            self._bindings[module.path] = bindings.bound_names(loaded[0])
        line = self._bindings[module.path].get(name)
        if line is None:
            return None
        attribute = griffe.Attribute(name, lineno=line, endlineno=line)
        module.set_member(name, attribute)
        return attribute

    def _served(self, module: griffe.Module, name: str, path: str, depth: int) -> Any:
        """A name the module does not define: what its dynamic namespace does with it."""
        bound = self._top_level_binding(module, name)
        if bound is not None:  # `a, b = ...` at the top level: griffe lists neither
            return self._follow(bound, depth)
        outcome = self._evaluator().lookup(module.path, name)
        if outcome is None:
            if "__getattr__" in module.members:
                raise Unknown(f"{module.path} defines __getattr__; {name} may be dynamic")
            raise _Missing(path, module=False)
        if isinstance(outcome, dynamic.Refused):
            raise _Missing(path, module=False)
        if isinstance(outcome, dynamic.Undecided):
            raise Unknown(outcome.reason)
        target = outcome.target
        obj = self._find(target, depth + 1) if target and self.owns(target) else None
        return _Dynamic(path, obj, outcome.deprecated)

    def _evaluator(self) -> dynamic.Evaluator:
        if self._dynamic is None:
            self._dynamic = dynamic.Evaluator(_Host(self))
        return self._dynamic

    def _from_wildcards(
        self, module: griffe.Module, name: str, depth: int
    ) -> tuple[Any, Unknown | None]:
        """`name` from the module's `from x import *` sources, the last one first (as Python
        binds them, the last wins); (None, why) when a source could not be decided.

        A source with no Python source (a compiled module) is undecided; a source already on
        the path of this very lookup (star imports in a cycle) adds nothing. Answers are
        kept per (module, name), with the modules they read, unless a cycle was cut below."""
        key = (module.path, name)
        if key in self._stars:
            answer, modules = self._stars[key]
            self._merge(modules)
        else:
            cuts = self._cuts
            answer, modules = self._tracked(lambda: self._star_sources(module, name, depth))
            self._merge(modules)
            if self._cuts == cuts:
                self._stars[key] = (answer, modules)
        found, undecided = answer
        return found, undecided

    def _all_is_static(self, module: griffe.Module) -> bool:
        if module.path not in self._static_all:
            loaded = self._evaluator().host.module_ast(module.path)  # parsed once, shared
            self._static_all[module.path] = loaded is not None and _all_is_static(loaded[0])
        return self._static_all[module.path]

    def _star_exports(self, origin: griffe.Module, name: str) -> bool:
        """Whether `from origin import *` may bind `name`: by `__all__` as written when it is
        literal and no function changes it; else by `__all__` as the module's top level
        builds it (`__all__ += other.__all__`, `extend_all(module)`, `__all__.append(key)` in
        a loop over a dict some keys are known to be out of: numpy's numerictypes)."""
        static = self._all_is_static(origin)
        exports = origin.exports
        if exports is None or (static and all(isinstance(e, str) for e in exports)):
            return _star_exports(origin, name, static)
        try:
            built = self._evaluator().namespace(origin.path)
        except Stop:
            return True
        value = built.values.get("__all__") if built is not None else None
        return _may_list(value, name)

    def _star_sources(
        self, module: griffe.Module, name: str, depth: int
    ) -> tuple[Any, Unknown | None]:
        undecided: Unknown | None = None
        for member in reversed(list(module.members.values())):
            source = getattr(member, "wildcard", None)
            if not source:
                continue
            if not self.owns(source):
                if getattr(member, "runtime", True):  # not under `if TYPE_CHECKING:`
                    undecided = undecided or Unknown(f"{module.path} re-exports * from {source}")
                continue
            if (source, name) in self._star_path:
                self._cuts += 1
                continue
            try:
                origin = self._module(source)
                if origin is None:
                    # the release has no such module (nor an extension, nor a folder): a
                    # star import of it binds nothing where it runs (a stale TYPE_CHECKING
                    # mirror, a try/except ImportError), and fails the module where it does
                    continue
                if not self._star_exports(origin, name):
                    continue  # `import *` takes __all__ (or the public names), not this one
                self._star_path.add((source, name))
                try:
                    return self._find(f"{source}.{name}", depth + 1), None
                finally:
                    self._star_path.discard((source, name))
            except _Missing:
                continue
            except Unknown as why:
                undecided = undecided or why
        return None, undecided

    def _class_member(
        self,
        cls: griffe.Class,
        name: str,
        path: str,
        depth: int,
        seen: set[str],
        *,
        on_class: bool = False,
    ) -> Any:
        """`name` through the class and its bases (the MRO). A metaclass is consulted by
        the caller for an attribute of the class itself (never of an instance)."""
        if cls.path in seen:
            raise Unknown(f"cyclic bases at {cls.path}")
        seen.add(cls.path)
        member = cls.members.get(name)
        if member is not None:
            return self._follow(member, depth)
        if cls.overloads.get(name):  # a stub's @overload set: griffe keeps it aside
            return _Overloads(f"{cls.path}.{name}")
        unlisted: Unlisted | None = None  # a compiled base's stub does not list it: go on
        for base in self._bases(cls, depth):
            if base is None:
                raise Unknown(f"{cls.path} has a base that cannot be resolved statically")
            try:
                return self._class_member(base, name, path, depth, seen, on_class=on_class)
            except _Missing:
                continue
            except Unlisted as gap:
                unlisted = unlisted or gap
        if name.startswith("__") and name.endswith("__"):
            raise Unknown(f"{name} may come from object or a metaclass")
        if name in ENUM_API and self._is_enum(cls):
            raise Unknown(f"{name} comes with Enum")
        if on_class and name in TYPE_API:
            raise Unknown(f"{name} comes with type")
        if self._opaque_decorators(cls) or self._subclass_hook(cls, name):
            raise Unknown(f"{cls.path} has decorators or __init_subclass__ that may add {name}")
        if classes.metaclass_expr(cls) is not None and not on_class:
            self._metaclass(cls, depth)  # one that cannot be followed may add anything
        if _from_stub(cls):  # a compiled class: its stub may leave out what the type has
            raise Unlisted(path, f"{cls.path} is compiled; its stub may not list {name}")
        if self._installed(cls, name):
            return _Dynamic(path, None, None)
        if unlisted is not None:
            raise unlisted
        raise _Missing(path, module=False)

    def _installed(self, cls: griffe.Class, name: str) -> bool:
        """Whether the top level of the class's module puts `name` on the class at import time
        (`setattr(Cls, name, ...)` in a loop over literal names or a dict's keys, `Cls.name =
        ...`, directly or in a function it hands the class to, or a classmethod it calls:
        pandas' `ops.add_flex_arithmetic_methods(Series)`); Unknown when it may put names
        there that are not known (the class handed to code that cannot be followed)."""
        module = cls.module.path if isinstance(cls.module, griffe.Module) else None
        if module is None or not self._mentions_after(module, cls.name):
            return False
        evaluator = self._evaluator()
        try:
            evaluator.namespace(module)
        except (Stop, RecursionError):
            raise Unknown(f"{module}'s top level, which uses {cls.name}, cannot be read") from None
        if cls.path in evaluator.class_unknown:
            raise Unknown(f"{cls.path} gets attributes at import time that are not known")
        return name in evaluator.class_names.get(cls.path, ())

    def _mentions_after(self, module: str, name: str) -> bool:
        """Whether a top-level statement of `module` other than the definition of class
        `name` names it (cheap: the module's AST, parsed once)."""
        key = (module, name)
        if key not in self._mentions:
            loaded = self._evaluator().host.module_ast(module)
            body = loaded[0].body if loaded is not None else []
            self._mentions[key] = any(
                isinstance(n, ast.Name) and n.id == name
                for statement in body
                if not (isinstance(statement, ast.ClassDef) and statement.name == name)
                for n in ast.walk(statement)
            )
        else:
            self._evaluator().host.module_ast(module)  # read again: the memo records it
        return self._mentions[key]

    def _metaclass_member(self, cls: griffe.Class, name: str, path: str, depth: int) -> Any:
        """An attribute of a class that its metaclass defines (`Cls.X` where the metaclass
        has X or a property X); _Missing when neither the class nor its metaclass has it."""
        for klass in self._mro(cls, depth):
            if klass is None:
                raise Unknown(f"{cls.path} has a base that cannot be resolved statically")
            meta = self._metaclass(klass, depth)
            if meta is None:
                continue
            try:
                return self._class_member(meta, name, path, depth, seen=set())
            except _Missing:
                continue
        raise _Missing(path, module=False)

    def _metaclass(self, cls: griffe.Class, depth: int) -> griffe.Class | None:
        """The provider metaclass of `cls` (None: none, or `type`); Unknown for one that may
        add attributes itself (its own __new__, __init__, __getattr__), or is not readable."""
        keyword = classes.metaclass_expr(cls)
        if keyword is None:
            return None
        meta_path = exprs.expr_path(keyword)
        if meta_path in classes.NEUTRAL_METACLASSES or meta_path == "type":
            return None
        meta = self._provider_class(meta_path, depth)
        if meta is None:
            raise Unknown(f"{cls.path} has a metaclass that cannot be read ({meta_path})")
        for klass in self._mro(meta, depth):
            if klass is None or any(
                n in klass.members for n in ("__new__", "__init__", *DYNAMIC_ATTRIBUTES)
            ):
                raise Unknown(f"{cls.path}'s metaclass {meta_path} may add attributes")
        return meta

    def _subclass_hook(self, cls: griffe.Class, name: str) -> bool:
        """Whether an __init_subclass__ of the MRO may set attribute `name` (hooks.py)."""
        for klass in self._mro(cls, 0):
            if klass is None:
                return True
            hook = klass.members.get("__init_subclass__")
            if hook is None or hook.is_alias:
                continue
            owner = klass

            def method_of(
                method: str, owner: griffe.Class = owner
            ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
                member = owner.members.get(method)
                return _function_ast(member) if member is not None and not member.is_alias else None

            if hooks.hook_adds(_function_ast(hook), method_of).may_add(name):
                return True
        return False

    def _opaque_decorators(self, cls: griffe.Class) -> bool:
        """Decorators that may add public attributes (class makers add only dunders)."""
        for decorator in cls.decorators:
            if classes.is_add_metaclass(decorator):
                continue  # the metaclass it sets is read like `metaclass=`
            path = functions.decorator_path(decorator)
            if classes.known_maker(path, decorator.value) is None and not isinstance(
                self.own_decorator(path), Maker
            ):
                return self.own_decorator(path) != "transparent"
        return False

    def _instance_member(self, cls: griffe.Class, name: str, path: str, depth: int) -> Any:
        try:
            member = self._class_member(cls, name, path, depth, seen=set())
        except _Missing:
            if self._assigned_anywhere(cls, name, depth):
                raise Unknown(f"{path} is assigned outside __init__") from None
            keys = self._data_keys(cls, depth)
            if keys is not None:  # gone unless the object holds a key of that name
                note = f"unless it holds a data key named {name!r}: {keys} serves data keys"
                raise Unlisted(path, note) from None
            raise
        if isinstance(member, griffe.Function) and not functions.is_property(member):
            return _Bound(member)
        return member

    def _assigned_anywhere(self, cls: griffe.Class, name: str, depth: int) -> bool:
        """`self.name = ...` or `setattr(self, ...)` of that name (or of a name not spelled)
        in any method, or dynamic attributes, in the class or its bases."""
        if os.environ.get("DRIFT_AUDIT_NO_CLASS_SOURCES"):
            return self._assigned_anywhere_read_each_time(cls, name, depth)
        literals = self._literals_of(cls, depth)
        for klass in self._mro(cls, depth):
            if klass is None or self._dynamic_attributes(klass):
                return True
            if self._class_source(klass).assigns(name, literals):
                return True
        return False

    def _literals_of(self, cls: griffe.Class, depth: int) -> hooks.Literals:
        """For hooks.Adds.may_add: the strings a class attribute of `cls` lists, or that a
        method of it may return by its `Literal[...]` annotation; None when not known."""

        def literals(kind: str, name: str) -> set[str] | None:
            try:
                member = self._class_member(cls, name, f"{cls.path}.{name}", depth, seen=set())
            except (_Missing, Unknown, griffe.AliasResolutionError, griffe.CyclicAliasError):
                return None
            if kind == "attribute" and isinstance(member, griffe.Attribute):
                return _literal_strings(member.value)
            if kind == "method" and isinstance(member, griffe.Function):
                return _literal_annotation(member.returns)
            return None

        return literals

    def _dynamic_attributes(self, klass: griffe.Class) -> bool:
        """A `__getattribute__`, or a `__getattr__` that may serve more than data keys."""
        if "__getattribute__" in klass.members:
            return True
        return "__getattr__" in klass.members and not self._serves_data_keys(klass)

    def _serves_data_keys(self, klass: griffe.Class) -> bool:
        """The class's own `__getattr__` serves only data keys (hooks.serves_data_keys)."""
        member = klass.members.get("__getattr__")
        if not isinstance(member, griffe.Function) or member.decorators:
            return False
        return hooks.serves_data_keys(_function_ast(member))

    def _data_keys(self, cls: griffe.Class, depth: int) -> str | None:
        """The `__getattr__` Python calls for an instance of `cls`, when it serves only data
        keys: its path (None: there is none)."""
        for klass in self._mro(cls, depth):
            if klass is not None and "__getattr__" in klass.members:
                return f"{klass.path}.__getattr__" if self._serves_data_keys(klass) else None
        return None

    def _class_source(self, klass: griffe.Class) -> _ClassSource:
        """What one class's source assigns to `self`, read once per class (torch: ~1,300
        lookups read nn.Module's 2,700 lines, each one parsing them for its `setattr`s)."""
        found = self._class_sources.get(id(klass))
        if found is None or found.klass is not klass:
            found = self._class_sources[id(klass)] = _ClassSource(klass, _source(klass))
        return found

    def _assigned_anywhere_read_each_time(self, cls: griffe.Class, name: str, depth: int) -> bool:
        """_assigned_anywhere() as it was: each class's source read, searched and parsed
        again for every name (DRIFT_AUDIT_NO_CLASS_SOURCES=1)."""
        stored = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)")
        for klass in self._mro(cls, depth):
            if klass is None or self._dynamic_attributes(klass):
                return True
            source = _source(klass)
            if _DICT_WRITE.search(source):
                return True
            if stored.search(source):
                return True
            if "setattr(" in source and hooks.self_setattrs(source).may_add(
                name, self._literals_of(cls, depth)
            ):
                return True
        return False

    def _mro(self, cls: griffe.Class, depth: int) -> list[griffe.Class | None]:
        out: list[griffe.Class | None] = [cls]
        for base in self._bases(cls, depth):
            out += [None] if base is None else self._mro(base, depth + 1)
        return out

    def _call_result(self, obj: Any, depth: int) -> Any:
        """What calling `obj` gives: an instance of a class, or a function's return type."""
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                raise Unknown(
                    f"{obj.path} is served at run time; calling it gives what is not known"
                )
            return self._call_result(obj.obj, depth)
        if isinstance(obj, griffe.Class):
            return _Instance(obj)
        if isinstance(obj, _Overloads):
            return self._overloaded_result(self._overload_set(obj.path), obj.path, depth)
        if isinstance(obj, (griffe.Function, _Bound)):
            function = obj.function if isinstance(obj, _Bound) else obj
            if function.overloads:
                return self._overloaded_result(function.overloads, function.path, depth)
            if function.returns is None:
                made = self._made_by(function, depth)
                if made is not None:
                    return _Instance(made)
            return self._type_of(function.returns, function, depth)
        raise Unknown("the result of calling this object is not tracked")

    def _made_by(self, function: griffe.Function, depth: int) -> griffe.Class | None:
        """The provider class an unannotated function's every return makes (returns.py)."""
        node = _function_ast(function)
        spelled = returns.made_by(node) if node is not None else None
        if spelled is None or not isinstance(function.module, griffe.Module):
            return None
        return self._provider_class(_canonical(function.module, spelled), depth)

    def _overload_set(self, path: str) -> list[Any]:
        owner, _, name = path.rpartition(".")
        try:
            parent = self._find(owner, 0)
        except (_Missing, Unknown):
            return []
        return list(getattr(parent, "overloads", {}).get(name) or [])

    def _overloaded_result(self, variants: list[Any], path: str, depth: int) -> Any:
        """What calling an @overload set gives: the class every variant returns, when they all
        return the same one (whichever variant a call selects); else unknown. Choosing the
        variant by the call's arguments needs the call, which a dotted path does not carry."""
        found: list[Any] = []
        for variant in variants:
            try:
                found.append(self._type_of(variant.returns, variant, depth))
            except (_Missing, Unknown):
                raise Unknown(f"{path}: an @overload variant returns what is not known") from None
        classes_ = {id(f.cls) for f in found if isinstance(f, _Instance)}
        if not found or len(classes_) != 1 or not all(isinstance(f, _Instance) for f in found):
            raise Unknown(f"{path}: its @overload variants return different things")
        return found[0]

    def _annotated(self, attr: griffe.Attribute, depth: int) -> Any:
        return self._type_of(attr.annotation, attr, depth)

    def _type_of(self, annotation: Any, owner: Any, depth: int) -> Any:
        if exprs.element_annotation(annotation, iterate=True) is not None:
            return _Typed(annotation)  # a container: its items may be followed
        path = exprs.annotation_class(annotation)
        if path is None or not self.owns(path):
            raise Unknown(f"the type of {getattr(owner, 'path', owner)} is not a provider class")
        found = self._find(path, depth + 1)
        if not isinstance(found, griffe.Class):
            raise Unknown(f"the type of {owner.path} is not a class")
        return _Instance(found)

    def _follow(self, member: Any, depth: int) -> Any:
        if member.is_alias:
            target = member.target_path
            if not self.owns(target):
                raise Unknown(f"re-exported from outside the provider: {target}")
            return self._find(target, depth + 1)
        named = _named_by(member)
        if named is not None and self.owns(named):  # `ib = attr = attrib`: the same object
            return self._find(named, depth + 1)
        return member

    def _is_enum(self, cls: griffe.Class) -> bool:
        return any(exprs.expr_path(b) in PLAIN_ENUMS for b in cls.bases) or any(
            b is not None and self._is_enum(b) for b in self._bases(cls, 0)
        )

    def _bases(self, cls: griffe.Class, depth: int) -> list[griffe.Class | None]:
        """The provider classes among `cls`'s bases; None for one that cannot be resolved.

        A plain Enum base adds no members of its own beyond ENUM_API: its members are the
        class-body assignments, so a name missing from them is really missing.
        """
        out: list[griffe.Class | None] = []
        for base in cls.bases:
            path = exprs.expr_path(base)
            if path in classes.NEUTRAL_BASES or path in PLAIN_ENUMS:
                continue
            out.append(self._provider_class(path, depth))
        return out

    def _provider_class(self, path: str | None, depth: int) -> griffe.Class | None:
        if path is None or not self.owns(path):
            return None
        try:
            found = self._find(path, depth + 1)
        except (_Missing, Unknown):
            return None
        return found if isinstance(found, griffe.Class) else None

    # ------------------------------------------------------------------ symbols

    def _symbol(self, obj: Any) -> Symbol:
        if isinstance(obj, _Overloads):
            variants = f"{obj.path} is an @overload set in a stub; a call must fit one variant"
            return Symbol(obj.path, SymbolKind.FUNCTION, None, variants)
        if isinstance(obj, _Dynamic):
            if obj.obj is None:
                reason = f"{obj.path} is served at run time by its module; its signature is unknown"
                return Symbol(obj.path, SymbolKind.ATTRIBUTE, None, reason, obj.deprecated)
            inner = self._symbol(obj.obj)  # named as the consumer spells it, not where it lives
            return replace(inner, path=obj.path, deprecated=inner.deprecated or obj.deprecated)
        deprecated = functions.deprecation(obj.function if isinstance(obj, _Bound) else obj)
        if isinstance(obj, griffe.Module):
            return Symbol(obj.path, SymbolKind.MODULE, deprecated=deprecated)
        if isinstance(obj, griffe.Class):
            signature, why = self._constructor(obj)
            init = obj.members.get("__init__")
            renamed, warned = self._init_renames(init) if signature is not None else ((), ())
            params = (*functions.deprecated_parameters(init), *warned)
            params += functions.docstring_notes(obj).parameters
            onward = self._class_forward(obj) if signature is not None else NO_FORWARD
            return Symbol(
                obj.path, SymbolKind.CLASS, signature, why, deprecated,
                tuple(dict.fromkeys(params)), renamed,
                forwards=onward[0], forward_unless=onward[1], forward_taken=onward[2],
                forward_added=onward[3], compiled=_from_stub(obj),
            )  # fmt: skip
        if isinstance(obj, (griffe.Function, _Bound)):
            return self._function_symbol(obj, deprecated)
        if isinstance(obj, _Instance):
            return Symbol(obj.cls.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)
        return Symbol(obj.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)

    def _function_symbol(self, obj: Any, deprecated: str | None) -> Symbol:
        bound = isinstance(obj, _Bound)
        function = obj.function if bound else obj
        if functions.is_property(function):
            return Symbol(function.path, SymbolKind.ATTRIBUTE, deprecated=deprecated)
        found = functions.decorated(function, bound=bound, provider_decorator=self._keeps_signature)
        params = tuple(dict.fromkeys((*functions.deprecated_parameters(function), *found.warned)))
        if found.positional_limit is not None and deprecated is None:
            deprecated = None  # positional use warns only when it happens (bind.py says so)
        onward = self._forward(function) if found.signature is not None else NO_FORWARD
        renamed = tuple(dict.fromkeys((*found.renamed, *functions.deprecated_renames(function))))
        return Symbol(
            function.path, SymbolKind.FUNCTION, found.signature, found.why, deprecated, params,
            renamed, found.positional_limit, self._reconstructs(function), *onward,
            compiled=_from_stub(function),
        )  # fmt: skip

    def _init_renames(self, init: Any) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """(old, new) keyword names the class's own `__init__`'s decorators still accept, and
        the ones they warn about (`@deprecate_kwarg("tokenizer", new_name="processing_class")`)."""
        if not isinstance(init, griffe.Function) or not init.decorators:
            return (), ()
        found = functions.decorated(init, bound=True, provider_decorator=self._keeps_signature)
        return found.renamed, found.warned

    def _forward(self, function: griffe.Function) -> Forwarded:
        """Where the function's `**kwargs` go on to, as a provider path (forwards.py)."""
        if not any(p.kind is griffe.ParameterKind.var_keyword for p in function.parameters):
            return NO_FORWARD
        node = _function_ast(function)
        found = forwards.forward_of(node) if node is not None else None
        if found is None:
            return NO_FORWARD
        if found.callee == "super":
            owner = function.parent
            onward = self._next_init(owner) if isinstance(owner, griffe.Class) else None
            return (onward.path, None, found.taken, found.added) if onward else NO_FORWARD
        path = _canonical(function.module, found.callee)
        return (path, found.unless, found.taken, found.added) if self.owns(path) else NO_FORWARD

    def _next_init(self, owner: griffe.Class) -> griffe.Class | None:
        """The class whose `__init__` a `super().__init__(...)` in `owner` runs: the next one
        after it that defines one (Django's `RelatedField(FieldCacheMixin, Field)`: the
        mixin has none, so it is Field's); None when that is not known (a base not read) or
        none does (object's, which the provider does not describe)."""
        for klass in self._mro(owner, 0)[1:]:
            if klass is None:
                return None
            if "__init__" in klass.members:
                return klass
        return None

    def _class_forward(self, cls: griffe.Class) -> Forwarded:
        """The forward of the `__init__` that makes the class's constructor."""
        for klass in self._mro(cls, 0):
            if klass is None:
                return NO_FORWARD
            init = klass.members.get("__init__")
            if init is not None:
                return self._forward(init) if isinstance(init, griffe.Function) else NO_FORWARD
        return NO_FORWARD

    def _reconstructs(self, function: griffe.Function) -> bool:
        """An `__init__` whose class (or a provider base) makes new instances of whatever
        class an object is (`type(self)(...)`, `self.__class__(...)`, `cls(...)`): then a
        subclass's `__init__` is called by the provider itself."""
        owner = function.parent
        if function.name != "__init__" or not isinstance(owner, griffe.Class):
            return False
        return any(
            klass is None or _RECONSTRUCT.search(_source(klass)) is not None
            for klass in self._mro(owner, 0)
        )

    def _constructor(self, cls: griffe.Class) -> tuple[Signature | None, str | None]:
        """The parameters `cls(...)` accepts, when they can be known statically."""
        try:
            return classes.constructor(cls, _Context(self)), None
        except Unknown as why:
            return None, str(why)
        except (_Missing, griffe.AliasResolutionError, griffe.CyclicAliasError) as error:
            return None, f"{cls.path}: {error}"

    def decorator_effect(self, decorator: Any) -> wrappers.Effect | None:
        """What one of the provider's own decorators does to a function, read from its
        source (wrappers.py); None when the decorator is not the provider's."""
        path = functions.decorator_path(decorator)
        if not self.owns(path):
            return None
        key = f"effect:{decorator.value}@{path}"
        if key not in self._decorators:
            self._decorators[key] = self._tracked(lambda: self._effect(decorator, path))
        result, modules = self._decorators[key]
        self._merge(modules)
        return result  # type: ignore[return-value]

    def _effect(self, decorator: Any, path: str) -> wrappers.Effect:
        call = _call_of(str(decorator.value))
        try:
            found = self._find(path, 0)
        except (_Missing, Unknown) as error:
            return wrappers.unknown(f"{path}: {error}")
        args: list[Any] = list(call[0]) if call else []
        kwargs: dict[str, Any] = dict(call[1]) if call else {}
        if isinstance(found, griffe.Attribute):  # `traced = functools.partial(maybe, ...)`
            partial = _partial_of(found, lambda name: _canonical(found.module, name))
            if partial is None:
                return wrappers.unknown(f"{path} is not a function")
            target, bound_args, bound_kwargs = partial
            try:
                found = self._find(target, 0)
            except (_Missing, Unknown) as error:
                return wrappers.unknown(f"{target}: {error}")
            args, kwargs = [*bound_args, *args], {**bound_kwargs, **kwargs}
            call = call or ((), {})
        return self._effect_of(found, call is not None, args, kwargs)

    def _effect_of(
        self, found: Any, called: bool, args: list[Any], kwargs: dict[str, Any]
    ) -> wrappers.Effect:
        helper = self._helper_reader(found)
        if isinstance(found, griffe.Class):
            method = found.members.get("__call__")
            node = _function_ast(method) if isinstance(method, griffe.Function) else None
            if not called or node is None:
                return wrappers.unknown(f"{found.path} is a class used as a decorator")
            return wrappers.decorator_effect(node, skip=1, helper=helper)
        node = _function_ast(found) if isinstance(found, griffe.Function) else None
        if node is None:
            return wrappers.unknown(f"{getattr(found, 'path', found)} is not a plain function")
        if not called:
            return wrappers.decorator_effect(node, helper=helper)
        inner = wrappers.factory_decorator(node)
        if inner is None:
            return wrappers.unknown(f"{found.path} does not return a decorator it defines")
        closure: dict[str, Any] = {}
        dynamic.bind_arguments(node.args, args, kwargs, closure)
        return wrappers.decorator_effect(inner, closure, helper=helper)

    def _helper_reader(self, found: Any) -> Any:
        """For wrappers.py: a provider function by the name the decorator's module calls it."""
        module = getattr(found, "module", None)

        def read(name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
            if module is None:
                return None
            path = _canonical(module, name)
            if not self.owns(path):
                return None
            try:
                function = self._find(path, 0)
            except (_Missing, Unknown):
                return None
            return _function_ast(function) if isinstance(function, griffe.Function) else None

        return read

    def _keeps_signature(self, decorator: Any) -> wrappers.Effect | None:
        """For classes.py: the provider's decorator keeps a method's signature as it is."""
        effect = self.decorator_effect(decorator)
        if effect is not None and effect.kind != "unknown":
            return effect
        if self.own_decorator(functions.decorator_path(decorator)) == "transparent":
            return wrappers.PRESERVE
        return effect

    def own_decorator(self, path: str) -> Maker | str | None:
        """What one of the provider's own decorators (or metaclasses) does; None: unknown."""
        if path not in self._decorators:
            self._decorators[path] = self._tracked(lambda: self._classify(path))
        result, modules = self._decorators[path]
        self._merge(modules)
        return result

    def _classify(self, path: str) -> Maker | str | None:
        if not self.owns(path):
            return None
        try:
            found = self._find(path, 0)
        except (_Missing, Unknown):
            return None
        if isinstance(found, griffe.Class):  # a metaclass or decorator class
            marked = any(
                functions.decorator_path(d) in classes.DATACLASS_TRANSFORM for d in found.decorators
            )
            return Maker("transform", extra="allow") if marked else None
        if not isinstance(found, griffe.Function):
            return None
        module = found.module
        return classes.classify_decorator(found, _source(found), lambda n: _canonical(module, n))


class _Host:
    """What dynamic.Evaluator asks of a release, answered through one API (so every module it
    reads is tracked for the memo like any other)."""

    def __init__(self, api: ProviderAPI) -> None:
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


class _Context:
    """The lookups classes.constructor needs, bound to one API."""

    def __init__(self, api: ProviderAPI) -> None:
        self.api = api

    def provider_bases(self, cls: griffe.Class) -> list[griffe.Class | None]:
        """Provider bases; family roots (pydantic, msgspec, ...) are left to base_paths."""
        out = []
        for base in cls.bases:
            path = exprs.expr_path(base)
            if path in classes.NEUTRAL_BASES or path in classes.FAMILY_ROOTS:
                continue
            out.append(self.api._provider_class(path, 0))
        return out

    def base_paths(self, cls: griffe.Class) -> list[str | None]:
        return [exprs.expr_path(b) for b in cls.bases]

    def own_decorator(self, path: str) -> Maker | str | None:
        return self.api.own_decorator(path)

    def init_signature(self, function: Any) -> Signature:
        if not isinstance(function, griffe.Function):
            raise Unknown("__init__ is not a plain function")
        signature, why = functions.signature_of(
            function, bound=True, provider_decorator=self.api._keeps_signature
        )  # a method's decorators, as for any function
        if signature is None:
            raise Unknown(why or "unknown __init__")
        return signature

    def follow(self, member: Any) -> Any:
        return self.api._follow(member, 0)

    def constant_text(self, expr: Any) -> str:
        """The source text of the provider constant an expression names, or ""."""
        path = exprs.expr_path(expr)
        if path is None or not self.api.owns(path):
            return ""
        try:
            found = self.api._find(path, 0)
        except (_Missing, Unknown):
            return ""
        value = getattr(found, "value", None)
        return "" if value is None else str(value)


# ---------------------------------------------------------------------- helpers (pure)


def _from_stub(obj: griffe.Object) -> bool:
    """Whether a module or class is known only by a `.pyi` stub: a module with no Python
    source (a compiled one: candidates() read a stub only then). What a stub leaves out
    may still be there at run time (torch's `_C`: private names, aliases the C argument
    parser takes), so it is unknown, never missing."""
    return functions.from_stub(obj)


def _canonical(module: griffe.Module, name: str) -> str:
    """A dotted name as written in `module`, made canonical through its imports."""
    head, _, rest = name.partition(".")
    member = module.members.get(head)
    if member is not None and member.is_alias:
        base = str(getattr(member, "target_path", head))
    elif member is not None:
        base = member.path
    else:
        base = head
    return f"{base}.{rest}" if rest else base


def _function_ast(function: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The AST of a provider function, from its source text."""
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(_source(function)))
    except (SyntaxError, ValueError, RecursionError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _call_of(text: str) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The literal arguments of a decorator written as a call (`@renamed(old="new")`);
    None when it is not a call. An argument that is not a literal is dynamic.UNKNOWN."""
    try:
        expr = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(expr, ast.Call):
        return None
    args = tuple(_literal(a) for a in expr.args)
    kwargs = {k.arg: _literal(k.value) for k in expr.keywords if k.arg}
    return args, kwargs


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return dynamic.UNKNOWN


def _partial_of(
    attribute: Any, canonical: Any
) -> tuple[str, tuple[Any, ...], dict[str, Any]] | None:
    """`name = functools.partial(f, *args, **kwargs)`: (f's path, args, kwargs)."""
    value = getattr(attribute, "value", None)
    call = _call_of(str(value)) if value is not None else None
    if call is None:
        return None
    try:
        expr = ast.parse(str(value), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    assert isinstance(expr, ast.Call)
    if canonical(exprs.unparse(expr.func)) not in ("functools.partial", "partial"):
        return None
    if not expr.args:
        return None
    target = canonical(ast.unparse(expr.args[0]))
    return target, call[0][1:], call[1]


def _definition_in(modules: Iterable[griffe.Module | None], name: str, dotted: str) -> str | None:
    """The first of the modules that defines `name` itself (not by an import), elsewhere."""
    for module in modules:
        member = module.members.get(name) if module is not None else None
        if member is not None and not member.is_alias and member.path != dotted:
            return str(member.path)
    return None


def _named_by(member: Any) -> str | None:
    """The path a module-level `name = other` binds `name` to (a bare name or attribute, no
    call, no annotation): Python binds the very object `other` is."""
    if not isinstance(member, griffe.Attribute) or member.annotation is not None:
        return None
    if not isinstance(member.parent, griffe.Module):
        return None
    value = member.value
    if not isinstance(value, (griffe.ExprName, griffe.ExprAttribute)):
        return None
    path = exprs.expr_path(value)
    return path if path and path != member.path else None


def _star_exports(module: griffe.Module, name: str, static: bool) -> bool:
    """Whether `from module import *` may bind `name`: it is in the module's `__all__` (when
    that is literals only, changed by nothing but module-level statements: `static`), or
    public when there is no `__all__`."""
    exports = module.exports
    if exports is None:
        return not name.startswith("_")
    if not static or any(not isinstance(e, str) for e in exports):
        return True  # `__all__ = [*other.__all__]`, `extend_all(umath)`: may include it
    return name in exports


def _star_binds(
    module: griffe.Module, name: str, declared: frozenset[str] | object | None, static: bool
) -> bool | None:
    """Whether `from module import *` binds `name` (None: cannot be known): it is in the
    module's `__all__`, or public when there is none. `__all__` is read from the source
    itself (`_declared_all`): griffe reads `[n for n in names]` as an empty list. Unlike
    `_star_exports` (a provider's own star import, where a doubt must never make a name
    missing), a doubt here is None: the consumer's name may or may not be the provider's."""
    if declared is _NO_ALL:
        return None if "__all__" in module.members else not name.startswith("_")
    if declared is None or not static:
        return None
    assert isinstance(declared, frozenset)
    return name in declared


_NO_ALL = object()  # the module has no `__all__`
_ALL_LIST = (ast.List, ast.Tuple)


def _declared_all(tree: ast.Module) -> frozenset[str] | object | None:
    """The names a module's `__all__` holds, when every mention of it is a top-level
    `__all__ = [...]`, `__all__ += [...]`, `__all__.extend([...])` or `__all__.append("x")`
    of string literals; None when it is built any other way; _NO_ALL when there is none."""
    names: set[str] = set()
    accepted: set[int] = set()
    for statement in tree.body:
        found = _all_statement(statement)
        if found is None:
            continue
        target, items, replaces = found
        if items is None:
            return None
        accepted.add(id(target))
        names = set(items) if replaces else names | set(items)
    mentions = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__all__"]
    if not mentions:
        return _NO_ALL
    if any(id(n) not in accepted for n in mentions):
        return None
    return frozenset(names)


def _all_statement(
    statement: ast.stmt,
) -> tuple[ast.Name, tuple[str, ...] | None, bool] | None:
    """(the `__all__` name, the strings it gets or None when not literal, whether it
    replaces) for a top-level statement that sets or extends `__all__`; None for others."""
    value: ast.expr | None = None
    target: ast.expr | None = None
    replaces = False
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        target, value, replaces = targets[0] if len(targets) == 1 else None, statement.value, True
    elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        target, value = statement.target, statement.value
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("extend", "append"):
            target = func.value
            value = call.args[0] if len(call.args) == 1 and not call.keywords else None
            if func.attr == "append" and value is not None:
                value = ast.List([value], ast.Load())
    if not (isinstance(target, ast.Name) and target.id == "__all__"):
        return None
    return target, _strings_of(value), replaces


def _strings_of(value: ast.expr | None) -> tuple[str, ...] | None:
    if not isinstance(value, _ALL_LIST):
        return None
    items = [
        e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
    ]
    return tuple(items) if len(items) == len(value.elts) else None


def _may_list(value: Any, name: str) -> bool:
    """Whether an evaluated `__all__` may hold `name`: not when it is known whole (strings
    only) without it, or is Partial and certainly lacks it; else it may."""
    if isinstance(value, Partial):
        if name in value.absent:
            return False
        value = value.known
        partial = True
    else:
        partial = False
    if not isinstance(value, (list, tuple, set, frozenset)):
        return True
    if not all(isinstance(item, str) for item in value):
        return True
    return name in value or partial


def _all_is_static(tree: ast.Module) -> bool:
    """No function touches `__all__` (numpy's `extend_all(umath)` appends to it) and nothing
    writes the namespace through `globals()`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "globals":
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and any(
            isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(node)
        ):
            return False
    return True


# `self.<name> = ...` (or `self.<name>: T = ...`), tried at every `self.`: the name is the
# whole identifier after it (a shorter one is followed by a word character, never by the
# space, `:` or `=` the rest needs), so this finds every name the per-name search would.
_SELF_STORE = re.compile(r"\bself\.(?=(\w+)\s*(?::[^=\n]*)?=(?!=))")
_WORD = re.compile(r"\w+")
_DICT_WRITE = re.compile(
    r"(?:self\.__dict__|vars\(self\))"
    r"(?:\s*\[[^\n]*\]\s*=(?!=)|\.(?:update|setdefault|__setitem__)\(|\s*=(?!=)|\s*\|=)"
)  # the instance's namespace written as a dict


class _ClassSource:
    """One provider class's source as `_assigned_anywhere` reads it: the names it assigns
    to `self`, and what its `setattr(self, ...)` calls may set (parsed on first need)."""

    def __init__(self, klass: griffe.Class, source: str) -> None:
        self.klass = klass  # kept alive: it is found again by its id
        self.source = source
        self.stored = frozenset(m.group(1) for m in _SELF_STORE.finditer(source))
        self._setattrs: hooks.Adds | None = None

    def assigns(self, name: str, literals: hooks.Literals | None = None) -> bool:
        if _DICT_WRITE.search(self.source):  # `self.__dict__.update(kwargs)`: anything
            return True
        if _WORD.fullmatch(name) is None:  # not one word: searched for as written
            pattern = rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)"
            if re.search(pattern, self.source):
                return True
        elif name in self.stored:
            return True
        if "setattr(" not in self.source:
            return False
        if self._setattrs is None:
            self._setattrs = hooks.self_setattrs(self.source)
        return self._setattrs.may_add(name, literals)


def _literal_strings(value: Any) -> set[str] | None:
    """The strings a literal list, tuple or set holds (`_metadata = ["_name"]`)."""
    try:
        found = ast.literal_eval(str(value)) if value is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(found, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in found):
        return set(found)
    return None


def _literal_annotation(annotation: Any) -> set[str] | None:
    """The strings a `Literal["a", "b"]` annotation allows."""
    try:
        expr = ast.parse(str(annotation), mode="eval").body if annotation is not None else None
    except (SyntaxError, ValueError, RecursionError):
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a string annotation
        return _literal_annotation(expr.value)
    if not (isinstance(expr, ast.Subscript) and (dotted(expr.value) or "").endswith("Literal")):
        return None
    items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    if all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return {str(i.value) for i in items if isinstance(i, ast.Constant)}
    return None


def _source(obj: Any) -> str:
    try:
        return str(obj.source)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        griffe.BuiltinModuleError,
    ):
        return ""


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
