"""The provider's own walks of a module's tree (exports._all_is_static, moves._statements)
give what a plain ast.walk gives, on the standard library's sources and on the cases the
rules are for."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import email.message
import inspect
import typing

import pytest

from auditor.provider import exports, moves


def _static_by_walking_twice(tree: ast.Module) -> bool:
    """What _all_is_static decides, asked as its docstring says: a walk, then each
    function's own walk."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "globals":
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and any(
            isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(node)
        ):
            return False
    return True


SOURCES = [inspect.getsource(m) for m in (ast, argparse, dataclasses, email.message, typing)]
CASES = [
    "__all__ = ['a']\ndef a(): pass\n",
    "__all__ = []\ndef extend_all(m):\n    __all__.extend(m.__all__)\n",
    "__all__ = []\nf = lambda: __all__\n",
    "__all__ = []\n@register(__all__)\ndef f(): pass\n",
    "globals()['x'] = 1\n",
    "class C:\n    def m(self):\n        return globals\n",
    "class C:\n    __all__ = ['x']\n",
]


@pytest.mark.parametrize("source", SOURCES + CASES)
def test_all_is_static_as_two_walks_decide(source: str) -> None:
    tree = ast.parse(source)
    assert exports._all_is_static(tree) == _static_by_walking_twice(tree)


def test_the_cases_cover_both_answers() -> None:
    answers = {exports._all_is_static(ast.parse(case)) for case in CASES}
    assert answers == {True, False}


@pytest.mark.parametrize("source", SOURCES)
def test_statements_give_the_imports_in_ast_walks_order(source: str) -> None:
    tree = ast.parse(source)
    imports = (ast.Import, ast.ImportFrom)
    walked = [n for n in ast.walk(tree) if isinstance(n, imports)]
    assert walked
    assert [n for n in moves._statements(tree) if isinstance(n, imports)] == walked
