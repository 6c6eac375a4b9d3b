"""bind.one_cause: a call whose extra positional arguments were meant for parameters that
are keyword-only now is one too-many-positional finding, not one more per parameter."""

from __future__ import annotations

from auditor.bind import Verdict, bind, compare
from auditor.kinds import Kind
from auditor.model import (
    Action,
    CallShape,
    Location,
    Lookup,
    Param,
    ParamKind,
    Resolution,
    Signature,
    Site,
    Symbol,
    SymbolKind,
)

PK, KO, VP = ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY, ParamKind.VAR_POSITIONAL
LOC = Location("w/x.py", 1, 1, 1, 10)
MANY, MISS = Kind.TOO_MANY_POSITIONAL, Kind.MISSING_ARGUMENT


def sig(*params: tuple[str, ParamKind, str | None]) -> Signature:
    return Signature(tuple(Param(n, k, d) for n, k, d in params))


def checked(signature: Signature, call: CallShape) -> Verdict:
    symbol = Symbol("acme.f", SymbolKind.FUNCTION, signature)
    return Verdict(Resolution(Lookup.FOUND, "acme.f", symbol), bind(call, signature), signature)


def found(before: Signature | None, after: Signature, call: CallShape) -> list[tuple[Kind, str]]:
    site = Site(Action.CALL, "acme.f", "w.x", LOC, call)
    old = checked(before, call) if before is not None else None
    return [(p.kind, p.parameter or "") for p in compare(site, old, checked(after, call))]


AB = sig(("a", PK, None), ("b", PK, None))
STAR_AB = sig(("a", KO, None), ("b", KO, None))


def test_keyword_only_now_is_one_finding_with_a_fix_by_keyword() -> None:
    call = CallShape(2, ())
    assert bind(call, STAR_AB) != ()  # CPython's binder: three reasons, one TypeError
    assert found(AB, STAR_AB, call) == [(MANY, "")]
    site = Site(Action.CALL, "acme.f", "w.x", LOC, call)
    (problem,) = compare(site, checked(AB, call), checked(STAR_AB, call))
    assert problem.suggestion == "a, b are keyword-only now: pass a=..., b=..."
    assert problem.hint is not None and problem.hint.action == "keywordize"
    assert problem.hint.names == ("a", "b") and problem.hint.safe


def test_without_a_baseline_the_extra_arguments_map_onto_the_keyword_only_ones_in_order() -> None:
    call = CallShape(2, ())
    site = Site(Action.CALL, "acme.f", "w.x", LOC, call)
    (problem,) = compare(site, None, checked(STAR_AB, call))
    assert problem.kind is MANY and problem.hint is None  # the names are not known: no fix
    assert problem.suggestion == "it requires a, b by keyword: pass a=..., b=..."
    two_of_three = sig(("x", PK, None), ("a", KO, None), ("b", KO, None))
    assert found(None, two_of_three, call) == [(MANY, ""), (MISS, "b")]  # as mypy says


def test_a_missing_parameter_no_extra_argument_was_meant_for_is_a_cause_of_its_own() -> None:
    before = sig(("x", PK, None), ("y", PK, None))
    after = sig(("x", PK, None), ("y", KO, None), ("z", KO, None))
    assert found(before, after, CallShape(2, ())) == [(MANY, ""), (MISS, "z")]


def test_unpacked_arguments_or_no_extra_one_fold_nothing() -> None:
    starred = CallShape(2, (), star_args=True)
    assert sorted(found(AB, STAR_AB, starred), key=str) == [(MISS, "a"), (MISS, "b"), (MANY, "")]
    assert found(AB, sig(("a", KO, None), ("b", KO, None), ("c", KO, None)), CallShape(0, ("a",))
                 ) == [(MISS, "b"), (MISS, "c")]  # fmt: skip
    assert found(AB, sig(("a", PK, None), ("b", PK, None), ("v", VP, None)), CallShape(2, ())) == []
