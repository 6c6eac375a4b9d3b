"""scan/nodes.py: what ast.walk and ast.iter_child_nodes give, but the contexts and the
operators, on real code (the standard library's own sources, parsed here)."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import email.message
import inspect

import pytest

from auditor.scan import flags, spreads
from auditor.scan.nodes import child_nodes, names_in, nodes_in

LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


@pytest.fixture(scope="module")
def trees() -> list[ast.Module]:
    modules = [ast, inspect, argparse, dataclasses, email.message, spreads, flags]
    return [ast.parse(inspect.getsource(module)) for module in modules]


def test_names_and_nodes_are_those_ast_walk_finds(trees: list[ast.Module]) -> None:
    found = 0
    for tree in trees:
        for top in [tree, *tree.body]:
            walked = [n for n in ast.walk(top) if not isinstance(n, LEAVES)]
            assert sorted(map(id, nodes_in(top))) == sorted(map(id, walked))
            names = [n for n in walked if isinstance(n, ast.Name)]
            assert sorted(map(id, names_in(top))) == sorted(map(id, names))
            found += len(names)
    assert found > 10_000


def test_child_nodes_are_iter_child_nodes_in_order(trees: list[ast.Module]) -> None:
    seen = 0
    for tree in trees:
        for node in ast.walk(tree):
            expected = [c for c in ast.iter_child_nodes(node) if not isinstance(c, LEAVES)]
            assert child_nodes(node) == expected
            seen += bool(expected)
    assert seen > 1000
