# Maintainers: what a provider class's methods store on `self`, and what a module binds a
# name to, read from the AST.
#
# Owns: `class_stores()`: every `self.x = value` (and `self.x: T = value`, a `for`/`with`
# target, an unpacking, `setattr(self, "x", value)` and `object.__setattr__` with the name
# spelled) in every method of one class, the class body's own `x = value`, and
# `cls.x = value` in its classmethods, each as a `Store` (the value, the annotation, the
# names the method binds itself); `module_stores()`: every binding of one name at a module's
# top level, or None when a function of the module rebinds it (`global x`); and `callee()`:
# the dotted spelling of the one call all those values make (`Headers(...)`), None values
# aside (`self.cache = None` then `self.cache = Cache()`: on None a method fails whatever
# the provider does). The caller (typed.py) resolves that spelling in the class's module.
# Takes: a class's source text or a module's AST. Gives: plain data. Pure: no griffe, no I/O.
"""Stores into `self` and a module's bindings of a name, for the types that flow."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from auditor.provider.pyvalues import dotted
from auditor.provider.returns import _assigned, _parameters

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Store:
    """One assignment of an attribute: its value (None: not one value, as an unpacking or a
    loop target binds), its annotation, and the names the enclosing function binds."""

    value: ast.expr | None
    annotation: ast.expr | None = None
    local: frozenset[str] = frozenset()
    on_class: bool = False  # the class body's or a classmethod's: a descriptor there acts


Stores = dict[str, list[Store]]


def class_stores(source: str) -> Stores | None:
    """name -> its stores, for one class's source; None when the source does not parse."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.ClassDef):
        return None
    found: Stores = {}
    for statement in _class_level(node.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _method_stores(statement, found)
        else:
            _body_store(statement, found)
    return found


def _class_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A class body's statements, those under its `if`/`try` blocks included."""
    out: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If):
            out += _class_level(statement.body) + _class_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            blocks = [statement.body, statement.orelse, statement.finalbody]
            blocks += [h.body for h in statement.handlers]
            out += [s for block in blocks for s in _class_level(block)]
        else:
            out.append(statement)
    return out


def _body_store(statement: ast.stmt, found: Stores) -> None:
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                found.setdefault(target.id, []).append(Store(statement.value, on_class=True))
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        store = Store(statement.value, statement.annotation, on_class=True)
        if statement.value is not None:
            found.setdefault(statement.target.id, []).append(store)


def _method_stores(method: FunctionNode, found: Stores) -> None:
    """`self.x = ...` in the method (and in functions nested in it that do not bind `self`
    again); `cls.x = ...` in a classmethod. A static method has no receiver."""
    heads = [d.func if isinstance(d, ast.Call) else d for d in method.decorator_list]
    names = {dotted(h) for h in heads}
    if "staticmethod" in names:
        return
    params = [*method.args.posonlyargs, *method.args.args]
    if not params:
        return
    receiver = params[0].arg
    local = frozenset(_parameters(method) | _assigned(method))
    on_class = "classmethod" in names
    for node in _receiver_nodes(method, receiver):
        named = _set_by_name(node, receiver)
        if named is not None:
            found.setdefault(named[0], []).append(Store(named[1], None, local, on_class))
        for target, value, annotation in _targets(node):
            for attr in _attributes_of(target, receiver):
                whole = value if target is attr else None
                found.setdefault(attr.attr, []).append(Store(whole, annotation, local, on_class))


def _receiver_nodes(method: FunctionNode, receiver: str) -> list[ast.AST]:
    """The method's nodes, and those of functions nested in it that do not rebind the
    receiver's name (a nested class's methods have a receiver of their own)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(method.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ClassDef):
            continue
        scope = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if scope and receiver in _parameters_of(node):  # type: ignore[arg-type]
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _set_by_name(node: ast.AST, receiver: str) -> tuple[str, ast.expr] | None:
    """`setattr(self, "x", v)`, `object.__setattr__(self, "x", v)`, `super().__setattr__("x",
    v)`: the name spelled and the value."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    how = dotted(func)
    if how in ("setattr", "object.__setattr__") and len(args) == 3:
        owner, key, value = args
    elif (
        isinstance(func, ast.Attribute)
        and func.attr == "__setattr__"
        and isinstance(func.value, ast.Call)
        and dotted(func.value.func) == "super"
        and len(args) == 2
    ):
        owner, (key, value) = ast.Name(receiver), args
    else:
        return None
    if not (isinstance(owner, ast.Name) and owner.id == receiver):
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value, value
    return None


def _parameters_of(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _targets(node: ast.AST) -> list[tuple[ast.expr, ast.expr | None, ast.expr | None]]:
    """(target, value, annotation) of each binding the node makes; value None when the
    node binds no single value to the target (a loop, a `with`)."""
    if isinstance(node, ast.Assign):
        return [(t, node.value, None) for t in node.targets]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(node.target, node.value, node.annotation)]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(node.target, None, None)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(i.optional_vars, None, None) for i in node.items if i.optional_vars is not None]
    return []


def _attributes_of(target: ast.expr, receiver: str) -> list[ast.Attribute]:
    """The `receiver.x` targets a binding target stores (`self.a, self.b = ...` both)."""
    if isinstance(target, ast.Attribute):
        owner = target.value
        return [target] if isinstance(owner, ast.Name) and owner.id == receiver else []
    if isinstance(target, (ast.Tuple, ast.List)):
        return [a for t in target.elts for a in _attributes_of(t, receiver)]
    if isinstance(target, ast.Starred):
        return _attributes_of(target.value, receiver)
    return []


def module_stores(module: ast.Module, name: str) -> list[Store] | None:
    """Every binding of `name` by the module's top level; None when a function or class of
    the module declares it `global` (it may rebind it when called)."""
    if any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(module)):
        return None
    found: list[Store] = []
    for node in _top_level_nodes(module):
        for target, value, annotation in _targets(node):
            if isinstance(target, ast.Name) and target.id == name:
                found.append(Store(value, annotation))
            elif _binds(target, name):
                found.append(Store(None))
        if _other_binding(node, name):
            found.append(Store(None))
    return found


def _top_level_nodes(module: ast.Module) -> list[ast.AST]:
    """The nodes of the module's own scope: a def or class itself, not what is inside it."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(module.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _binds(target: ast.expr, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(target)
    )


def _other_binding(node: ast.AST, name: str) -> bool:
    """`name` bound at the top level by something else than an assignment: an import, a
    def or a class, `+=`, a walrus."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name).split(".")[0] == name for a in node.names)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.AugAssign, ast.NamedExpr)):
        return _binds(node.target, name)
    return False


def callee(stores: list[Store]) -> str | None:
    """The dotted callee every store's value calls (None values aside), spelled as written;
    None when a store is not such a call, two differ, or the method binds the callee's
    name itself."""
    spelled: set[str | None] = set()
    for store in stores:
        value = store.value
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        if not isinstance(value, ast.Call):
            return None
        name = dotted(value.func)
        if name is None or name.split(".", 1)[0] in store.local:
            return None
        spelled.add(name)
    return spelled.pop() if len(spelled) == 1 else None


def annotation(stores: list[Store]) -> ast.expr | None:
    """The one annotation the stores declare, when every store that has one agrees."""
    found = {ast.dump(s.annotation): s.annotation for s in stores if s.annotation is not None}
    return next(iter(found.values())) if len(found) == 1 else None
