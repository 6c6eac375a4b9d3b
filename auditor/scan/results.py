# Maintainers: how the consumer uses what a call returns.
#
# Owns: reading one body (a function's, or a module's top level) for the calls whose result
# the code relies on for its shape: subscripted (`f()[0]`), iterated (`for x in f()`, a
# comprehension, `*f()`), unpacked (`a, b = f()`) or measured (`len(f())`), directly or
# through a local bound once to the call (`r = f()` then `r[0]`). A result only passed on,
# returned, compared or ignored relies on nothing: no entry. Attributes read on a result are
# not recorded here: `f().attr` is a site of its own, resolved through the return annotation.
# Takes: a FunctionDef or Module. Gives: {id(call node): uses}, uses sorted. Pure AST work;
# bind.changed_return decides whether a changed return annotation matters for those uses.
# The walk looks down from each node at the child whose use it decides (a Subscript's value,
# a loop's iterable, ...), in one pass, rather than keeping every node's parent (this pass
# reads every node of the consumer again: ~40% of the walker's time did go to the parents).
# DRIFT_AUDIT_NO_LEAN_RESULTS=1 reads them through the parents, as before.
from __future__ import annotations

import ast
import os

from auditor.scan.nodes import node_fields

SUBSCRIPTED = "subscripted"
ITERATED = "iterated"
UNPACKED = "unpacked"
MEASURED = "passed to len()"
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def result_uses(owner: ast.AST) -> dict[int, tuple[str, ...]]:
    """Call node id -> how its result is used, for calls whose result the body relies on."""
    if os.environ.get("DRIFT_AUDIT_NO_LEAN_RESULTS"):
        return _through_parents(owner)
    return _looking_down(owner)


_LOOPS = (ast.For, ast.AsyncFor, ast.comprehension)
# what the walk does at a node, by its type: read its children only (0), or first
_PLAIN, _SCOPE, _DEFINITION, _NAME, _CALL, _SUBSCRIPT, _STARRED, _LOOP, _ASSIGN = range(9)
_ROLES: dict[type[ast.AST], int] = {
    ast.Lambda: _SCOPE,
    ast.FunctionDef: _DEFINITION,
    ast.AsyncFunctionDef: _DEFINITION,
    ast.ClassDef: _DEFINITION,
    ast.Name: _NAME,
    ast.Call: _CALL,
    ast.Subscript: _SUBSCRIPT,
    ast.Starred: _STARRED,
    ast.For: _LOOP,
    ast.AsyncFor: _LOOP,
    ast.comprehension: _LOOP,
    ast.Assign: _ASSIGN,
}
# each type's role and the fields that may hold nodes, made on its first node
_PLANS: dict[type[ast.AST], tuple[int, tuple[str, ...]]] = {}


def _plan(kind: type[ast.AST]) -> tuple[int, tuple[str, ...]]:
    role = _ROLES.get(kind)
    if role is None:  # a subclass of one of them (not what ast.parse makes)
        role = next((r for t, r in _ROLES.items() if issubclass(kind, t)), _PLAIN)
    plan = _PLANS[kind] = (role, node_fields(kind))
    return plan


def _looking_down(owner: ast.AST) -> dict[int, tuple[str, ...]]:
    """What _through_parents() gives, each use found at the node around the call (or
    around a load of the name a call is bound to)."""
    found: dict[int, set[str]] = {}  # id(call) -> its direct uses
    at_loads: dict[str, set[str]] = {}  # name -> the direct uses of its loads
    stores: dict[str, int] = {}  # name -> how often the body binds it
    bound: list[tuple[ast.Call, str]] = []  # `r = f()`
    plans = _PLANS
    call_type, name_type, load_type, node_type = ast.Call, ast.Name, ast.Load, ast.AST

    def used(child: object, how: str) -> None:
        if type(child) is call_type:
            found.setdefault(id(child), set()).add(how)
        elif type(child) is name_type and isinstance(child.ctx, load_type):
            at_loads.setdefault(child.id, set()).add(how)

    stack: list[ast.AST] = list(getattr(owner, "body", []))
    while stack:
        node = stack.pop()
        role, names = plans.get(type(node)) or _plan(type(node))
        if role:
            if role == _NAME:
                assert isinstance(node, ast.Name)
                if not isinstance(node.ctx, load_type):
                    stores[node.id] = stores.get(node.id, 0) + 1
                continue
            if role == _CALL:
                assert isinstance(node, ast.Call)
                if _is_len(node):
                    used(node.args[0], MEASURED)
            elif role == _SUBSCRIPT:
                assert isinstance(node, ast.Subscript)
                used(node.value, SUBSCRIPTED)
            elif role == _STARRED:
                assert isinstance(node, ast.Starred)
                used(node.value, ITERATED)
            elif role == _LOOP:
                assert isinstance(node, _LOOPS)
                used(node.iter, ITERATED)
            elif role == _ASSIGN:
                assert isinstance(node, ast.Assign)
                targets = node.targets
                if any(isinstance(t, (ast.Tuple, ast.List)) for t in targets):
                    used(node.value, UNPACKED)
                elif len(targets) == 1 and type(node.value) is call_type:
                    target = targets[0]
                    if isinstance(target, ast.Name):
                        bound.append((node.value, target.id))
            elif role == _DEFINITION:
                assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                stores[node.name] = stores.get(node.name, 0) + 1
                continue  # their own bodies are read on their own
            else:  # a lambda
                continue
        for field in names:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(child for child in value if isinstance(child, node_type))
            elif isinstance(value, node_type):
                stack.append(value)
    for call, name in bound:
        if stores.get(name) == 1 and name in at_loads:
            found.setdefault(id(call), set()).update(at_loads[name])
    return {key: tuple(sorted(uses)) for key, uses in found.items()}


def _through_parents(owner: ast.AST) -> dict[int, tuple[str, ...]]:
    """Every node's parent kept, then each call's (and each load's) looked up."""
    parents: dict[int, ast.AST] = {}
    calls: list[ast.Call] = []
    stores: dict[str, list[ast.AST]] = {}
    loads: dict[str, list[ast.Name]] = {}
    stack: list[ast.AST] = list(getattr(owner, "body", []))
    node_type, call_type, name_type, load_type = ast.AST, ast.Call, ast.Name, ast.Load
    while stack:
        node = stack.pop()
        if isinstance(node, SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.setdefault(node.name, []).append(node)
            continue  # their own bodies are read on their own
        if isinstance(node, call_type):
            calls.append(node)
        elif isinstance(node, name_type):
            target = loads if isinstance(node.ctx, load_type) else stores
            target.setdefault(node.id, []).append(node)
        # ast.iter_child_nodes, inlined: this loop visits every node of every body
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for child in value:
                    if isinstance(child, node_type):
                        parents[id(child)] = node
                        stack.append(child)
            elif isinstance(value, node_type):
                parents[id(value)] = node
                stack.append(value)
    out: dict[int, tuple[str, ...]] = {}
    for call in calls:
        uses = set(_direct(call, parents))
        name = _bound_once(call, parents, stores)
        if name is not None:
            for load in loads.get(name, ()):
                uses.update(_direct(load, parents))
        if uses:
            out[id(call)] = tuple(sorted(uses))
    return out


def _direct(node: ast.expr, parents: dict[int, ast.AST]) -> list[str]:
    """How the expression `node`'s value is used by the node right around it."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return [SUBSCRIPTED]
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return [ITERATED]
    if isinstance(parent, ast.Starred) and parent.value is node:
        return [ITERATED]
    if isinstance(parent, ast.Call) and node in parent.args and _is_len(parent):
        return [MEASURED]
    if not isinstance(parent, ast.Assign) or parent.value is not node:
        return []
    return [UNPACKED] if any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets) else []


def _is_len(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "len" and len(call.args) == 1


def _bound_once(
    call: ast.Call, parents: dict[int, ast.AST], stores: dict[str, list[ast.AST]]
) -> str | None:
    """`r = f()` where `r` is bound nowhere else in the body: the name, else None."""
    parent = parents.get(id(call))
    if not isinstance(parent, ast.Assign) or parent.value is not call or len(parent.targets) != 1:
        return None
    target = parent.targets[0]
    if not isinstance(target, ast.Name) or len(stores.get(target.id, ())) != 1:
        return None
    return target.id
