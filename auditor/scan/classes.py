# Maintainers: consumer classes that derive from provider classes.
#
# Owns: SUBCLASS sites (one per provider base), OVERRIDE sites (one per method of a class with
# a provider base, directly or through consumer bases; dunders skipped but `__init__` and
# `__call__`), SUPER_CALL sites (`super().m(...)` that lands in a provider base), and the
# consumer edges classes imply (class -> consumer base, `super()` -> a consumer base's method).
# Takes: every file's facts and the Resolver. Gives: sites and edges.
#
# `super()` follows the bases left to right, depth first: a consumer base that defines the
# method itself takes the call (an edge, no site); otherwise the first provider base does,
# as DESIGN asks (a base we cannot name is skipped, never guessed into).
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.model import Action, Edge, Site

if TYPE_CHECKING:
    from auditor.scan.facts import ClassFacts, FileFacts, Method, SuperUse
    from auditor.scan.resolve import ResolvedBase, Resolver

_KEPT_DUNDERS = frozenset({"__init__", "__call__"})


def class_results(files: list[FileFacts], resolver: Resolver) -> tuple[list[Site], list[Edge]]:
    sites: list[Site] = []
    edges: list[Edge] = []
    for facts in files:
        for cls in facts.classes:
            bases = resolver.direct_bases(cls)
            sites.extend(_class_sites(facts, cls, bases, resolver))
            edges.extend(Edge(cls.qualname, b.path) for b in bases if not b.provider)
        for use in facts.supers:
            site, edge = _super(facts, use, resolver)
            sites.extend(site)
            edges.extend(edge)
    return sites, edges


def _class_sites(
    facts: FileFacts, cls: ClassFacts, bases: tuple[ResolvedBase, ...], resolver: Resolver
) -> list[Site]:
    out: list[Site] = []
    for base in bases:
        if base.provider:
            location = facts.positions.location(base.span)
            guarded = cls.guarded or base.uncertain
            site = Site(Action.SUBCLASS, base.path, cls.qualname, location, None, guarded)
            out.append(replace(site, alternatives=base.alternatives))
    provider = _first_provider(bases, cls.qualname, resolver)
    if provider is not None:
        out.extend(_override(facts, cls, m, provider) for m in cls.methods if _overridable(m))
    return out


def _overridable(method: Method) -> bool:
    name = method.name
    is_dunder = name.startswith("__") and name.endswith("__")
    return not is_dunder or name in _KEPT_DUNDERS


def _override(facts: FileFacts, cls: ClassFacts, method: Method, provider: str) -> Site:
    return Site(
        Action.OVERRIDE,
        f"{provider}.{method.name}",
        f"{cls.qualname}.{method.name}",
        facts.positions.location(method.span),
        guarded=cls.guarded or method.guarded,
    )


def _first_provider(bases: tuple[ResolvedBase, ...], cls: str, resolver: Resolver) -> str | None:
    """The first provider base among `bases`, else through the consumer bases, depth first."""
    for base in bases:
        if base.provider:
            return base.path
    for base in bases:
        found = resolver.first_provider(base.path, frozenset({cls}))
        if found is not None:
            return found
    return None


def super_target(resolver: Resolver, cls: str, method: str) -> tuple[str, bool] | None:
    """Where `super().method` goes from `cls`: (path, is_provider), or None if unknown."""
    for base in resolver.bases(cls):
        if base.provider:
            break
        owner = resolver.class_member(base.path, method, frozenset({cls}))
        if owner is not None:
            return owner, False
    provider = resolver.first_provider(cls)
    return (f"{provider}.{method}", True) if provider is not None else None


def _super(facts: FileFacts, use: SuperUse, resolver: Resolver) -> tuple[list[Site], list[Edge]]:
    cls = _super_class(use, resolver)
    target = super_target(resolver, cls, use.method) if cls is not None else None
    if target is None:
        return [], []
    path, is_provider = target
    if not is_provider:
        return [], [Edge(use.scope.owner, path)]
    location = facts.positions.location(use.span)
    site = Site(Action.SUPER_CALL, path, use.scope.owner, location, use.call, use.guarded)
    return [site], []


def _super_class(use: SuperUse, resolver: Resolver) -> str | None:
    if use.explicit is not None:
        binding = resolver.lookup(use.scope, use.explicit)
        if binding is not None and binding.is_def and resolver.is_class(binding.paths[0]):
            return binding.paths[0]
    return use.klass
