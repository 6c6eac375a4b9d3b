# Maintainers: the keys a `**name` spread carries at a call.
#
# Owns: reading one body (a function's, or the module's top level), top to bottom, for the
# dicts it spreads into calls: a function's own `**kwargs` parameter, or a local bound to a
# dict display or `dict(k=...)`. A key is certain at a call when a statement before it, at the
# top level of the body (so it always ran), put it there: `kwargs.setdefault("k", v)`,
# `kwargs["k"] = v`, `kwargs.update(k=v)`, or the display itself. A dict that started as a
# display and only gained spelled keys is known whole: its keys are all the call gets from
# it. Anything else that changes the dict (pop, del, clear, a rebinding, the dict handed to
# other code, `globals()`/`locals()`/`vars()`/`exec`/`eval` anywhere in a statement) ends
# what is known about it, and so does the statement holding the call, when it also touches
# the dict (a loop that pops it, `kw.pop("k") or f(**kw)`). A name that a nested function,
# class or lambda mentions is never followed: that code may change it between the lines.
# The certain keys are keywords the call passes, as surely as if they were written there
# (retry-requests' `kwargs.setdefault("method_whitelist", False)` before `Retry(...,
# **kwargs)`); a dict display spread in place (`f(**{"k": 1})`, `f(**dict(k=1))`) is read by
# `display_keys` where the call's shape is made (calls.call_shape).
# Takes: a FunctionDef or a Module. Gives: {id(call node): Spread}. Pure AST work.
from __future__ import annotations

import ast

from auditor.scan.nodes import child_nodes, names_in, nodes_in

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
OPAQUE = frozenset({"globals", "locals", "vars", "exec", "eval"})  # may change any local
Written = tuple[tuple[str, ast.AST], ...]  # (key, the node that wrote it), first write first
Spread = tuple[tuple[str, ...], bool, Written]  # keys certainly passed; whether every `**name`
# is whole; where each key was written
NOTHING: Spread = ((), False, ())
Known = dict[str, tuple[set[str], bool]]  # name -> (certain keys, whether they are all)
Where = dict[str, dict[str, ast.AST]]  # name -> key -> the node that wrote it


def spread_keys(function: FunctionNode) -> dict[int, Spread]:
    """Call node id -> what its `**name` spreads carry (only where something is known)."""
    known: Known = {}
    if function.args.kwarg is not None:
        known[function.args.kwarg.arg] = (set(), False)  # the caller may pass any key
    return _body_spreads(function.body, known)


def module_spreads(module: ast.Module) -> dict[int, Spread]:
    """The same for the calls at a module's top level."""
    return _body_spreads(module.body, {})


def display_keys(expr: ast.expr) -> tuple[str, ...] | None:
    """`{"a": 1, "b": 2}` or `dict(a=1, b=2)`: the keys, all spelled; None otherwise."""
    if isinstance(expr, ast.Dict) and all(k is not None and _literal(k) for k in expr.keys):
        return tuple(dict.fromkeys(_literal(k) or "" for k in expr.keys if k is not None))
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "dict"
        and not expr.args
        and all(k.arg for k in expr.keywords)
    ):
        return tuple(dict.fromkeys(k.arg for k in expr.keywords if k.arg))
    return None


def _body_spreads(body: list[ast.stmt], known: Known) -> dict[int, Spread]:
    shared = _Shared(body)
    out: dict[int, Spread] = {}
    where: Where = {}
    for statement in body:
        if not known:  # nothing followed yet: only a dict display can start it (cheap)
            literal = _display(statement)
            if literal is not None:
                known[literal[0]] = (literal[1], True)
                where[literal[0]] = dict(literal[2])
            continue
        reads = _Reads(statement)
        if any(keys or whole for keys, whole in known.values()):
            for call in _calls(statement):
                spread = _spread_of(call, known, statement, shared, reads, where)
                if spread is not None:
                    out[id(call)] = spread
        _effects(statement, known, reads, where)
    return out


class _Reads:
    """Whether a name of the statement is spread into a call (`**d`) or read by
    `d.get`/`d[...]`/`k in d`: decided by its parent, all of them found in one walk of the
    statement on the first question (asking a walk per name was quadratic in the names)."""

    def __init__(self, statement: ast.stmt) -> None:
        self._statement = statement
        self._found: dict[int, bool] | None = None

    def __call__(self, node: ast.Name) -> bool:
        if self._found is None:
            self._found = _spread_or_read(self._statement)
        return self._found.get(id(node), False)


class _Shared:
    """The names a function, class or lambda nested in the body mentions, found on the
    first question (most bodies follow no dict: they never pay for the walk)."""

    def __init__(self, body: list[ast.stmt]) -> None:
        self._body = body
        self._names: set[str] | None = None

    def __contains__(self, name: object) -> bool:
        if self._names is None:
            self._names = _nested_names(self._body)
        return name in self._names


def _spread_of(
    call: ast.Call,
    known: Known,
    statement: ast.stmt,
    shared: _Shared,
    reads: _Reads,
    where: Where,
) -> Spread | None:
    """What the call's `**name` spreads carry, from the dicts followed that the statement
    holding the call leaves alone and no nested code mentions."""
    names = [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)]
    followed = [n for n in names if n in known and _untouched(statement, n, reads)]
    followed = [n for n in followed if n not in shared]
    if not followed:
        return None
    explicit = {k.arg for k in call.keywords if k.arg}
    keys = sorted(set().union(*(known[n][0] for n in followed)) - explicit)
    whole = len(followed) == len(names) and all(known[n][1] for n in followed)
    written = {k: node for n in reversed(followed) for k, node in where.get(n, {}).items()}
    at = tuple((k, written[k]) for k in keys if k in written)
    return (tuple(keys), whole, at) if keys or whole else None


def _untouched(statement: ast.stmt, name: str, reads: _Reads) -> bool:
    """Every mention of `name` in the statement spreads or reads it."""
    return all(reads(node) for node in names_in(statement) if node.id == name)


def _nested_names(body: list[ast.stmt]) -> set[str]:
    """The names a function, class or lambda nested in the body mentions."""
    found: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, SCOPES):
            found.update(n.id for n in names_in(node))
            continue
        stack.extend(child_nodes(node))
    return found


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
        stack.extend(child_nodes(current))
    return found


def _effects(statement: ast.stmt, known: Known, reads: _Reads, where: Where) -> None:
    """What a top-level statement does to the dicts followed."""
    added = _added(statement)
    if added is not None:
        name, keys, nodes = added
        if name in known:
            known[name] = (known[name][0] | keys, known[name][1])
            for key, node in nodes:
                where.setdefault(name, {}).setdefault(key, node)
        return
    literal = _display(statement)
    if literal is not None:
        known[literal[0]] = (literal[1], True)
        where[literal[0]] = dict(literal[2])
        return
    for node in names_in(statement):
        if node.id in OPAQUE:
            known.clear()  # `globals()["kw"] = ...`, `exec(...)`: anything may change
            where.clear()
            return
        if node.id in known and not reads(node):
            known.pop(node.id, None)  # changed, rebound or handed on: no longer known
            where.pop(node.id, None)


def _added(statement: ast.stmt) -> tuple[str, set[str], Written] | None:
    """`d.setdefault("k", v)`, `d.update(k=v)`, `d["k"] = v` as a statement of its own: the
    dict's name, the keys, and the node that writes each."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.attr == "setdefault" and call.args and _literal(call.args[0]):
                key = _literal(call.args[0]) or ""
                return func.value.id, {key}, ((key, call.args[0]),)
            if func.attr == "update" and not call.args and all(k.arg for k in call.keywords):
                written = tuple((k.arg, k) for k in call.keywords if k.arg is not None)
                return func.value.id, {k for k, _ in written}, written
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            item = _literal(target.slice)
            if item is not None and not _mentions(statement.value, target.value.id):
                return target.value.id, {item}, ((item, target),)
    return None


def _display(statement: ast.stmt) -> tuple[str, set[str], Written] | None:
    """`opts = {"a": 1}` or `opts = dict(a=1)`: a dict whose keys are all spelled, and the
    node that spells each."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if not isinstance(target, ast.Name) or _mentions(statement.value, target.id):
        return None
    keys = display_keys(statement.value)
    if keys is None:
        return None
    return target.id, set(keys), _spelled(statement.value)


def _spelled(display: ast.expr) -> Written:
    """Where a dict display (or `dict(...)`) spells each key, the first of each."""
    pairs: list[tuple[str | None, ast.AST]] = []
    if isinstance(display, ast.Dict):
        pairs = [(_literal(k), k) for k in display.keys if k is not None]
    elif isinstance(display, ast.Call):
        pairs = [(k.arg, k) for k in display.keywords]
    found: dict[str, ast.AST] = {}
    for key, node in pairs:
        if key is not None:
            found.setdefault(key, node)
    return tuple(found.items())


def _spread_or_read(statement: ast.stmt) -> dict[int, bool]:
    """id() of each name whose parent decides: spread into a call (`**d`) or read by
    `d.get`/`d[...]`/`k in d` (True), or used otherwise as an object (False); a name
    not in it is neither (handed on, rebound)."""
    found: dict[int, bool] = {}
    for parent in nodes_in(statement):
        if isinstance(parent, ast.keyword):
            if parent.arg is None and isinstance(parent.value, ast.Name):
                found[id(parent.value)] = True
        elif isinstance(parent, ast.Attribute):
            if isinstance(parent.value, ast.Name):
                found[id(parent.value)] = parent.attr in ("get", "keys", "items", "values", "copy")
        elif isinstance(parent, ast.Subscript):
            if isinstance(parent.value, ast.Name):
                found[id(parent.value)] = isinstance(parent.ctx, ast.Load)
        elif isinstance(parent, ast.Compare):
            for right in parent.comparators:
                if isinstance(right, ast.Name):
                    found[id(right)] = True
    return found


def _literal(expr: ast.expr) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(n.id == name for n in names_in(expr))
