# Maintainers: the names in a piece of the AST, found fast.
#
# Owns: node_fields(), the fields of a node type that may hold nodes (results.py's plans read
# it too); names_in(), every ast.Name under a node (the node itself included), and nodes_in(),
# every node under it but the contexts and operators (ast.Load, ast.Add, ...), both in no
# promised order; child_nodes(), ast.iter_child_nodes() as a list, in its order, but the
# contexts and operators: for the questions asked of every statement of the consumer ("is this
# name mentioned", "is any name opaque", "which names are spread"), where ast.walk's queue
# and a generator per node (iter_child_nodes) were most of the time (spreads.py over a
# third of transformers: 0.52 s -> 0.30 s).
# Takes: a node. Gives: its names, or its nodes. Pure AST work.
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# fields that never hold a node with a name under it
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind"})
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def node_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes (not contexts, operators or texts),
    kept per type; the walks below read the table first and call this on a miss."""
    names = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
    return names


def names_in(node: ast.AST) -> Iterator[ast.Name]:
    """Every ast.Name under `node`, `node` itself included."""
    fields, name_type, node_type = _FIELDS, ast.Name, ast.AST
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is name_type:
            assert isinstance(current, ast.Name)
            yield current
            continue
        names = fields.get(kind)
        if names is None:
            names = node_fields(kind)
        for field in names:
            value = getattr(current, field, None)
            if type(value) is list:
                stack.extend(child for child in value if isinstance(child, node_type))
            elif isinstance(value, node_type):
                stack.append(value)


def nodes_in(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under `node`, `node` itself included, but contexts and operators."""
    fields, node_type = _FIELDS, ast.AST
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        yield current
        kind = type(current)
        names = fields.get(kind)
        if names is None:
            names = node_fields(kind)
        for field in names:
            value = getattr(current, field, None)
            if type(value) is list:
                stack.extend(child for child in value if isinstance(child, node_type))
            elif isinstance(value, node_type):
                stack.append(value)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """ast.iter_child_nodes(node), in its order, but contexts and operators."""
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = node_fields(kind)
    found: list[ast.AST] = []
    for field in names:
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend(child for child in value if isinstance(child, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found
