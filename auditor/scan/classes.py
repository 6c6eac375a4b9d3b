# Maintainers: consumer classes that derive from provider classes.
#
# Owns: SUBCLASS sites (one per provider base), OVERRIDE sites (one per method of a class with
# a provider base, directly or through consumer bases; dunders skipped but `__init__` and
# `__call__`; each with the method's own model.Signature as a caller sees it, `self`/`cls`
# dropped, None when a decorator hides it or makes it a property), SUPER_CALL sites
# (`super().m(...)` that lands in a provider base), and the consumer edges classes imply
# (class -> consumer base, `super()` -> a consumer base's method).
# Takes: every file's facts, the Resolver and values.Values (decorator paths). Gives: sites
# and edges.
#
# `super()` follows the bases left to right, depth first: a consumer base that defines the
# method itself takes the call (an edge, no site); otherwise the first provider base does,
# as DESIGN asks (a base we cannot name is skipped, never guessed into).
from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.model import Action, Edge, Param, ParamKind, Signature, Site
from auditor.scan.values import RETURN_KEEPING

if TYPE_CHECKING:
    from auditor.scan.facts import (
        ClassFacts,
        Expr,
        FileFacts,
        FunctionFacts,
        Method,
        Parameter,
        SuperUse,
    )
    from auditor.scan.resolve import ResolvedBase, Resolver
    from auditor.scan.values import Values

_KEPT_DUNDERS = frozenset({"__init__", "__call__"})
_POSITIONAL = ParamKind.POSITIONAL_OR_KEYWORD
_RECEIVING = (ParamKind.POSITIONAL_ONLY, _POSITIONAL)  # a first parameter that is `self`
# Decorators that leave the call signature alone (RETURN_KEEPING keeps the return too).
SIGNATURE_KEEPING = RETURN_KEEPING | {
    "contextlib.contextmanager",
    "contextlib.asynccontextmanager",
    "torch.compiler.disable",
    "torch.jit.unused",
    "torch.jit.ignore",
}


def class_results(
    files: list[FileFacts], resolver: Resolver, values: Values
) -> tuple[list[Site], list[Edge]]:
    sites: list[Site] = []
    edges: list[Edge] = []
    for facts in files:
        for cls in facts.classes:
            bases = resolver.direct_bases(cls)
            sites.extend(_class_sites(facts, cls, bases, resolver, values))
            edges.extend(Edge(cls.qualname, b.path) for b in bases if not b.provider)
        for use in facts.supers:
            site, edge = _super(facts, use, resolver)
            sites.extend(site)
            edges.extend(edge)
    return sites, edges


def _class_sites(
    facts: FileFacts,
    cls: ClassFacts,
    bases: tuple[ResolvedBase, ...],
    resolver: Resolver,
    values: Values,
) -> list[Site]:
    out: list[Site] = []
    for base in bases:
        if base.provider:
            location = facts.positions.location(base.span)
            guarded = cls.guarded or base.uncertain
            site = Site(Action.SUBCLASS, base.path, cls.qualname, location, None, guarded)
            out.append(replace(site, alternatives=base.alternatives, via=base.via))
    provider = _first_provider(bases, cls.qualname, resolver)
    if provider is not None:
        overridable = (m for m in cls.methods if _overridable(m))
        out.extend(_override(facts, cls, m, provider, values) for m in overridable)
    return out


def _overridable(method: Method) -> bool:
    name = method.name
    is_dunder = name.startswith("__") and name.endswith("__")
    return not is_dunder or name in _KEPT_DUNDERS


def _override(
    facts: FileFacts, cls: ClassFacts, method: Method, provider: str, values: Values
) -> Site:
    function = method.function
    signature = None
    if function is not None:
        signature = override_signature(function, values.decorators(function))
    return Site(
        Action.OVERRIDE,
        f"{provider}.{method.name}",
        f"{cls.qualname}.{method.name}",
        facts.positions.location(method.span),
        guarded=cls.guarded or method.guarded,
        override=signature,
    )


def override_signature(function: FunctionFacts, decorators: tuple[str, ...]) -> Signature | None:
    """A method's signature as its callers see it; None behind an unknown decorator."""
    if not set(decorators) <= SIGNATURE_KEEPING:
        return None  # property, a decorator of the consumer's own, one we cannot name
    params = [_param(p) for p in function.params]
    receives = bool(function.params) and function.params[0].kind in _RECEIVING
    if receives and "staticmethod" not in decorators:
        params.pop(0)  # `self`, or `cls` of a classmethod
    return Signature(tuple(params), _text(function.returns))


def _param(param: Parameter) -> Param:
    return Param(param.name, param.kind, _text(param.default), _text(param.annotation))


def _text(expr: Expr | None) -> str | None:
    """The expression as ast.unparse() writes it (as the provider side writes its own)."""
    node = expr.node if expr is not None else None
    return ast.unparse(node) if node is not None else None


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
