# Maintainers: the keys a `**name` spread certainly carries at a call.
#
# Owns: reading one function body, top to bottom, for the dicts it spreads into calls: its own
# `**kwargs` parameter, or a local bound once to a dict display or `dict(k=...)`. A key is
# certain at a call when a statement before it, at the top level of the body (so it always
# ran), put it there: `kwargs.setdefault("k", v)`, `kwargs["k"] = v`, `kwargs.update(k=v)`,
# or the display itself. Anything else that changes the dict (pop, del, clear, a rebinding,
# the dict handed to other code) ends what is known about it. The certain keys are keywords
# the call passes, as surely as if they were written there (retry-requests'
# `kwargs.setdefault("method_whitelist", False)` before `Retry(..., **kwargs)`).
# Takes: a FunctionDef. Gives: {id(call node): keys}. Pure AST work.
from __future__ import annotations

import ast

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def spread_keys(function: FunctionNode) -> dict[int, tuple[str, ...]]:
    """Call node id -> the keys its `**name` spread certainly holds (only where some are)."""
    known: dict[str, set[str]] = {}
    if function.args.kwarg is not None:
        known[function.args.kwarg.arg] = set()
    out: dict[int, tuple[str, ...]] = {}
    for statement in function.body:
        if not known:  # nothing followed yet: only a dict display can start it (cheap)
            literal = _display(statement)
            if literal is not None:
                known[literal[0]] = literal[1]
            continue
        for call in _calls(statement) if any(known.values()) else ():
            for keyword in call.keywords:
                value = keyword.value
                if keyword.arg is None and isinstance(value, ast.Name) and known.get(value.id):
                    explicit = {k.arg for k in call.keywords if k.arg}
                    keys = sorted(known[value.id] - explicit)
                    if keys:
                        out[id(call)] = (*out.get(id(call), ()), *keys)
        _effects(statement, known)
    return out


def _calls(node: ast.AST) -> list[ast.Call]:
    """The calls of a statement, not those of functions or classes it defines."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if current is not node and isinstance(current, SCOPES):
            continue
        if isinstance(current, ast.Call):
            found.append(current)
        stack.extend(ast.iter_child_nodes(current))
    return found


def _effects(statement: ast.stmt, known: dict[str, set[str]]) -> None:
    """What a top-level statement does to the dicts followed."""
    added = _added(statement)
    if added is not None:
        name, keys = added
        if name in known:
            known[name] |= keys
        return
    literal = _display(statement)
    if literal is not None:
        known[literal[0]] = literal[1]
        return
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and node.id in known and not _spread_or_read(node, statement):
            known.pop(node.id, None)  # changed, rebound or handed on: no longer known


def _added(statement: ast.stmt) -> tuple[str, set[str]] | None:
    """`d.setdefault("k", v)`, `d.update(k=v)`, `d["k"] = v` as a statement of its own."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.attr == "setdefault" and call.args and _literal(call.args[0]):
                return func.value.id, {_literal(call.args[0]) or ""}
            if func.attr == "update" and not call.args and all(k.arg for k in call.keywords):
                return func.value.id, {k.arg for k in call.keywords if k.arg}
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = _literal(target.slice)
            if key is not None and not _mentions(statement.value, target.value.id):
                return target.value.id, {key}
    return None


def _display(statement: ast.stmt) -> tuple[str, set[str]] | None:
    """`opts = {"a": 1}` or `opts = dict(a=1)`: a dict whose keys are all spelled."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ast.Dict) and all(k is not None and _literal(k) for k in value.keys):
        return target.id, {_literal(k) or "" for k in value.keys if k is not None}
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
        and not value.args
        and all(k.arg for k in value.keywords)
    ):
        return target.id, {k.arg for k in value.keywords if k.arg}
    return None


def _spread_or_read(node: ast.Name, statement: ast.stmt) -> bool:
    """The name is spread into a call (`**d`) or read by `d.get`/`d[...]`/`k in d`."""
    for parent in ast.walk(statement):
        if isinstance(parent, ast.keyword) and parent.arg is None and parent.value is node:
            return True
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return parent.attr in ("get", "keys", "items", "values", "copy")
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Compare) and node in parent.comparators:
            return True
    return False


def _literal(expr: ast.expr) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))
