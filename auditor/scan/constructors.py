# Maintainers: which provider constructor a call of a consumer class reaches.
#
# Owns: following a consumer class up its single chain of consumer bases to the provider
# class whose `__init__` binds the call: `class Plain(httpx.Client): pass` then
# `Plain(proxies=...)` is `httpx.Client(proxies=...)`; a consumer `__init__(self, **kwargs)`
# on the way that hands kwargs on to `super().__init__` unchanged (provider/forwards.py) lets
# the keywords it does not name itself through. Takes: the Resolver. Gives: a provider path
# and the keywords the consumer's own `__init__`s take (None: the call reaches it whole).
from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.model import ParamKind

if TYPE_CHECKING:
    from auditor.scan.resolve import Resolver

MAX_CHAIN = 8
_VARIADIC = (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)


def provider_constructor(path: str, resolver: Resolver) -> tuple[str, frozenset[str] | None] | None:
    """For a call of consumer class `path`: the provider class whose constructor it reaches,
    and the keywords a consumer `__init__` on the way names itself (None: the whole call
    reaches it). Only single inheritance, undecorated classes with no metaclass, and
    `__init__(self, ..., **kwargs)` that hands kwargs on to `super().__init__` unchanged
    (forwards.py); anything else: None, nothing is checked."""
    named: set[str] | None = None
    current = path
    for _ in range(MAX_CHAIN):
        facts = resolver.class_facts(current)
        if facts is None or facts.made:
            return None
        made = {m.name: m for m in facts.methods if m.name in ("__init__", "__new__")}
        if "__new__" in made:
            return None
        init = made.get("__init__")
        if init is not None:
            function = init.function
            onward = function.forward if function is not None else None
            if function is None or onward is None or onward.callee != "super":
                return None
            own = {p.name for p in function.params if p.kind not in _VARIADIC}
            named = (named or set()) | own | set(onward.taken)
        bases = resolver.bases(current)
        if len(bases) != 1:
            return None
        base = bases[0]
        if base.provider:
            if base.uncertain or base.alternatives:
                return None
            return base.path, frozenset(named) if named is not None else None
        current = base.path
    return None
