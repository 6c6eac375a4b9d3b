"""The rename guess (renames.py) and what bind.compare makes of a gone keyword: a rename in
its own slot is a rename, and a drop is offered only for the baseline's default."""

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
from auditor.renames import rename_target, same_default

PK, KO = ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY
LOC = Location("w/x.py", 1, 1, 1, 10)


def sig(*params: tuple[str, ParamKind, str | None]) -> Signature:
    return Signature(tuple(Param(n, k, d) for n, k, d in params))


# gensim's Word2Vec, 3.8 -> 4.0, cut short: `size` and `iter` renamed in their own slots
W2V_3 = sig(("sentences", PK, "None"), ("size", PK, "100"), ("alpha", PK, "0.025"),
            ("iter", PK, "5"), ("null_word", PK, "0"))  # fmt: skip
W2V_4 = sig(("sentences", PK, "None"), ("vector_size", PK, "100"), ("alpha", PK, "0.025"),
            ("epochs", PK, "5"), ("null_word", PK, "0"), ("comment", PK, "None"),
            ("shrink_windows", PK, "True"))  # fmt: skip


def checked(signature: Signature, call: CallShape) -> Verdict:
    symbol = Symbol("acme.f", SymbolKind.FUNCTION, signature)
    return Verdict(Resolution(Lookup.FOUND, "acme.f", symbol), bind(call, signature), signature)


def problems(before: Signature, after: Signature, call: CallShape) -> dict[object, object]:
    site = Site(Action.CALL, "acme.f", "w.x", LOC, call)
    found = compare(site, checked(before, call), checked(after, call))
    return {(p.kind, p.parameter): p for p in found}


def test_a_parameter_added_in_the_gone_ones_slot_of_its_kind_and_default_is_its_new_name() -> None:
    call = CallShape(1, ("size", "iter"))
    assert rename_target("iter", W2V_3, W2V_4, call) == "epochs"
    assert rename_target("size", W2V_3, W2V_4, call) == "vector_size"  # the stem says so


def test_no_rename_in_the_slot_when_kind_or_default_differ_or_the_slot_moved() -> None:
    call = CallShape(1, ("iter",))
    other_default = sig(*[(p.name, p.kind, "10" if p.name == "epochs" else p.default)
                          for p in W2V_4.params])  # fmt: skip
    keyword_only = sig(*[(p.name, KO if p.name == "epochs" else p.kind, p.default)
                         for p in W2V_4.params])  # fmt: skip
    shifted = sig(("sentences", PK, "None"), ("corpus", PK, "None"), ("vector_size", PK, "100"),
                  ("alpha", PK, "0.025"), ("epochs", PK, "5"), ("null_word", PK, "0"))  # fmt: skip
    for after in (other_default, keyword_only, shifted):
        assert rename_target("iter", W2V_3, after, call) is None, after
    passed = CallShape(4, ("iter",))  # the call fills `epochs` by position: not a rename to it
    assert rename_target("iter", W2V_3, W2V_4, passed) is None


def test_defaults_alike_are_the_same_text_or_the_same_literal_value() -> None:
    def param(default: str | None) -> Param:
        return Param("p", PK, default)

    assert same_default(param("5"), param("0x5"))
    assert same_default(param("hash"), param("hash"))
    assert same_default(param(None), param(None))
    assert not same_default(param("1"), param("True"))
    assert not same_default(param("5"), param(None))
    assert not same_default(param("hash"), param("id"))


def test_a_rename_in_its_slot_is_suggested_and_fixed_as_a_rename() -> None:
    found = problems(W2V_3, W2V_4, CallShape(1, ("size", "iter")))
    gone = found[(Kind.UNEXPECTED_KEYWORD, "iter")]
    assert gone.suggestion == "was it renamed to 'epochs'? pass epochs=... instead"
    assert gone.hint is not None
    assert (gone.hint.action, gone.hint.old, gone.hint.new) == ("rename-keyword", "iter", "epochs")
    assert not gone.hint.safe  # a guess: --unsafe-fixes


def test_a_gone_keyword_gets_a_drop_hint_only_with_a_baseline_default() -> None:
    before = sig(("a", PK, None), ("verbose", PK, "False"), ("specs", PK, None))
    after = sig(("a", PK, None))
    found = problems(before, after, CallShape(1, ("verbose", "specs")))
    verbose = found[(Kind.UNEXPECTED_KEYWORD, "verbose")]
    assert verbose.hint is not None and verbose.hint.action == "drop-keyword"
    assert verbose.hint.default == "False"  # fixes.py drops it only for a value equal to it
    assert verbose.suggestion == (
        "'verbose' is gone: dropping it keeps what the call does only if its value is the "
        "baseline's default, False"
    )
    specs = found[(Kind.UNEXPECTED_KEYWORD, "specs")]
    assert specs.hint is None  # required at the baseline: no value of it is a default
    assert specs.suggestion == (
        "'specs' is gone and the baseline required it: no drop keeps what the call does; "
        "the target's signature shows what it takes instead"
    )


def test_a_keyword_the_target_still_has_is_never_dropped() -> None:
    """`f(1, b=2)` against `f(b, a=1)`: `b` is passed twice, not gone."""
    before = sig(("a", PK, None), ("b", PK, "2"))
    after = sig(("b", PK, None), ("a", PK, "1"))
    found = problems(before, after, CallShape(1, ("b",)))
    twice = found[(Kind.UNEXPECTED_KEYWORD, "b")]
    assert twice.hint is None and twice.suggestion is None
