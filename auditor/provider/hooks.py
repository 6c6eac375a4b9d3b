"""What a class's `__init_subclass__` may add to the classes below it.

What it owns: reading the hook's source for the names it stores on the class: `cls.name = ...`
and `setattr(cls, "name", ...)` add that name; `setattr(cls, f"set_{m}_request", ...)` adds
names of that shape (scikit-learn's metadata-routing methods); a `setattr` whose name is not
spelled may add anything. A call made for its effect (a statement of its own) is followed
when it is a method of the class called on `cls` (one level down), and may add anything when
it hands `cls` to other code; a call whose value is used (`requests =
cls._get_default_requests()`, `ArtistInspector(cls).get_setters()`) is taken as a reading.
Pure AST work: it takes the hook's AST (and the class's source text, for `setattr(self, ...)`)
and gives an `Adds`.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
    MethodReader = Callable[[str], FunctionNode | None]

# Calls that may take the class without adding to it.
READERS = frozenset({"getattr", "hasattr", "isinstance", "issubclass", "vars", "type", "id",
                     "repr", "str", "print", "super", "len"})  # fmt: skip


@dataclass
class Adds:
    """Names a hook stores on the class: literal names, name shapes, or anything."""

    names: set[str] = field(default_factory=set)
    shapes: list[re.Pattern[str]] = field(default_factory=list)
    anything: bool = False

    def may_add(self, name: str) -> bool:
        return self.anything or name in self.names or any(s.fullmatch(name) for s in self.shapes)


def hook_adds(function: FunctionNode | None, method_of: MethodReader) -> Adds:
    """What this `__init_subclass__` (its AST; None: not readable) may add; `method_of(name)`
    gives the AST of another method of the class (None when it has none)."""
    adds = Adds()
    _read(function, method_of, adds, depth=0)
    return adds


def _read(function: FunctionNode | None, method_of: MethodReader, adds: Adds, depth: int) -> None:
    if function is None:
        adds.anything = True
        return
    arguments = [*function.args.posonlyargs, *function.args.args]
    if not arguments:
        adds.anything = True
        return
    cls = arguments[0].arg
    effects = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Expr)}
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if _is(target, cls, attribute=True):
                    assert isinstance(target, ast.Attribute)
                    adds.names.add(target.attr)
        elif isinstance(node, ast.Call):
            _call(node, cls, method_of, adds, depth, effect=id(node) in effects)


def _call(
    node: ast.Call,
    cls: str,
    method_of: MethodReader,
    adds: Adds,
    depth: int,
    *,
    effect: bool,
) -> None:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else None
    if name == "setattr" and node.args and _is(node.args[0], cls):
        _setattr_name(node.args[1] if len(node.args) > 1 else None, adds)
        return
    if not effect:
        return  # its value is used: a reading
    if isinstance(func, ast.Attribute) and _is(func.value, cls):
        called = method_of(func.attr) if depth == 0 else None
        if called is not None:
            _read(called, method_of, adds, depth + 1)
        elif depth > 0:
            adds.anything = True
        return
    if name in READERS or (isinstance(func, ast.Attribute) and _is_super(func.value)):
        return
    if any(_is(arg, cls) for arg in (*node.args, *(k.value for k in node.keywords))):
        adds.anything = True  # the class handed to code this does not read


def _setattr_name(expr: ast.expr | None, adds: Adds) -> None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        adds.names.add(expr.value)
    elif isinstance(expr, ast.JoinedStr):
        pieces = [
            re.escape(str(p.value)) if isinstance(p, ast.Constant) else ".*" for p in expr.values
        ]
        adds.shapes.append(re.compile("".join(pieces)))
    else:
        adds.anything = True


def _is(expr: ast.expr, cls: str, *, attribute: bool = False) -> bool:
    if attribute:
        return (
            isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and (expr.value.id == cls)
        )
    return isinstance(expr, ast.Name) and expr.id == cls


def _is_super(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"
    )


def self_setattrs(source: str) -> Adds:
    """What `setattr(self, k, v)` calls in a class's source may set: a spelled name, the
    literals an enclosing `if k == "axes":` (or `k in (...)`) allows, or anything."""
    adds = Adds()
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError):
        adds.anything = True
        return adds
    _narrowed(tree, {}, adds)
    return adds


def _narrowed(node: ast.AST, allowed: dict[str, set[str]], adds: Adds) -> None:
    if isinstance(node, ast.If):
        narrowing = _equality(node.test)
        _narrowed(node.test, allowed, adds)
        for statement in node.body:
            _narrowed(statement, {**allowed, **narrowing}, adds)
        for statement in node.orelse:
            _narrowed(statement, allowed, adds)
        return
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and len(node.args) >= 2
        and _is(node.args[0], "self")
    ):
        key = node.args[1]
        if isinstance(key, ast.Name) and key.id in allowed:
            adds.names |= allowed[key.id]
        else:
            _setattr_name(key, adds)
    for child in ast.iter_child_nodes(node):
        _narrowed(child, allowed, adds)


def _equality(test: ast.expr) -> dict[str, set[str]]:
    """`k == "axes"`, `"axes" == k`, `k in ("a", "b")`: {k: the literals}."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return {}
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, ast.Eq):
        if isinstance(right, ast.Name):
            left, right = right, left
        if isinstance(left, ast.Name) and isinstance(right, ast.Constant):
            return {left.id: {str(right.value)}} if isinstance(right.value, str) else {}
    if (
        isinstance(op, ast.In)
        and isinstance(left, ast.Name)
        and isinstance(right, (ast.Tuple, ast.List, ast.Set))
    ):
        items = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        if len(items) == len(right.elts) and all(isinstance(i, str) for i in items):
            return {left.id: {str(i) for i in items}}
    return {}
