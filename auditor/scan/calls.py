# Maintainers: calls and attribute chains of the consumer.
#
# Owns: reading a call's shape (positional count, keyword names, `*`/`**`), recognising a
# pure dotted chain (`a.b.c`), a chain through calls (`a.b().c`) and `super().m(...)`, and
# turning the walker's `Use` records into CALL and ATTRIBUTE model.Sites (the chain lands on
# a provider path; an assigned chain is a `store` site) or consumer model.Edges (the chain
# lands on a consumer Definition). A use this cannot place (its root is a local, `self`, or
# the chain goes through a call) goes to instances.py.
# Takes: ast nodes (helpers, used by the walker) and, later, every file's facts plus the
# Resolver and a fallback (instances.Instances.use). Gives: sites and edges. A bare provider
# name that is read but not called gives no site: its import already has one. Anything
# dynamic (`getattr`, calls on objects we cannot name) gives nothing: we never guess.
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.model import Action, CallShape, Edge, Location, Site
from auditor.provider.paths import star_parts
from auditor.scan.constructors import provider_constructor
from auditor.scan.facts import CALLED, ITEM, UseKind
from auditor.scan.spreads import NOTHING, Spread, display_keys

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from auditor.scan.facts import FileFacts, Reference, Use
    from auditor.scan.resolve import Resolver
    from auditor.scan.scopes import Binding

    Fallback = Callable[[FileFacts, Use, Binding | None], tuple[Site | None, Edge | None]]
    Locate = Callable[[ast.AST], Location]  # a node's place in the file


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


@dataclass(frozen=True, slots=True)
class Chain:
    """`a.b(x).c`: root `a`, steps `('b', '()', 'c')`, inner call `a.b(x)` after `('b',)`."""

    root: str
    base: ast.Name | ast.NamedExpr  # `(a := value).b` starts at the name it binds
    steps: tuple[str, ...]
    calls: tuple[tuple[tuple[str, ...], ast.Call], ...]  # each call with the steps before it
    slices: tuple[ast.expr, ...] = ()  # the subscripts' keys, to be walked for their own uses


def call_chain(node: ast.expr, *, plain: bool = False) -> Chain | None:
    """The chain of attributes and calls `node` is, down to a name.

    Without `plain`, only chains that pass through a call or start at a walrus (a plain
    `a.b.c` is `dotted_chain`'s). `super().m` is never a chain: the walker handles it.
    """
    ops: list[ast.Attribute | ast.Call | ast.Subscript] = []
    current = node
    while isinstance(current, (ast.Attribute, ast.Call, ast.Subscript)):
        ops.append(current)
        current = current.func if isinstance(current, ast.Call) else current.value
    if isinstance(current, ast.Name):
        base: ast.Name | ast.NamedExpr = current
        root = current.id
    elif isinstance(current, ast.NamedExpr) and isinstance(current.target, ast.Name):
        base, root = current, current.target.id
    else:
        return None
    steps: list[str] = []
    calls: list[tuple[tuple[str, ...], ast.Call]] = []
    slices: list[ast.expr] = []
    for op in reversed(ops):
        if isinstance(op, ast.Attribute):
            steps.append(op.attr)
        elif isinstance(op, ast.Subscript):
            slices.append(op.slice)
            steps.append(ITEM)
        else:
            calls.append((tuple(steps), op))
            steps.append(CALLED)
    if isinstance(base, ast.Name) and not (calls or slices or plain):
        return None
    if root == "super" and steps[:1] == [CALLED]:
        return None
    return Chain(root, base, tuple(steps), tuple(calls), tuple(slices))


def reference(expr: ast.expr) -> Reference | None:
    """An expression as values.py reads it: a name or a chain (`(x := v)` is `v`); None
    when it is neither."""
    while isinstance(expr, ast.NamedExpr):
        expr = expr.value
    if isinstance(expr, ast.Name):
        return expr.id, ()
    chain = call_chain(expr, plain=True)
    return (chain.root, chain.steps) if chain is not None else None


def call_shape(node: ast.Call, spread: Spread = NOTHING, locate: Locate | None = None) -> CallShape:
    """What the call passes; `spread`: what its `**name` spreads carry (spreads.py). A dict
    display spread in place (`**{"k": 1}`, `**dict(k=1)`) passes its keys; `star_kwargs`
    stays (the keywords are a lower bound) only when some `**` has keys not all known.
    `locate` places each key a spread carries where it was written (`d["k"] = v`)."""
    starred = [isinstance(arg, ast.Starred) for arg in node.args]
    explicit = tuple(kw.arg for kw in node.keywords if kw.arg is not None)
    keys, whole = list(spread[0]), True
    for kw in node.keywords:
        if kw.arg is not None:
            continue
        shown = display_keys(kw.value)
        keys.extend(shown or ())
        whole = whole and (shown is not None or (isinstance(kw.value, ast.Name) and spread[1]))
    passed = tuple(dict.fromkeys(k for k in keys if k not in explicit))
    written = () if locate is None else tuple((k, locate(n)) for k, n in spread[2])
    return CallShape(
        positional=starred.count(False),
        keywords=(*explicit, *passed),
        star_args=any(starred),
        star_kwargs=not whole,
        written=written,
    )


def super_call(func: ast.expr) -> tuple[str, ast.Call] | None:
    """For `super(...).meth`, the method name and the `super(...)` call."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return None
    inner = func.value
    if isinstance(inner.func, ast.Name) and inner.func.id == "super":
        return func.attr, inner
    return None


def use_results(
    files: list[FileFacts], resolver: Resolver, fallback: Fallback
) -> tuple[list[Site], list[Edge]]:
    """CALL/ATTRIBUTE sites and consumer edges for every recorded use.

    `fallback` places the uses a provider name does not explain (instances.Instances.use).
    """
    sites: list[Site] = []
    edges: list[Edge] = []
    for facts in files:
        for use in facts.uses:
            binding = resolver.lookup(use.scope, use.root)
            site = None
            settled = use.kind is UseKind.NAME
            if binding is not None and not use.through_call and resolver.may_matter(binding):
                paths = resolver.expand(binding, use.attrs)
                site = _site(facts, use, paths, resolver, binding)
                edges.extend(_edges(use, binding, paths, resolver))
                settled = settled or any(p in resolver.definitions for p in paths)
            if site is None and not settled:  # not a provider name, not a consumer def
                site, edge = fallback(facts, use, binding)
                edges.extend((edge,) if edge is not None else ())
            if site is not None:
                sites.append(site)
    return sites, edges


def _site(
    facts: FileFacts, use: Use, paths: tuple[str, ...], resolver: Resolver, binding: Binding
) -> Site | None:
    if use.kind is UseKind.NAME:
        return None
    provider = [p for p in paths if resolver.is_provider(p)]
    if not provider:
        return _constructed(facts, use, paths, resolver)
    assert use.span is not None  # only a NAME has none
    call = use.call.shape if use.call is not None else None
    return Site(
        Action.CALL if call is not None else Action.ATTRIBUTE,
        provider[0],
        use.scope.owner,
        facts.positions.location(use.span),
        call,
        guarded=use.guarded or len(provider) < len(paths) or _star_fallback(provider),
        alternatives=tuple(provider[1:]),
        via=next((p for p in binding.paths if resolver.is_provider(p)), None),
        store=use.kind is UseKind.STORE,
        result_use=use.call.result_use if use.call is not None else (),
    )


def _star_fallback(provider: list[str]) -> bool:
    """A name a star import binds with another provider's star import behind it: what the
    first does not bind, the next may (never a removal of its own)."""
    return len(provider) > 1 and star_parts(provider[0]) is not None


def _constructed(
    facts: FileFacts, use: Use, paths: tuple[str, ...], resolver: Resolver
) -> Site | None:
    """`Plain(proxies=1)` where consumer class Plain's constructor is a provider class's
    (constructors.py): a call of that constructor, whole, or only for the keywords the
    consumer's own forwarding `__init__`s hand on."""
    if use.kind is not UseKind.CALL or use.call is None or use.span is None or len(paths) != 1:
        return None
    if not resolver.is_class(paths[0]):
        return None
    reached = provider_constructor(paths[0], resolver)
    if reached is None:
        return None
    target, named = reached
    shape = use.call.shape
    if named is not None:  # only what goes on through **kwargs: keywords, checked as such
        onward = tuple(k for k in shape.keywords if k not in named)
        if not onward:
            return None
        shape = CallShape(0, onward, star_args=True, star_kwargs=True)
    location = facts.positions.location(use.span)
    # via: the provider class itself, so a failing import of it covers this call too
    return Site(Action.CALL, target, use.scope.owner, location, shape, use.guarded, via=target)


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
