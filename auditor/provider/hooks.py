"""What a class's hooks may add: its `__init_subclass__` to the classes below it, its
`setattr(self, ...)` calls to its instances, and what its `__getattr__` serves.

What it owns: reading the hook's source for the names it stores on the class: `cls.name = ...`
and `setattr(cls, "name", ...)` add that name; `setattr(cls, f"set_{m}_request", ...)` adds
names of that shape (scikit-learn's metadata-routing methods); a `setattr` whose name is not
spelled may add anything. A call made for its effect (a statement of its own) is followed
when it is a method of the class called on `cls` (one level down), and may add anything when
it hands `cls` to other code; a call whose value is used (`requests =
cls._get_default_requests()`, `ArtistInspector(cls).get_setters()`) is taken as a reading.
`setattr(self, k, v)`, `object.__setattr__(self, k, v)` and `super().__setattr__(k, v)`
set k on the instance. A `__getattr__` serves *data keys* when every path of its body ends in
an item lookup of the object or of one of its attributes by the name asked
(`return self[name]`, `return self._data[name]`), the regular lookup
(`object.__getattribute__(self, name)`, `super().__getattribute__(name)`) or `raise
AttributeError`: then an attribute exists only if the class has it, or the object holds a key
of that name (pandas' `NDFrame.__getattr__`, column access); any other body may serve
anything. Pure AST work: it takes the hook's AST (and the class's source text, for
`setattr(self, ...)`) and gives an `Adds` or a yes/no.
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
    # (kind, name) -> the names it gives: "attribute" (the strings a class attribute lists),
    # "method" (the Literal[...] strings a method's return annotation allows); None: unknown
    Literals = Callable[[str, str], "set[str] | None"]

# Methods whose setattr calls set no name of their own: the names come from their caller
# (`__setattr__`, `__delattr__`) or from an instance of the class pickled (`__setstate__`).
FORWARDING = frozenset({"__setattr__", "__delattr__", "__setstate__"})

# Calls that may take the class without adding to it.
READERS = frozenset({"getattr", "hasattr", "isinstance", "issubclass", "vars", "type", "id",
                     "repr", "str", "print", "super", "len"})  # fmt: skip


@dataclass
class Adds:
    """Names a hook stores on the class: literal names, name shapes, or anything."""

    names: set[str] = field(default_factory=set)
    shapes: list[re.Pattern[str]] = field(default_factory=list)
    anything: bool = False
    from_attributes: set[str] = field(default_factory=set)  # keys listed by `self.<attr>`
    from_methods: set[str] = field(default_factory=set)  # keys `self.<method>()` returns

    def may_add(self, name: str, literals: Literals | None = None) -> bool:
        if self.anything or name in self.names or any(s.fullmatch(name) for s in self.shapes):
            return True
        deferred = [("attribute", a) for a in sorted(self.from_attributes)]
        deferred += [("method", m) for m in sorted(self.from_methods)]
        for kind, source in deferred:
            found = literals(kind, source) if literals is not None else None
            if found is None or name in found:
                return True
        return False


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
    literals an enclosing `if k == "axes":` (or `k in (...)`) allows, the strings a class
    attribute lists when k loops over it (`for k in set(self._metadata) & ...:`), those a
    method's `Literal[...]` return annotation allows when k is what it returns
    (`setattr(self, self._get_axis_name(axis), v)`), or anything. The methods in FORWARDING
    are left out."""
    adds = Adds()
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError):
        adds.anything = True
        return adds
    _narrowed(tree, {}, adds)
    return adds


def _narrowed(
    node: ast.AST,
    allowed: dict[str, set[str]],
    adds: Adds,
    listed: dict[str, str] | None = None,
) -> None:
    listed = listed or {}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FORWARDING:
        return
    if isinstance(node, ast.If):
        narrowing = _equality(node.test)
        _narrowed(node.test, allowed, adds, listed)
        for statement in node.body:
            _narrowed(statement, {**allowed, **narrowing}, adds, listed)
        for statement in node.orelse:
            _narrowed(statement, allowed, adds, listed)
        return
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
        source = _listing_attribute(node.iter)
        if source is not None:
            inner = {k: v for k, v in allowed.items() if k != node.target.id}
            for statement in node.body:
                _narrowed(statement, inner, adds, {**listed, node.target.id: source})
            for statement in node.orelse:
                _narrowed(statement, allowed, adds, listed)
            return
    key = _self_setattr_key(node) if isinstance(node, ast.Call) else None
    if key is not None:
        if isinstance(key, ast.Name) and key.id in allowed:
            adds.names |= allowed[key.id]
        elif isinstance(key, ast.Name) and key.id in listed:
            adds.from_attributes.add(listed[key.id])
        elif _self_method_call(key) is not None:
            adds.from_methods.add(str(_self_method_call(key)))
        else:
            _setattr_name(key, adds)
    for child in ast.iter_child_nodes(node):
        _narrowed(child, allowed, adds, listed)


def _listing_attribute(expr: ast.expr) -> str | None:
    """`self.attr`, `set(self.attr)` (list, tuple, sorted, frozenset), or such an expression
    `&` anything: the attribute whose items a loop over it takes."""
    if _is(expr, "self", attribute=True):
        assert isinstance(expr, ast.Attribute)
        return expr.attr
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in ("set", "list", "tuple", "sorted", "frozenset")
        and len(expr.args) == 1
        and not expr.keywords
    ):
        return _listing_attribute(expr.args[0])
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitAnd):
        return _listing_attribute(expr.left) or _listing_attribute(expr.right)
    return None


def _self_method_call(expr: ast.expr) -> str | None:
    """`self.method(...)`: the method's name."""
    if isinstance(expr, ast.Call) and _is(expr.func, "self", attribute=True):
        assert isinstance(expr.func, ast.Attribute)
        return expr.func.attr
    return None


def _self_setattr_key(call: ast.Call) -> ast.expr | None:
    """The name argument of `setattr(self, k, v)`, `<anything>.__setattr__(self, k, v)`
    (`object.__setattr__`, a base's) or `super().__setattr__(k, v)` / `self.__setattr__(k,
    v)`; None for any other call."""
    func, args = call.func, call.args
    if isinstance(func, ast.Name) and func.id == "setattr":
        return args[1] if len(args) >= 2 and _is(args[0], "self") else None
    if not (isinstance(func, ast.Attribute) and func.attr == "__setattr__"):
        return None
    if _is_super(func.value) or _is(func.value, "self"):
        return args[0] if args else None
    return args[1] if len(args) >= 2 and _is(args[0], "self") else None


def serves_data_keys(function: FunctionNode | None) -> bool:
    """Whether a class's `__getattr__(self, name)` serves only the object's data keys (see
    above): every path returns `self[name]`, `self.<attr>...[name]`, the regular lookup, or
    raises AttributeError, with nothing else done on the way."""
    if function is None:
        return False
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if len(params) != 2 or function.args.vararg or function.args.kwarg:
        return False
    return _ends_in_data_keys(function.body, params[0], params[1])


def _ends_in_data_keys(body: list[ast.stmt], me: str, name: str) -> bool:
    return _block(body, me, name) == "ends"


def _block(body: list[ast.stmt], me: str, name: str) -> str | None:
    """`ends` (every path returns or raises as allowed), `open` (it may fall through, after
    allowed statements only) or None (something else is done)."""
    for statement in body:
        if _inert(statement):
            continue
        if isinstance(statement, ast.Return):
            allowed = statement.value is not None and _data_key_value(statement.value, me, name)
            return "ends" if allowed else None
        if isinstance(statement, ast.Raise):
            return "ends" if _raises_attribute_error(statement) else None
        if isinstance(statement, ast.If):
            branches = [_block(statement.body, me, name)]
            branches.append(_block(statement.orelse, me, name) if statement.orelse else "open")
        elif isinstance(statement, ast.Try) and not statement.orelse and not statement.finalbody:
            branches = [_block(statement.body, me, name)]
            branches += [_block(h.body, me, name) for h in statement.handlers]
        else:
            return None
        if None in branches:
            return None
        if all(b == "ends" for b in branches):
            return "ends"
    return "open"


def _inert(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    )


def _data_key_value(value: ast.expr, me: str, name: str) -> bool:
    """`self[name]`, `self.a.b[name]`, `object.__getattribute__(self, name)`,
    `super().__getattribute__(name)`, `self.__getattribute__(name)`."""
    if isinstance(value, ast.Subscript):
        return _is(value.slice, name) and _rooted_at(value.value, me)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return False
    if value.func.attr != "__getattribute__" or value.keywords:
        return False
    owner, args = value.func.value, value.args
    if _is_super(owner) or _is(owner, me):
        return len(args) == 1 and _is(args[0], name)
    return len(args) == 2 and _is(args[0], me) and _is(args[1], name)


def _rooted_at(expr: ast.expr, me: str) -> bool:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return _is(expr, me)


def _raises_attribute_error(statement: ast.Raise) -> bool:
    exc = statement.exc
    target = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(target, ast.Name) and target.id == "AttributeError"


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
