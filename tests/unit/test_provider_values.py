"""The namespace evaluator's values stay bounded on hostile provider code."""

from __future__ import annotations

import ast

from auditor.provider.pyvalues import MAX_VALUE, UNKNOWN, binop, safe_str_method


def test_a_value_that_grows_past_the_bound_is_unknown() -> None:
    big = "x" * (MAX_VALUE // 2 + 1)
    assert binop(ast.Add(), big, big) is UNKNOWN
    assert binop(ast.Add(), "ab", "cd") == "abcd"


def test_format_fields_with_a_width_are_not_evaluated() -> None:
    assert safe_str_method("{:>999999999}", "format", [1], {}) is UNKNOWN
    assert binop(ast.Mod(), "%999999999d", 1) is UNKNOWN
    assert safe_str_method("module {n!r}", "format", [], {"n": "x"}) is UNKNOWN
    assert safe_str_method("`np.{n}` {extra}", "format", [], {"n": "int", "extra": ""}) == (
        "`np.int` "
    )


def test_a_format_python_would_refuse_is_unknown() -> None:
    assert safe_str_method("{missing}", "format", [], {}) is UNKNOWN
    assert safe_str_method("x", "replace", ["", "y" * MAX_VALUE], {}) is UNKNOWN


def test_a_partial_container_says_no_only_for_what_it_certainly_lacks() -> None:
    from auditor.provider.pyvalues import AnyKey, Partial, contains

    table = Partial({"float64": 1}, frozenset({"float"}))
    assert contains(table, "float64") is True
    assert contains(table, "float") is False
    assert contains(table, "double") is UNKNOWN
    assert contains({"a", "b"}, AnyKey(frozenset({"a", "b", "c"}))) is False
    assert contains({"a", "z"}, AnyKey(frozenset({"a"}))) is UNKNOWN


def test_what_neither_side_holds_is_absent_from_their_union() -> None:
    from auditor.provider.pyvalues import Partial, merge, union_absent

    left = Partial(["ones"], frozenset({"float", "int"}))
    assert union_absent(left, ["char", "int"]) == frozenset({"float"})
    expected = Partial(["char", "ones"], frozenset({"float", "int"}))
    assert binop(ast.Add(), ["char"], left) == expected
    assert merge(left, ["x"], False) == Partial(["ones", "x"], frozenset({"float", "int"}))
    assert merge(left, Partial([], frozenset({"int"})), False).absent == frozenset({"int"})
