"""Where a provider function sends the keywords its `**kwargs` collects.

What it owns: reading a function's source for the one call it hands its `**kwargs` to,
but for keys it takes out by name (`attrs.pop("cls", None)`; keys it adds, with
`setdefault` or `kwargs["k"] = v`, leave the caller's there): `super().__init__(name,
**kwargs)`, `Argument(decls, **attrs)`, or a local name bound to a provider class when the
caller does not choose another (click's `cls = attrs.pop("cls", None) or Argument`, or
`if cls is None: cls = Argument`, then `cls(decls, **attrs)`). Then a keyword a caller
passes that the function does not name or take out must be accepted there, as CPython will
find out when that call runs. Anything else (the dict changed otherwise, passed whole, calls
to different targets) is no forward: the keywords stay accepted, as `**kwargs` says.

Pure AST work: it takes the function's AST and gives a `Forward` (the callee as written) or
None; the API turns the callee into a provider path.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from auditor.provider.pyvalues import dotted

REMOVERS = frozenset({"pop", "popitem", "clear", "__delitem__"})  # adding keys keeps the rest


@dataclass(frozen=True)
class Forward:
    callee: str  # "super" (the next class's constructor) or a dotted name as written
    unless: str | None = None  # a keyword that, when passed, chooses another callee
    taken: tuple[str, ...] = ()  # keys the function takes out of **kwargs by name
    added: tuple[str, ...] = ()  # keys it puts in itself (`setdefault`, `kw["cls"] = X`)


def forward_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Forward | None:
    """The call `function` hands its `**kwargs` to, unchanged; None when there is no such
    single call."""
    if function.args.kwarg is None:
        return None
    kwargs = function.args.kwarg.arg
    callees: set[str] = set()
    taken: list[str] = []
    added: list[str] = []
    positional = [*function.args.posonlyargs, *function.args.args]
    receivers = {positional[0].arg} & {"self", "cls"} if positional else set()
    for node in ast.walk(function):
        key = _taken(node, kwargs)
        if key is not None:
            taken += [key] if key else []  # `.get` reads: the key still goes on
            continue
        put = _added(node, kwargs)
        if put is not None:
            if not put:
                return None  # a key that is not spelled: it may be any
            added += put
            continue
        if _changes(node, kwargs):
            return None
        if isinstance(node, ast.Call):
            spread = [k for k in node.keywords if k.arg is None]
            if any(_is(a, kwargs) for a in node.args) or any(
                k.arg is not None and _is(k.value, kwargs) for k in node.keywords
            ):
                return None  # the dict itself handed on: not followed
            if any(_is(k.value, kwargs) for k in spread):
                if len(spread) > 1:
                    return None
                callee = _callee(node.func)
                if callee is None or callee.split(".", 1)[0] in receivers:
                    return None  # `self.m(**kw)`, `cls(**kw)`: dispatched at run time
                callees.add(callee)
    if len(callees) != 1:
        return None
    callee = callees.pop()
    if "." in callee or callee == "super":
        return Forward(callee, taken=tuple(taken), added=tuple(added))
    found = _local_choice(function, callee, kwargs)
    return Forward(found.callee, found.unless, tuple(taken), tuple(added)) if found else None


def _added(node: ast.AST, kwargs: str) -> list[str] | None:
    """Keys a statement puts into the dict: `kw.setdefault("k", v)`, `kw["k"] = v`,
    `kw.update(k=v)` (an empty list: a key not spelled); None: not such a statement."""
    if isinstance(node, ast.Assign):
        keys = []
        for target in node.targets:
            if isinstance(target, ast.Subscript) and _is(target.value, kwargs):
                key = target.slice
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return []
                keys.append(key.value)
        return keys or None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if not _is(node.func.value, kwargs):
            return None
        if node.func.attr == "setdefault":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return [first.value]
            return []
        if node.func.attr == "update":
            if node.args or any(k.arg is None for k in node.keywords):
                return []
            return [k.arg for k in node.keywords if k.arg]
    return None


def _taken(node: ast.AST, kwargs: str) -> str | None:
    """`kwargs.pop("name", ...)` or `kwargs.get("name")`: a key the function takes out."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("pop", "get")
        and _is(node.func.value, kwargs)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value if node.func.attr == "pop" else ""
    return None


def _changes(node: ast.AST, kwargs: str) -> bool:
    """Whether the statement may take a caller's key out of the dict or rebind it (adding
    keys, `setdefault`, `update`, `kwargs["k"] = v`, keeps every key the caller passed)."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(_is(target, kwargs) for target in targets)
    if isinstance(node, ast.Delete):
        return any(
            _is(t, kwargs) or (isinstance(t, ast.Subscript) and _is(t.value, kwargs))
            for t in node.targets
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _is(node.func.value, kwargs) and node.func.attr in REMOVERS
    return False


def _callee(func: ast.expr) -> str | None:
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    ):
        return "super"
    return dotted(func)


def _local_choice(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, kwargs: str
) -> Forward | None:
    """A bare name: a module-level callable, a parameter defaulting to None that the
    function sets to one provider callable when the caller passes nothing, or a local bound
    to `kwargs.pop("cls", None) or Argument`."""
    parameters = _defaults(function.args)
    assigned = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Assign) and any(_is(t, name) for t in n.targets)
    ]
    if name not in parameters and not assigned:
        return Forward(name)  # not local: a name of the module
    if len(assigned) != 1:
        return None
    value = assigned[0].value
    key = _taken(value, kwargs)
    if key and isinstance(value, ast.Call) and len(value.args) == 2 and name not in parameters:
        callee = _callee(value.args[1])  # `cls = attrs.pop("cls", Argument)`
        return Forward(callee, unless=key) if callee and callee != "super" else None
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2:
        chooser, fallback = value.values
        key = _taken(chooser, kwargs)
        callee = _callee(fallback)
        if key and callee and callee != "super" and name not in parameters:
            return Forward(callee, unless=key)
        return None
    if name not in parameters or parameters[name] != "None":
        return None
    callee = _callee(value)
    if callee is None or callee == "super" or callee == name:
        return None
    return Forward(callee, unless=name)


def _defaults(arguments: ast.arguments) -> dict[str, str | None]:
    """Parameter name -> its default's source text (None: no default)."""
    out: dict[str, str | None] = {}
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for param, default in zip(positional, defaults, strict=True):
        out[param.arg] = ast.unparse(default) if default is not None else None
    for param, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        out[param.arg] = ast.unparse(default) if default is not None else None
    return out


def _is(expr: ast.AST, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name
