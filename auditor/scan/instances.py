# Maintainers: provider objects the consumer reaches through its own values.
#
# Owns: the CALL / ATTRIBUTE sites whose target goes through an object rather than a name the
# consumer imported: `x = vllm.x.Scheduler(...)` then `x.add_request(r)` is a CALL of
# `vllm.x.Scheduler().add_request`; `self.cfg.cache_config.block_size` where `self.cfg` holds
# a `vllm.config.VllmConfig` is an ATTRIBUTE `vllm.config.VllmConfig().cache_config.block_size`;
# `vllm.f().x`, `self.m()` in a subclass of a provider class that does not define `m`
# (`Base().m`); and `functools.partial(provider_callable, ...)`, a CALL of that callable whose
# shape is only a lower bound (the rest comes later). Edges to consumer methods reached the
# same way (`generator.generate()`).
# Takes: one walker Use that calls.py could not place, its root binding, and values.Values.
# Gives: at most one Site and one Edge per use.
#
# A site is made only where this use asks the provider something: an attribute looked up on a
# provider object, or a call of a provider callable. Merely reading a consumer attribute that
# holds a provider object (`self.scheduler`) is no site; calling a provider *object*
# (`Scheduler()(...)`) is not followed.
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.model import Action, Edge, Site
from auditor.scan.facts import CALLED, ITEM, UseKind
from auditor.scan.loose import Loose
from auditor.scan.values import ValueKind

if TYPE_CHECKING:
    from auditor.model import CallShape
    from auditor.scan.facts import FileFacts, Use
    from auditor.scan.resolve import Resolver
    from auditor.scan.scopes import Binding
    from auditor.scan.values import Value, Values

PARTIAL = frozenset({"functools.partial"})


class Instances:
    """Places the uses calls.py cannot: see the comment block above."""

    def __init__(self, values: Values, resolver: Resolver) -> None:
        self._values = values
        self._r = resolver
        self._loose = Loose(values, resolver)

    def use(
        self, facts: FileFacts, use: Use, binding: Binding | None
    ) -> tuple[Site | None, Edge | None]:
        """The site (and consumer edge) of a use whose root is a value, not a provider name."""
        if binding is not None and not binding.instance and not self._r.may_matter(binding):
            # `torch.x`, `log.info(...)`: nothing of ours or the provider's, bar a partial
            if use.kind is UseKind.CALL and not use.through_call:
                return _partial(facts, use, binding, self._values, self._r), None
            return None, None
        value, steps = self._values.start(use.scope, use.root, binding, use.attrs)
        if value is None:  # `param.mad()` on a parameter of unknown type: for `probable`
            return self._loose.site(facts, use, binding), None
        asked = False  # the last step looked an attribute up in the provider
        for step in steps:
            if value is None:
                return None, None
            if step == CALLED:
                value, asked = self._values.call(value), False
            elif step == ITEM:
                value, asked = self._values.item(value), False
            else:
                value, asked = self._values.member(value, step)
        if value is None:
            return None, None
        if value.kind is ValueKind.DEF:
            known = value.path in self._r.definitions and use.kind is not UseKind.STORE
            return None, Edge(use.scope.owner, value.path) if known else None
        if value.kind is not ValueKind.PROVIDER:
            return None, None
        return _site(facts, use, value, asked), None


def _site(facts: FileFacts, use: Use, value: Value, asked: bool) -> Site | None:
    if use.span is None:
        return None  # a NAME: never a site of its own
    if use.kind is UseKind.CALL and use.call is not None:
        if value.path.endswith(CALLED):
            return None  # calling a provider object: `__call__` is not followed
        shape: CallShape | None = use.call.shape
    elif asked and use.kind is not UseKind.CALL:
        shape = None
    else:
        return None
    return Site(
        Action.CALL if shape is not None else Action.ATTRIBUTE,
        value.path,
        use.scope.owner,
        facts.positions.location(use.span),
        shape,
        guarded=use.guarded or value.guarded,
        via=_via(value.path),
        store=use.kind is UseKind.STORE,
        result_use=use.call.result_use if shape is not None and use.call is not None else (),
    )


def _via(path: str) -> str:
    """The name a provider path is reached through: what precedes its first call or item."""
    cut = min((i for i in (path.find(CALLED), path.find("[")) if i >= 0), default=len(path))
    return path[:cut]


def _partial(
    facts: FileFacts, use: Use, binding: Binding, values: Values, resolver: Resolver
) -> Site | None:
    """`functools.partial(vllm.f, 1, a=2)`: a CALL of `vllm.f` passing at least that much."""
    call = use.call
    if call is None or not call.positional_first or use.span is None:
        return None
    written = use.attrs[-1] if use.attrs else binding.paths[0].rpartition(".")[2]
    if written != "partial" or not set(resolver.expand(binding, use.attrs)) & PARTIAL:
        return None
    value = values.reference(use.scope, call.first) if call.first is not None else None
    if value is None or value.kind is not ValueKind.PROVIDER or value.path.endswith(CALLED):
        return None
    shape = call.shape
    shape = replace(shape, positional=shape.positional - 1, star_args=True, star_kwargs=True)
    return Site(
        Action.CALL,
        value.path,
        use.scope.owner,
        facts.positions.location(use.span),
        shape,
        guarded=use.guarded or value.guarded,
        via=value.path.partition(CALLED)[0],
    )
