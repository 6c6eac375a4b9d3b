"""scan/results.py: which calls' results the code relies on for their shape, and how."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import auditor.scan
from auditor.behaviour import changed_defaults, changed_return, is_container, normalised
from auditor.model import CallShape, Param, ParamKind, Signature
from auditor.scan.results import _looking_down, _through_parents, result_uses


def uses(source: str) -> dict[str, tuple[str, ...]]:
    """Source of one function -> {callee name: uses} for the calls the body relies on."""
    function = ast.parse(source).body[0]
    found = result_uses(function)
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
    return {ast.unparse(c.func): found[id(c)] for c in calls if id(c) in found}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return f()[0]", {"f": ("subscripted",)}),
        ("for x in f(): pass", {"f": ("iterated",)}),
        ("return [x for x in f()]", {"f": ("iterated",)}),
        ("return [*f()]", {"f": ("iterated",)}),
        ("a, b = f()", {"f": ("unpacked",)}),
        ("return len(f())", {"f": ("passed to len()",)}),
        ("r = f()\n    return r[0], len(r)", {"f": ("passed to len()", "subscripted")}),
        ("r = f()\n    r = g()\n    return r[0]", {}),  # bound twice: not followed
        ("return f()", {}),
        ("f()", {}),
        ("return str(f())", {}),
        ("return f().attr", {}),
        ("def inner():\n        return f()[0]", {}),  # another body
    ],
)
def test_result_uses(body: str, expected: dict[str, tuple[str, ...]]) -> None:
    assert uses(f"def probe():\n    {body}\n") == expected


def test_looking_down_finds_what_the_parents_found() -> None:
    """The one-pass reading (the default) and the parents' (DRIFT_AUDIT_NO_LEAN_RESULTS=1)
    agree on every body of the scan package's own source, module and functions."""
    bodies = 0
    for path in sorted(Path(auditor.scan.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owners = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]
        for owner in owners:
            assert _looking_down(owner) == _through_parents(owner), (path.name, owner)
            bodies += 1
    assert bodies > 100


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Optional[int]", "int | None"),
        ("List[int]", "list[int]"),
        ("typing.Dict[str, int]", "dict[str, int]"),
        ("'Tuple[int, str]'", "tuple[int, str]"),
        ("Union[str, int, None]", "None | int | str"),
        ("t.Optional[t.List[int]]", "list[int] | None"),
    ],
)
def test_spelling_changes_normalise_equal(a: str, b: str) -> None:
    assert normalised(a) == normalised(b) is not None


def test_containers_are_told_from_single_objects() -> None:
    assert is_container("list[int]") is True
    assert is_container("int | None") is False
    assert is_container("list[int] | int") is None  # mixed: no shape claim


def _sig(*params: Param, returns: str | None = None) -> Signature:
    return Signature(params, returns)


P = ParamKind.POSITIONAL_OR_KEYWORD


def test_a_changed_default_needs_literal_values_of_one_type() -> None:
    call = CallShape(1, ())
    before = _sig(Param("x", P), Param("a", P, "1"), Param("b", P, "True"), Param("c", P, "None"))
    after = _sig(Param("x", P), Param("a", P, "2"), Param("b", P, "None"), Param("c", P, "0"))
    changed = {c.parameter: c.severity.value for c in changed_defaults(call, before, after)}
    assert changed == {"a": "info", "c": "info"}  # b: None marks "not given": opaque
    flipped = changed_defaults(
        call, _sig(Param("x", P), Param("s", P, "False", "bool")),
        _sig(Param("x", P), Param("s", P, "True", "bool")),
    )  # fmt: skip
    assert [(c.parameter, c.severity.value) for c in flipped] == [("s", "warning")]
    assert changed_defaults(CallShape(1, (), star_kwargs=True), before, after) == []


def test_a_changed_return_needs_a_use_and_a_real_change() -> None:
    before, after = _sig(returns="List[int]"), _sig(returns="int")
    assert changed_return((), before, after) is None
    change = changed_return(("subscripted",), before, after)
    assert change is not None and change.severity.value == "warning"
    assert changed_return(("subscripted",), before, _sig(returns="list[int]")) is None
    assert changed_return(("iterated",), before, _sig(returns="Any")) is None
