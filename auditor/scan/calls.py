# Maintainers: calls and attribute chains of the consumer.
#
# Owns: reading a call's shape (positional count, keyword names, `*`/`**`), recognising a
# pure dotted chain (`a.b.c`) and `super().m(...)`, and turning the walker's `Use` records
# into CALL and ATTRIBUTE model.Sites (the chain lands on a provider path) or consumer
# model.Edges (the chain lands on a consumer Definition).
# Takes: ast nodes (helpers, used by the walker) and, later, every file's facts plus the
# Resolver. Gives: sites and edges. A bare provider name that is read but not called gives
# no site: its import already has one. Anything dynamic (`getattr`, calls on objects we
# cannot name) gives nothing: we never guess.
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from auditor.model import Action, CallShape, Edge, Site
from auditor.scan.facts import UseKind

if TYPE_CHECKING:
    from collections.abc import Iterator

    from auditor.scan.facts import FileFacts, Use
    from auditor.scan.resolve import Resolver
    from auditor.scan.scopes import Binding


def dotted_chain(node: ast.expr) -> tuple[str, ...] | None:
    """`a.b.c` -> ('a', 'b', 'c'); None when the chain does not start at a plain name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return tuple(parts)


def call_shape(node: ast.Call) -> CallShape:
    starred = [isinstance(arg, ast.Starred) for arg in node.args]
    return CallShape(
        positional=starred.count(False),
        keywords=tuple(kw.arg for kw in node.keywords if kw.arg is not None),
        star_args=any(starred),
        star_kwargs=any(kw.arg is None for kw in node.keywords),
    )


def super_call(func: ast.expr) -> tuple[str, ast.Call] | None:
    """For `super(...).meth`, the method name and the `super(...)` call."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return None
    inner = func.value
    if isinstance(inner.func, ast.Name) and inner.func.id == "super":
        return func.attr, inner
    return None


def use_results(files: list[FileFacts], resolver: Resolver) -> tuple[list[Site], list[Edge]]:
    """CALL/ATTRIBUTE sites and consumer edges for every recorded use."""
    sites: list[Site] = []
    edges: list[Edge] = []
    for facts in files:
        for use in facts.uses:
            binding = resolver.lookup(use.scope, use.root)
            if binding is None or not resolver.may_matter(binding):
                continue
            paths = resolver.expand(binding, use.attrs)
            site = _site(facts, use, paths, resolver, binding)
            if site is not None:
                sites.append(site)
            edges.extend(_edges(use, binding, paths, resolver))
    return sites, edges


def _site(
    facts: FileFacts, use: Use, paths: tuple[str, ...], resolver: Resolver, binding: Binding
) -> Site | None:
    if use.kind is UseKind.NAME:
        return None
    provider = [p for p in paths if resolver.is_provider(p)]
    if not provider:
        return None
    node = use.node
    call = call_shape(node) if isinstance(node, ast.Call) else None
    return Site(
        Action.CALL if call is not None else Action.ATTRIBUTE,
        provider[0],
        use.scope.owner,
        facts.positions.of(node),
        call,
        guarded=use.guarded or len(provider) < len(paths),
        alternatives=tuple(provider[1:]),
        via=next((p for p in binding.paths if resolver.is_provider(p)), None),
    )


def _edges(
    use: Use, binding: Binding, paths: tuple[str, ...], resolver: Resolver
) -> Iterator[Edge]:
    minimum = binding.paths[0].count(".") + 1 if binding.instance else 0
    for path in paths:
        if resolver.is_provider(path):
            continue
        callee = resolver.definition_for(path, minimum)
        if callee is not None:
            yield Edge(use.scope.owner, callee)
