"""It agrees with Python: the binder's verdict against CPython calling a real function.

Wider than test_bind.py's property test: up to three parameters of each kind, keywords named
like the `*args`/`**kwargs` parameters, more positional arguments. The oracle is a real call
of a function defined with that signature (not `inspect.Signature.bind`, which on 3.11
rejects `f(a=0)` for `def f(a=0, /, **kw)` although the interpreter accepts it).

CI runs EXAMPLES examples of each property. An opt-in run at scale counts every disagreement
instead of stopping at the first:

    DRIFT_AUDIT_PROPERTY_EXAMPLES=100000 python -m pytest -q -s tests/unit/test_trust_bind.py
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.bind import bind
from auditor.model import CallShape, Param, ParamKind, Signature

EXAMPLES = 2000  # per property, in CI
AT_SCALE = int(os.environ.get("DRIFT_AUDIT_PROPERTY_EXAMPLES", "0") or 0)
NAMES = ["a", "b", "c", "d", "e", "g", "h", "k", "m"]
KEYWORDS = [*NAMES[:7], "args", "kwargs", "zz"]  # `args`/`kwargs`: the star parameters' names


@st.composite
def signatures(draw: st.DrawFn) -> Signature:
    names = draw(st.permutations(NAMES))
    n_po, n_pk, n_ko = (draw(st.integers(0, 3)) for _ in range(3))
    params: list[Param] = []
    defaulted = False
    for i in range(n_po + n_pk):
        defaulted = defaulted or draw(st.booleans())
        kind = ParamKind.POSITIONAL_ONLY if i < n_po else ParamKind.POSITIONAL_OR_KEYWORD
        params.append(Param(names[i], kind, "0" if defaulted else None))
    if draw(st.booleans()):
        params.append(Param("args", ParamKind.VAR_POSITIONAL))
    for j in range(n_ko):
        default = "0" if draw(st.booleans()) else None
        params.append(Param(names[n_po + n_pk + j], ParamKind.KEYWORD_ONLY, default))
    if draw(st.booleans()):
        params.append(Param("kwargs", ParamKind.VAR_KEYWORD))
    return Signature(tuple(params))


calls = st.tuples(st.integers(0, 7), st.lists(st.sampled_from(KEYWORDS), unique=True, max_size=5))


def cpython_accepts(signature: Signature, positional: int, keywords: tuple[str, ...]) -> bool:
    namespace: dict[str, object] = {}
    exec(f"def f{signature}: pass", namespace)
    function = namespace["f"]
    assert callable(function)
    try:
        function(*range(positional), **dict.fromkeys(keywords, 0))
    except TypeError:
        return False
    return True


def disagreement(signature: Signature, positional: int, keywords: list[str]) -> str | None:
    """None when the binder and CPython agree on this plain call, else what differs."""
    reported = bind(CallShape(positional, tuple(keywords)), signature)
    accepted = cpython_accepts(signature, positional, tuple(keywords))
    if (not reported) == accepted:
        return None
    return f"f{signature} called with {positional} positional, keywords {keywords}: " + (
        f"binder reports {reported}, CPython accepts" if reported else "CPython rejects it"
    )


def star_disagreement(
    signature: Signature, positional: int, keywords: list[str], extra_pos: int, extra: list[str]
) -> str | None:
    """With *args/**kw at the call, a reported problem must hold for every expansion: None
    when the binder is silent, or when this expansion fails in CPython too."""
    if not bind(CallShape(positional, tuple(keywords), True, True), signature):
        return None
    expanded = tuple(keywords) + tuple(k for k in dict.fromkeys(extra) if k not in keywords)
    if cpython_accepts(signature, positional + extra_pos, expanded):
        return (
            f"f{signature}: a star call reported, but {positional + extra_pos} / {expanded} binds"
        )
    return None


# --------------------------------------------------------------------------- in CI


@settings(max_examples=EXAMPLES, deadline=None)
@given(signatures(), calls)
def test_binder_agrees_with_cpython_on_wider_signatures(
    signature: Signature, call: tuple[int, list[str]]
) -> None:
    assert disagreement(signature, *call) is None


@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(signatures(), calls, st.integers(0, 4), st.lists(st.sampled_from(KEYWORDS), max_size=4))
def test_binder_never_reports_a_star_call_that_can_bind_on_wider_signatures(
    signature: Signature, call: tuple[int, list[str]], extra_pos: int, extra: list[str]
) -> None:
    assert star_disagreement(signature, *call, extra_pos, extra) is None


def test_the_python_311_inspect_pitfall_is_judged_by_the_interpreter() -> None:
    signature = Signature(
        (
            Param("a", ParamKind.POSITIONAL_ONLY, "0"),
            Param("kwargs", ParamKind.VAR_KEYWORD),
        )
    )
    assert cpython_accepts(signature, 0, ("a",))  # `a` lands in **kwargs
    assert disagreement(signature, 0, ["a"]) is None


# --------------------------------------------------------------------------- at scale


@pytest.mark.skipif(not AT_SCALE, reason="set DRIFT_AUDIT_PROPERTY_EXAMPLES to run at scale")
def test_binder_agrees_with_cpython_at_scale() -> None:
    seen: list[int] = [0, 0]
    found: list[str] = []

    @settings(
        max_examples=AT_SCALE, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
    )  # fmt: skip
    @given(signatures(), calls, st.integers(0, 4), st.lists(st.sampled_from(KEYWORDS), max_size=4))
    def run(
        signature: Signature, call: tuple[int, list[str]], extra_pos: int, extra: list[str]
    ) -> None:
        seen[0] += 1
        for problem in (
            disagreement(signature, *call),
            star_disagreement(signature, *call, extra_pos, extra),
        ):
            if problem is not None:
                found.append(problem)
        seen[1] += 2

    run()
    print(f"\nbinder vs CPython: {seen[0]} examples, {seen[1]} checks, {len(found)} disagreements")
    assert found == [], "\n".join(found[:20])
    assert seen[0] >= AT_SCALE * 0.95  # hypothesis ran (nearly) what was asked
