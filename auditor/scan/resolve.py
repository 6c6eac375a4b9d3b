# Maintainers: what a name means, once every consumer file has been walked.
#
# Owns: the lookup of a name through Python's scopes (function -> enclosing functions ->
# module, class bodies skipped, `global`/`nonlocal` honoured), the cross-module resolution of
# consumer re-exports (`pkg.b.F`, where `pkg/b.py` did `from .a import F` and `pkg/a.py` did
# `from vllm.x import F`, becomes `vllm.x.F`; any order, any depth, cycles cut), consumer
# `from .m import *` (and a provider's `from m import *`, whose names are known only per
# release: stars.py), the consumer class hierarchy (bases, subclasses, inherited methods,
# the first provider base), which consumer Definition a dotted path lands on, and which
# scope holds a plain local variable.
# Takes: every file's facts, or (an edited scan, consumer.py) what `Known` says of them and
# a way to read a module's files in when a lookup first reaches it. Gives: answers to calls
# and classes; no sites of its own.
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.scan.imports import root_of
from auditor.scan.scopes import NOT_HERE, Binding, Scope, is_plain_variable, local_binding
from auditor.scan.stars import StarLookup

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from auditor.scan.facts import ClassFacts, FileFacts, Span


@dataclass(frozen=True, slots=True)
class ResolvedBase:
    """One base of a consumer class: a provider path or a consumer class path."""

    path: str
    provider: bool
    span: Span
    alternatives: tuple[str, ...] = ()
    uncertain: bool = False  # some candidates for the base are not the provider's
    via: str | None = None  # the provider path the base's root name is bound to


def _join(path: str, attrs: Iterable[str]) -> str:
    return ".".join((path, *attrs))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@dataclass(frozen=True, slots=True)
class Known:
    """What a Resolver is told of the whole consumer when it reads files only as they are
    needed (consumer.py's edited scan): every module, every definition's name, and the
    consumer subclasses of each consumer class (as subclass_index() gave them)."""

    modules: frozenset[str]
    definitions: frozenset[str]
    subclasses: dict[str, list[str]]
    need: Callable[[str], object]  # reads a module's files in (Resolver.add), once


class Resolver:
    """Name lookup and re-export resolution over the whole consumer."""

    def __init__(
        self, files: Sequence[FileFacts], providers: frozenset[str], known: Known | None = None
    ) -> None:
        self._providers = providers
        self._modules: dict[str, Scope] = {}
        self._classes: dict[str, ClassFacts] = {}
        self._class_order: dict[str, int] = {}  # a class path -> the index of its file
        self._methods: dict[str, set[str]] = {}
        self.definitions: set[str] = set()
        self._subclasses: dict[str, list[str]] | None = None
        self._need: Callable[[str], object] | None = None
        for index, facts in enumerate(files):
            self.add(facts, index)
        if known is not None:
            self.definitions.update(known.definitions)
            self._subclasses = known.subclasses
            self._need = known.need
        names = known.modules if known is not None else frozenset(self._modules)
        self._module_names = names
        self._roots = providers | {root_of(m) for m in names}
        self._paths: dict[str, tuple[str, ...]] = {}
        self._active: set[str] = set()
        self._bases: dict[str, tuple[ResolvedBase, ...]] = {}

    def add(self, facts: FileFacts, index: int) -> None:
        """One file's facts (the `index`-th file of the consumer): where two files define
        the same module or class path, the first file's counts, as Python would find it."""
        self._modules.setdefault(facts.module, facts.module_scope)
        self.definitions.update(d.name for d in facts.definitions)
        for cls in facts.classes:
            first = self._class_order.get(cls.qualname)
            if first is None or index < first:
                self._classes[cls.qualname] = cls
                self._class_order[cls.qualname] = index
                self._methods[cls.qualname] = {m.name for m in cls.methods}

    def _module(self, module: str) -> Scope | None:
        if self._need is not None and module in self._module_names:
            self._need(module)
        return self._modules.get(module)

    def _class(self, path: str) -> ClassFacts | None:
        self.need_prefixes(path)
        return self._classes.get(path)

    def need_prefixes(self, path: str) -> None:
        """Read in every module whose name `path` starts with, when files are read as they
        are needed: a class's or a function's path is its module's, then names in it."""
        if self._need is not None:
            parts = path.split(".")
            for i in range(1, len(parts) + 1):
                if (module := ".".join(parts[:i])) in self._module_names:
                    self._need(module)

    def subclass_index(self) -> dict[str, list[str]]:
        """Each consumer class's direct consumer subclasses (what Known.subclasses takes)."""
        if self._subclasses is None:
            self._subclasses = {}
            for path in sorted(self._classes):
                for base in self.bases(path):
                    if not base.provider:
                        self._subclasses.setdefault(base.path, []).append(path)
        return self._subclasses

    # ------------------------------------------------------------------ names

    def is_provider(self, path: str) -> bool:
        return root_of(path) in self._providers

    def consumer_roots(self) -> frozenset[str]:
        """The consumer's own top-level modules (scan/loose.py)."""
        return frozenset(self._roots - self._providers)

    def may_matter(self, binding: Binding) -> bool:
        """Whether a binding can lead to the provider or the consumer (not `torch`...)."""
        return any(root_of(p) in self._roots for p in binding.paths)

    def is_module(self, path: str) -> bool:
        return path in self._module_names

    def lookup(self, scope: Scope, name: str) -> Binding | None:
        """What `name` read in `scope` refers to, or None when unknown or local."""
        current: Scope | None = scope
        while current is not None:
            if current.kind == "module":
                return self.module_binding(current, name, frozenset())
            if name in current.global_names:
                current = self._module_of(current)
                continue
            hidden = current.kind == "class" and current is not scope
            if not hidden and name not in current.nonlocal_names:
                found = local_binding(current, name)
                if found is not NOT_HERE:
                    return found if isinstance(found, Binding) else None
            current = current.parent
        return None

    def variable_scope(self, scope: Scope, name: str) -> Scope | None:
        """The scope where `name`, read in `scope`, is a plain variable (stores only)."""
        current: Scope | None = scope
        while current is not None:
            if current.kind == "module":
                return current if is_plain_variable(current, name) else None
            if name in current.global_names:
                current = self._module_of(current)
                continue
            hidden = current.kind == "class" and current is not scope
            visible = not hidden and name not in current.nonlocal_names
            if visible and local_binding(current, name) is not NOT_HERE:
                return current if is_plain_variable(current, name) else None
            current = current.parent
        return None

    def module_scope(self, module: str) -> Scope | None:
        return self._module(module)

    @staticmethod
    def _module_of(scope: Scope) -> Scope:
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def module_binding(self, scope: Scope, name: str, seen: frozenset[str]) -> Binding | None:
        """A module-level name, following consumer `from m import *` when not bound here,
        and a provider's `from m import *` (stars.py) where that may bind it."""
        found = local_binding(scope, name)
        bound_here = found is not NOT_HERE
        if bound_here and name not in scope.star_overwrites:
            return found if isinstance(found, Binding) else None  # after any star import
        if any(self.is_provider(m) for m in scope.star_modules):
            local = found.paths if isinstance(found, Binding) else None
            return self._through_stars(scope, name, local, seen, shadowed=bound_here)
        if bound_here:
            return found if isinstance(found, Binding) else None
        return self._from_consumer_stars(scope, name, seen)

    def _from_consumer_stars(self, scope: Scope, name: str, seen: frozenset[str]) -> Binding | None:
        if name.startswith("_"):
            return None
        for star in scope.star_modules:
            source = self._module(star)
            if star in seen or source is None:
                continue
            if self.module_binding(source, name, seen | {scope.module}) is not None:
                return Binding((f"{star}.{name}",))
        return None

    def _through_stars(
        self,
        scope: Scope,
        name: str,
        local: tuple[str, ...] | None,
        seen: frozenset[str],
        *,
        shadowed: bool,
    ) -> Binding | None:
        """A module that star-imports a provider module (whose exports are known only per
        release): the candidates `name` may stand for, in the order Python finds them."""
        star = StarLookup(
            providers=self._providers,
            binds=lambda module: self._consumer_binds(module, name, seen | {scope.module}),
        )
        paths = star.candidates(scope, name, local, shadowed=shadowed)
        return Binding(paths) if paths else None

    def _consumer_binds(self, module: str, name: str, seen: frozenset[str]) -> bool | None:
        """Whether consumer module `module` binds `name` at its top level; None when it is no
        consumer module (its names cannot be read)."""
        source = self._module(module)
        if source is None:
            return None
        if module in seen or name.startswith("_"):
            return False
        return self.module_binding(source, name, seen) is not None

    # ------------------------------------------------------------------ re-exports

    def resolve_path(self, path: str) -> tuple[str, ...]:
        """Follow consumer re-exports: the absolute paths `path` may stand for."""
        cached = self._paths.get(path)
        if cached is not None:
            return cached
        if path in self._active:
            return (path,)
        self._active.add(path)
        try:
            result = self._follow(path)
        finally:
            self._active.discard(path)
        self._paths[path] = result
        return result

    def _follow(self, path: str) -> tuple[str, ...]:
        parts = path.split(".")
        if parts[0] in self._providers:
            return (path,)
        for i in range(len(parts) - 1, 0, -1):
            scope = self._module(".".join(parts[:i]))
            if scope is not None:
                break
        else:
            return (path,)
        binding = self.module_binding(scope, parts[i], frozenset())
        if binding is None or binding.is_def:
            return (path,)
        rest = parts[i + 1 :]
        return _unique(r for p in binding.paths for r in self.resolve_path(_join(p, rest)))

    def expand(self, binding: Binding, attrs: tuple[str, ...]) -> tuple[str, ...]:
        """Every absolute path `root.attrs...` may stand for, re-exports followed."""
        return _unique(r for p in binding.paths for r in self.resolve_path(_join(p, attrs)))

    # ------------------------------------------------------------------ definitions

    def definition_for(self, path: str, minimum: int = 0) -> str | None:
        """The consumer Definition `path` lands on (longest prefix, inherited methods too).

        `minimum` is a number of leading parts the answer must be longer than (`self.x`
        must name more than the class itself).
        """
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            candidate = ".".join(parts[:i])
            if candidate not in self.definitions:
                continue
            if i < len(parts) and self._class(candidate) is not None:
                member = self.class_member(candidate, parts[i], frozenset())
                if member is not None:
                    return member
            return candidate if i > minimum else None
        return None

    def class_member(self, cls: str, name: str, seen: frozenset[str]) -> str | None:
        """Where a consumer class (or a consumer base of it) defines method `name`."""
        if self._class(cls) is not None and name in self._methods[cls]:
            return f"{cls}.{name}"
        for base in self.bases(cls):
            if not base.provider and base.path not in seen:
                found = self.class_member(base.path, name, seen | {cls})
                if found is not None:
                    return found
        return None

    def is_class(self, path: str) -> bool:
        return self._class(path) is not None

    def class_facts(self, path: str) -> ClassFacts | None:
        return self._class(path)

    def ancestors(self, cls: str) -> tuple[str, ...]:
        """`cls` and its consumer bases, depth first, left to right, each once."""
        out: dict[str, None] = {}
        stack = [cls]
        while stack:
            current = stack.pop()
            if current not in out:
                out[current] = None
                bases = [b.path for b in self.bases(current) if not b.provider]
                stack.extend(reversed(bases))
        return tuple(out)

    def subclasses(self, cls: str) -> tuple[str, ...]:
        """Every consumer class deriving from `cls`, directly or not, sorted."""
        index = self.subclass_index()
        out: dict[str, None] = {}
        stack = list(index.get(cls, ()))
        while stack:
            current = stack.pop()
            if current not in out and current != cls:
                out[current] = None
                stack.extend(index.get(current, ()))
        return tuple(sorted(out))

    def first_provider(self, cls: str, seen: frozenset[str] = frozenset()) -> str | None:
        """The first provider base of `cls`, else through its consumer bases, depth first."""
        bases = self.bases(cls)
        for base in bases:
            if base.provider:
                return base.path
        for base in bases:
            if base.path not in seen:
                found = self.first_provider(base.path, seen | {cls})
                if found is not None:
                    return found
        return None

    def bases(self, cls: str) -> tuple[ResolvedBase, ...]:
        """A consumer class's bases that are provider paths or consumer classes, in order."""
        cached = self._bases.get(cls)
        if cached is None:
            self._bases[cls] = ()  # a class deriving from itself ends here
            facts = self._class(cls)
            cached = self._compute_bases(facts) if facts is not None else ()
            self._bases[cls] = cached
        return cached

    def direct_bases(self, facts: ClassFacts) -> tuple[ResolvedBase, ...]:
        """The bases of this very class statement (a class may be defined twice)."""
        if self._class(facts.qualname) is facts:
            return self.bases(facts.qualname)
        return self._compute_bases(facts)

    def _compute_bases(self, facts: ClassFacts) -> tuple[ResolvedBase, ...]:
        out: list[ResolvedBase] = []
        for root, attrs, span in facts.bases:
            binding = self.lookup(facts.scope, root)
            if binding is None:
                continue
            paths = self.expand(binding, attrs)
            provider = [p for p in paths if self.is_provider(p)]
            if provider:
                uncertain = len(provider) < len(paths)
                via = next((p for p in binding.paths if self.is_provider(p)), None)
                alternatives = tuple(provider[1:])
                out.append(ResolvedBase(provider[0], True, span, alternatives, uncertain, via))
            elif consumer := [p for p in paths if self._class(p) is not None]:
                out.append(ResolvedBase(consumer[0], False, span))
        return tuple(out)
