# Maintainers: method calls on a parameter whose type nothing says, for `probable`.
#
# Owns: the CALL sites `pkg.?.name` (provider/paths.owners_path) of `param.name(...)`,
#       where `param` is a parameter of the enclosing function with no annotation, no
#       default and no other store, in a file that imports one provider (`pkg`) and no
#       other distribution (only the standard library and the consumer's own modules
#       beside it: another library's classes may have the method), and `name` is public,
#       no built-in type has it, and no definition of the consumer is named so. The
#       provider says which of its exported classes have the method in each release
#       (ProviderAPI, `a.?.m`); bind.py and probable.py make a `probable` warning of a
#       method all of them lost, and nothing else: these sites are never undecided.
# Takes: one walker Use that instances.py could not place, its file's facts, Values and
# the Resolver. Gives: at most one Site.
"""`param.method(...)` on a parameter of unknown type: a site the `probable` rule asks."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from auditor.model import Action, Site
from auditor.probable import BUILTIN_NAMES
from auditor.provider.paths import owners_path
from auditor.scan.facts import UseKind
from auditor.scan.imports import root_of

if TYPE_CHECKING:
    from auditor.scan.facts import FileFacts, Use
    from auditor.scan.resolve import Resolver
    from auditor.scan.scopes import Binding, Scope
    from auditor.scan.values import Values

STANDARD = frozenset(sys.stdlib_module_names) | {"__future__"}


class Loose:
    """The `probable` sites of one scan (the consumer's own names found once)."""

    def __init__(self, values: Values, resolver: Resolver) -> None:
        self._values = values
        self._r = resolver
        self._named: frozenset[str] | None = None
        self._imports: dict[str, str | None] = {}  # path -> the one provider it imports

    def site(self, facts: FileFacts, use: Use, binding: Binding | None) -> Site | None:
        if use.kind is not UseKind.CALL or use.call is None or use.span is None:
            return None
        if binding is not None or len(use.attrs) != 1:
            return None
        name = use.attrs[0]
        if name.startswith("_") or name in BUILTIN_NAMES or name in self._consumer_names():
            return None
        provider = self._provider_of(facts, use)
        if provider is None or not self._unknown_parameter(facts, use):
            return None
        location = facts.positions.location(use.span)
        target = owners_path(provider, name)
        return Site(Action.CALL, target, use.scope.owner, location, use.call.shape, use.guarded)

    def _consumer_names(self) -> frozenset[str]:
        if self._named is None:
            self._named = frozenset(d.rpartition(".")[2] for d in self._r.definitions)
        return self._named

    def _unknown_parameter(self, facts: FileFacts, use: Use) -> bool:
        """`use.root` is a parameter of the function it is read in (or of one enclosing
        it) with no annotation, no default and no other store, and holds nothing known."""
        owner = self._r.variable_scope(use.scope, use.root)
        if owner is None or owner.kind != "function" or owner.self_name == use.root:
            return False
        function = next((f for f in facts.functions if f.path == owner.owner), None)
        param = next((p for p in function.params if p.name == use.root), None) if function else None
        if param is None or param.annotation is not None or param.default is not None:
            return False
        if param.kind.value.startswith("variadic"):
            return False
        if self._values.store_count(owner, use.root) != 1:
            return False  # rebound in the body: not what the caller passed
        return self._values.variable(use.scope, use.root) is None

    def _provider_of(self, facts: FileFacts, use: Use) -> str | None:
        """The one provider the file imports, when it imports no other distribution."""
        if facts.path not in self._imports:
            self._imports[facts.path] = self._only_provider(facts)
        return self._imports[facts.path]

    def _only_provider(self, facts: FileFacts) -> str | None:
        scopes: dict[int, Scope] = {id(facts.module_scope): facts.module_scope}
        for each in facts.uses:
            current: Scope | None = each.scope
            while current is not None and id(current) not in scopes:
                scopes[id(current)] = current
                current = current.parent
        roots = {root_of(t) for s in scopes.values() for ts in s.imports.values() for t in ts}
        roots = {r for r in roots if r and not r.startswith(".")}
        providers = {r for r in roots if self._r.is_provider(r)}
        others = roots - providers - STANDARD - self._r.consumer_roots()
        if len(providers) != 1 or others:
            return None
        return providers.pop()
