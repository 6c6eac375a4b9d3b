"""Binding: does a call site, as the consumer wrote it, still fit the provider's signature?

What it owns: the rules Python applies when it binds arguments to parameters
(`inspect.Signature.bind`), restricted to what is certain when the call uses `*args` or
`**kwargs`, and the per-site verdict against one provider release (`check_site`).

What it takes: `Site` and `CallShape` from scan/, `Signature` and `Resolution` from provider.py
(through a `Resolver`, anything with a `resolve()` method). What it gives: `Verdict`s, plain
data. No I/O, no griffe: every rule here is testable with literals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from auditor.kinds import Kind
from auditor.model import Action, Lookup, ParamKind, Resolution, SymbolKind

if TYPE_CHECKING:
    from auditor.model import CallShape, Signature, Site

POSITIONAL = (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)
KEYWORD_CAPABLE = (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a call or reference fails against one release."""

    kind: Kind
    parameter: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one site fares against one release."""

    resolution: Resolution
    problems: tuple[Problem, ...] = ()
    signature: str | None = None  # the callee's signature in that release, as text

    @property
    def symbol(self) -> str | None:
        sym = self.resolution.symbol
        return sym.path if sym is not None else None

    @property
    def checked(self) -> bool:
        """Whether the release could be checked at all (not UNKNOWN)."""
        return self.resolution.status is not Lookup.UNKNOWN


class Resolver(Protocol):
    def resolve(self, dotted: str, *, module_only: bool = False) -> Resolution: ...


def bind(shape: CallShape, signature: Signature) -> tuple[Problem, ...]:
    """The problems CPython would raise binding `shape` to `signature`; only certain ones."""
    problems = list(_positional_problems(shape, signature))
    problems += _keyword_problems(shape, signature)
    problems += _missing_problems(shape, signature)
    return tuple(problems)


def _positional_problems(shape: CallShape, signature: Signature) -> list[Problem]:
    params = signature.params
    if any(p.kind is ParamKind.VAR_POSITIONAL for p in params):
        return []
    capacity = sum(1 for p in params if p.kind in POSITIONAL)
    if shape.positional > capacity:  # exact or a lower bound: too many either way
        return [Problem(Kind.TOO_MANY_POSITIONAL)]
    return []


def _keyword_problems(shape: CallShape, signature: Signature) -> list[Problem]:
    positional = [p for p in signature.params if p.kind in POSITIONAL]
    by_position = {p.name for p in positional[: shape.positional]}
    catch_all = any(p.kind is ParamKind.VAR_KEYWORD for p in signature.params)
    problems = []
    for keyword in shape.keywords:
        param = signature.param(keyword)
        named = param is not None and param.kind in KEYWORD_CAPABLE
        if named and keyword in by_position:
            problems.append(Problem(Kind.UNEXPECTED_KEYWORD, keyword))  # "multiple values"
        elif not named and not catch_all:
            problems.append(Problem(Kind.UNEXPECTED_KEYWORD, keyword))
    return problems


def _missing_problems(shape: CallShape, signature: Signature) -> list[Problem]:
    positional = [p for p in signature.params if p.kind in POSITIONAL]
    by_position = {p.name for p in positional[: shape.positional]}
    catch_all = any(p.kind is ParamKind.VAR_KEYWORD for p in signature.params)
    problems = []
    for param in signature.params:
        if not param.required or param.name in by_position:
            continue
        passed_by_keyword = param.kind is ParamKind.POSITIONAL_ONLY and param.name in shape.keywords
        if passed_by_keyword and not catch_all:
            continue  # reported as an unexpected keyword: CPython raises that one error
        if _may_be_filled(param.kind, param.name, shape):
            continue
        problems.append(Problem(Kind.MISSING_ARGUMENT, param.name))
    return problems


def _may_be_filled(kind: ParamKind, name: str, shape: CallShape) -> bool:
    """Whether the call fills the parameter, or might through `*args`/`**kwargs`."""
    if kind is ParamKind.POSITIONAL_ONLY:
        return shape.star_args
    if kind is ParamKind.POSITIONAL_OR_KEYWORD:
        return name in shape.keywords or shape.star_args or shape.star_kwargs
    return name in shape.keywords or shape.star_kwargs


def check_site(site: Site, resolver: Resolver) -> Verdict:
    """The verdict for one site against one release."""
    if site.action is Action.IMPORT and not site.module_only:
        module = site.target.rpartition(".")[0]
        parent = resolver.resolve(module, module_only=True)
        if parent.status is Lookup.MISSING_MODULE:
            return Verdict(parent, (Problem(Kind.REMOVED_MODULE),))
    resolution = resolver.resolve(site.target, module_only=site.module_only)
    if resolution.status is Lookup.MISSING_MODULE:
        return Verdict(resolution, (Problem(Kind.REMOVED_MODULE),))
    if resolution.status is Lookup.MISSING_NAME:
        return Verdict(resolution, (Problem(Kind.REMOVED_SYMBOL),))
    symbol = resolution.symbol
    if symbol is None or site.call is None or site.action is not Action.CALL:
        return Verdict(resolution)
    if symbol.kind not in (SymbolKind.CLASS, SymbolKind.FUNCTION) or symbol.signature is None:
        return Verdict(resolution)
    signature = symbol.signature
    return Verdict(resolution, bind(site.call, signature), str(signature))
