"""bind(): the binder's verdict must equal CPython's for every certain case."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.bind import (
    Problem,
    Verdict,
    bind,
    check_site,
    compare,
    override_mismatch,
    positional_shift,
    rename_suggestion,
)
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

PO, PK, VP, KO, VK = (
    ParamKind.POSITIONAL_ONLY,
    ParamKind.POSITIONAL_OR_KEYWORD,
    ParamKind.VAR_POSITIONAL,
    ParamKind.KEYWORD_ONLY,
    ParamKind.VAR_KEYWORD,
)


def sig(*params: tuple[str, ParamKind, bool]) -> Signature:
    return Signature(tuple(Param(n, k, "0" if d else None) for n, k, d in params))


def shape(positional: int = 0, *keywords: str, star: bool = False, kw: bool = False) -> CallShape:
    return CallShape(positional, tuple(keywords), star_args=star, star_kwargs=kw)


UKW, MISS, MANY = Kind.UNEXPECTED_KEYWORD, Kind.MISSING_ARGUMENT, Kind.TOO_MANY_POSITIONAL


@pytest.mark.parametrize(
    ("signature", "call", "expected"),
    [
        (sig(("a", PK, False)), shape(1), []),
        (sig(("a", PK, False)), shape(0, "a"), []),
        (sig(("a", PK, False)), shape(0, "b"), [(UKW, "b"), (MISS, "a")]),
        (sig(("a", PK, False), ("k", VK, False)), shape(0, "a", "b"), []),
        (sig(("a", PO, False)), shape(0, "a"), [(UKW, "a")]),
        (sig(("a", PK, False)), shape(2), [(MANY, None)]),
        (sig(("a", PK, False), ("r", VP, False)), shape(5), []),
        (sig(("a", PK, False), ("b", KO, False)), shape(1), [(MISS, "b")]),
        (sig(("a", PK, False), ("b", KO, False)), shape(1, kw=True), []),
        (sig(("a", PK, False), ("b", PK, False)), shape(1, star=True), []),
        (sig(("a", PK, False)), shape(2, star=True), [(MANY, None)]),
        (sig(("a", PK, False)), shape(0, "zz", kw=True), [(UKW, "zz")]),
        (sig(("a", PK, False)), shape(1, "a"), [(UKW, "a")]),
        (sig(("a", PO, False)), shape(0, kw=True), [(MISS, "a")]),
        (sig(("a", PK, True)), shape(0), []),
    ],
)
def test_bind_reports_exactly_the_certain_problems(
    signature: Signature, call: CallShape, expected: list[tuple[Kind, str | None]]
) -> None:
    assert sorted(bind(call, signature), key=str) == sorted(
        (Problem(k, p) for k, p in expected), key=str
    )


# --------------------------------------------------------------------------- vs CPython

NAMES = ["a", "b", "c", "d", "e", "g"]


@st.composite
def signatures(draw: st.DrawFn) -> Signature:
    names = draw(st.permutations(NAMES))
    n_po, n_pk, n_ko = draw(st.integers(0, 2)), draw(st.integers(0, 2)), draw(st.integers(0, 2))
    has_vp, has_vk = draw(st.booleans()), draw(st.booleans())
    params: list[Param] = []
    defaulted = False
    for i in range(n_po + n_pk):
        defaulted = defaulted or draw(st.booleans())
        kind = PO if i < n_po else PK
        params.append(Param(names[i], kind, "0" if defaulted else None))
    if has_vp:
        params.append(Param("args", VP))
    for j in range(n_ko):
        params.append(Param(names[n_po + n_pk + j], KO, "0" if draw(st.booleans()) else None))
    if has_vk:
        params.append(Param("kwargs", VK))
    return Signature(tuple(params))


def real_function(signature: Signature) -> object:
    text = str(signature)
    namespace: dict[str, object] = {}
    exec(f"def f{text}: pass", namespace)
    return namespace["f"]


def cpython_accepts(signature: Signature, positional: int, keywords: tuple[str, ...]) -> bool:
    """Call a real function with that signature. (Not inspect.Signature.bind: on 3.11 it
    rejects `f(a=0)` for `def f(a=0, /, **kw)`, which the interpreter accepts.)"""
    function = real_function(signature)
    assert callable(function)
    try:
        function(*range(positional), **dict.fromkeys(keywords, 0))
    except TypeError:
        return False
    return True


calls = st.tuples(
    st.integers(0, 5), st.lists(st.sampled_from([*NAMES, "zz"]), unique=True, max_size=4)
)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(signatures(), calls)
def test_binder_agrees_with_cpython_on_plain_calls(
    signature: Signature, call: tuple[int, list[str]]
) -> None:
    positional, keywords = call
    verdict = bind(CallShape(positional, tuple(keywords)), signature)
    assert (not verdict) == cpython_accepts(signature, positional, tuple(keywords))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(signatures(), calls, st.integers(0, 3), st.lists(st.sampled_from(NAMES), max_size=3))
def test_binder_never_reports_a_star_call_that_can_bind(
    signature: Signature, call: tuple[int, list[str]], extra_pos: int, extra_kw: list[str]
) -> None:
    """With *args/**kw at the call, a reported problem must hold for every expansion."""
    positional, keywords = call
    star_kw = [k for k in dict.fromkeys(extra_kw) if k not in keywords]
    verdict = bind(CallShape(positional, tuple(keywords), True, True), signature)
    if verdict:
        expanded = tuple(keywords) + tuple(star_kw)
        assert not cpython_accepts(signature, positional + extra_pos, expanded)


# --------------------------------------------------------------------------- check_site


class FakeResolver:
    def __init__(self, known: dict[str, Resolution]) -> None:
        self.known = known

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        return self.known.get(dotted, Resolution(Lookup.MISSING_NAME, dotted, missing=dotted))


LOC = Location("w/x.py", 1, 1, 1, 10)


def test_from_import_of_a_vanished_module_is_removed_module() -> None:
    resolver = FakeResolver({"acme.old": Resolution(Lookup.MISSING_MODULE, "acme.old")})
    verdict = check_site(Site(Action.IMPORT, "acme.old.f", "w.x", LOC), resolver)
    assert verdict.problems == (Problem(Kind.REMOVED_MODULE),)


def test_call_binds_against_the_resolved_signature() -> None:
    symbol = Symbol("acme.core.f", SymbolKind.FUNCTION, sig(("a", PK, False)))
    resolver = FakeResolver({"acme.f": Resolution(Lookup.FOUND, "acme.f", symbol)})
    site = Site(Action.CALL, "acme.f", "w.x", LOC, CallShape(0, ("b",)))
    verdict = check_site(site, resolver)
    assert verdict.problems == (Problem(UKW, "b"), Problem(MISS, "a"))
    assert verdict.symbol == "acme.core.f"
    assert verdict.signature == "(a)"


def test_unknown_signature_is_never_a_break() -> None:
    symbol = Symbol("acme.C", SymbolKind.CLASS, None, "decorated")
    resolver = FakeResolver({"acme.C": Resolution(Lookup.FOUND, "acme.C", symbol)})
    site = Site(Action.CALL, "acme.C", "w.x", LOC, CallShape(9, ("nope",)))
    assert check_site(site, resolver).problems == ()


# --------------------------------------------------------------------------- comparisons


def verdict(
    signature: Signature, *, deprecated: str | None = None, path: str = "acme.f"
) -> Verdict:
    symbol = Symbol(path, SymbolKind.FUNCTION, signature, deprecated=deprecated)
    return Verdict(Resolution(Lookup.FOUND, path, symbol), (), signature)


def test_parameter_inserted_before_a_positional_argument_is_a_shift() -> None:
    before, after = sig(("a", PK, False), ("b", PK, True)), sig(("x", PK, True), ("a", PK, False))
    assert positional_shift(shape(1), before, after) == Problem(Kind.POSITIONAL_SHIFT, "x")


def test_parameter_appended_is_no_shift() -> None:
    before, after = sig(("a", PK, False)), sig(("a", PK, False), ("z", PK, True))
    assert positional_shift(shape(1), before, after) is None
    assert positional_shift(shape(0, "a"), before, after) is None


def test_override_missing_a_parameter_the_provider_now_passes() -> None:
    before, after = sig(("a", PK, False)), sig(("a", PK, False), ("extra", KO, True))
    assert override_mismatch(sig(("a", PK, False)), before, after) == Problem(
        Kind.OVERRIDE_MISMATCH, "extra"
    )
    flexible = sig(("a", PK, False), ("kw", VK, False))
    assert override_mismatch(flexible, before, after) is None


def test_override_requiring_a_parameter_the_provider_dropped() -> None:
    before, after = sig(("a", PK, False), ("b", PK, False)), sig(("a", PK, False))
    override = sig(("a", PK, False), ("b", PK, False))
    assert override_mismatch(override, before, after) == Problem(Kind.OVERRIDE_MISMATCH, "b")


def test_differences_already_in_the_baseline_are_not_an_override_mismatch() -> None:
    same = sig(("a", PK, False), ("c", KO, True))
    assert override_mismatch(sig(("a", PK, False)), same, same) is None


def test_rename_suggestion_by_name_similarity() -> None:
    before = sig(("kv_cache_spec", PK, False))
    after = sig(("kv_cache_specs", PK, False))
    assert "kv_cache_specs" in (rename_suggestion("kv_cache_spec", before, after) or "")
    assert rename_suggestion("gone", sig(("gone", PK, True)), sig()) is None


def test_compare_reports_a_deprecation_new_in_the_target() -> None:
    site = Site(Action.CALL, "acme.f", "w.x", LOC, CallShape(0, ()))
    plain = sig()
    old, new = verdict(plain), verdict(plain, deprecated="marked @deprecated")
    assert [p.kind for p in compare(site, old, new)] == [Kind.DEPRECATED]
    assert compare(site, new, new) == ()


def test_no_rename_to_a_parameter_the_call_passes_or_of_another_word() -> None:
    """speculators' `get_kv_cache_config_from_groups(cfg, groups, kv_cache_specs=...,
    available_memory=...)`: `kv_cache_groups` shares only the `kv_cache_` prefix and is
    already passed by position; no rename to it is suggested."""
    before = sig(("vllm_config", PK, True), ("kv_cache_groups", PK, True),
                 ("kv_cache_specs", PK, True), ("available_memory", PK, True))  # fmt: skip
    after = sig(("vllm_config", PK, True), ("kv_cache_groups", PK, True),
                ("available_memory", PK, True))  # fmt: skip
    shape = CallShape(2, ("kv_cache_specs", "available_memory"))
    assert rename_suggestion("kv_cache_specs", before, after, shape) is None
    assert rename_suggestion("kv_cache_specs", before, after) is None
    renamed = sig(("sparse_output", PK, False))
    assert "sparse_output" in (
        rename_suggestion("sparse", sig(("sparse", PK, False)), renamed) or ""
    )
