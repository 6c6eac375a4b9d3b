"""One scope of provider code evaluated: a module's top level or a function's body.

What it owns: statements (assignment, `if`, `for`, `try`, `del`, `global`, imports, `def`,
`class`, `return`, `raise`) and expressions (literals, containers, comprehensions, operators,
subscripts, attributes, f-strings) over the values of pyvalues.py. Calls are calls.py's.

Two modes. Strict (a function's body, called for its value: a `__getattr__`, a helper):
anything it cannot follow stops the evaluation (Stop: the outcome is Undecided). Lenient (a
module's top level, and a function called there whose body the strict mode could not follow,
run again for what it may do): every branch is taken (a name any of them adds may exist),
the values a `return` may give are kept, and a statement it cannot follow is passed over
after every container it names is made Partial (it may have changed them). What a lenient
run writes is what may be there: a key it adds may exist; one it never adds does not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from auditor.provider import calls
from auditor.provider.pyvalues import (
    UNKNOWN,
    AnyKey,
    EnumClass,
    EnumMember,
    Function,
    GlobalsView,
    ModuleFacts,
    ModuleObject,
    NamespaceView,
    Partial,
    Raised,
    Ref,
    Return,
    Stop,
    Unknowable,
    absolute,
    any_key,
    binop,
    catches,
    compare,
    dotted,
    flat,
    hashable,
    is_type_checking,
    iterate,
    merge,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from auditor.provider.dynamic import Evaluator

MAX_LOOP = 10_000
BUILTINS = frozenset(
    {"globals", "vars", "locals", "dir", "getattr", "hasattr", "set", "frozenset", "dict",
     "list", "tuple", "sorted", "len", "str", "isinstance", "any", "all", "setattr",
     "AttributeError",
     "ImportError", "KeyError", "ModuleNotFoundError"}
)  # fmt: skip


class Frame:
    """Statements and expressions of one scope (a module's top level or a function)."""

    def __init__(
        self,
        evaluator: Evaluator,
        facts: ModuleFacts,
        locals_: dict[str, Any],
        *,
        top: bool,
        depth: int = 0,
        lenient: bool | None = None,
    ) -> None:
        self.ev = evaluator
        self.facts = facts
        self.locals = locals_
        self.top = top
        self.lenient = top if lenient is None else lenient
        self.depth = depth
        self.deprecated: str | None = None
        self.returned: list[Any] = []  # lenient: what its `return` statements may give
        self.global_names: set[str] = set()  # `global x` in a function: x is the module's
        self.mirrored = False  # at the top level, in the `else:` of an `if TYPE_CHECKING:`

    # ------------------------------------------------------------------- statements

    def run_block(self, body: Iterable[ast.stmt], *, certain: bool) -> None:
        for node in body:
            self.ev.tick()
            if not self.lenient:
                self.run(node, certain)
                continue
            try:  # a statement we evaluate wrongly must not stop the rest
                self.run(node, certain)
            except Return as done:
                self.returned.append(done.value)
            except Raised:
                continue

    def run(self, node: ast.stmt, certain: bool) -> None:
        handler = getattr(self, f"_stmt_{type(node).__name__}", None)
        if handler is not None:
            handler(node, certain)
        elif not self.lenient:
            raise Stop(f"a {type(node).__name__} statement is not followed")
        else:
            self.havoc(node)

    def havoc(self, node: ast.AST) -> None:
        """Lenient: a statement or call not followed may change every container it names
        (they become Partial), rebind every name it stores, and add anything to a class."""
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Name):
                continue
            if isinstance(sub.ctx, ast.Store):
                self.assign(sub, UNKNOWN, certain=False)
                continue
            value = self.lookup(sub.id)
            if isinstance(value, (dict, list, set)):
                self.poison(sub)
            elif isinstance(value, Ref) and not value.module:
                self.ev.class_write(value.path, UNKNOWN)

    def _stmt_Pass(self, node: ast.Pass, certain: bool) -> None:
        return

    def _stmt_Assert(self, node: ast.Assert, certain: bool) -> None:
        return  # a check, not an effect (and not run under -O)

    def _stmt_Delete(self, node: ast.Delete, certain: bool) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                self._del_item(target, certain)
            elif isinstance(target, ast.Name):
                scope = self.facts.values if target.id in self.global_names else self.locals
                if certain:
                    scope.pop(target.id, None)
            elif not self.lenient:
                raise Stop("a del statement is not followed")

    def _del_item(self, target: ast.Subscript, certain: bool) -> None:
        """`del d[k]`: k is gone from d. Of a Partial d that may hold k, k is absent after it
        whether it was there or not; the statement may raise KeyError (Raised maybe)."""
        container = self.deref(self.value(target.value))
        key = self.value(target.slice)
        if isinstance(container, GlobalsView):
            return
        known = container.known if isinstance(container, Partial) else container
        if not isinstance(known, dict) or key is UNKNOWN or isinstance(key, (AnyKey, Partial)):
            if not self.lenient:
                raise Stop("a del of an item not known")
            return  # a removal: what may be there still may be
        if not hashable((key,)):
            raise Raised("TypeError")
        if key in known:
            if certain:
                del known[key]
                if isinstance(container, Partial):
                    container.absent = container.absent | {key}
            return
        if isinstance(container, Partial) and key not in container.absent:
            if certain:
                container.absent = container.absent | {key}
            if certain and not self.lenient:
                raise Raised("KeyError", maybe=True)
            return
        raise Raised("KeyError")

    def _stmt_Global(self, node: ast.Global, certain: bool) -> None:
        if not self.top:
            self.global_names.update(node.names)

    def _stmt_Nonlocal(self, node: ast.Nonlocal, certain: bool) -> None:
        return

    def _stmt_FunctionDef(self, node: ast.FunctionDef, certain: bool) -> None:
        self.locals[node.name] = Function(node, self.facts.module, self._closure())
        if self.top and node.name == "__getattr__":
            self.facts.getattr = self.locals[node.name]

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef, certain: bool) -> None:
        bases = {dotted(b) for b in node.bases}
        if any(b and b.rsplit(".", 1)[-1].endswith(("Enum", "Flag")) for b in bases):
            names = [
                t.id
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                for t in stmt.targets
                if isinstance(t, ast.Name) and not t.id.startswith("_")
            ]
            self.locals[node.name] = EnumClass(names)
        else:
            self.locals[node.name] = Ref(f"{self.facts.module}.{node.name}")
        if self.top and node.name == "__getattr__" and node.decorator_list:
            self.facts.getattr = calls.class_getattr_model(self, node)
        if self.top:  # its body's values, for `Cls.NAMES` read in the module's functions
            body = Frame(self.ev, self.facts, {}, top=False, depth=self.depth, lenient=True)
            body.run_block(node.body, certain=True)
            self.facts.class_bodies[node.name] = body.locals

    def _stmt_Import(self, node: ast.Import, certain: bool) -> None:
        for alias in node.names:
            if alias.asname:
                self.locals[alias.asname] = Ref(alias.name, module=True)
            else:
                head = alias.name.split(".", 1)[0]
                self.locals[head] = Ref(head, module=True)

    def _stmt_ImportFrom(self, node: ast.ImportFrom, certain: bool) -> None:
        base = absolute(node.module or "", node.level, self.facts.package)
        for alias in node.names:
            if alias.name == "*":
                continue
            self.locals[alias.asname or alias.name] = Ref(f"{base}.{alias.name}")

    def _stmt_Expr(self, node: ast.Expr, certain: bool) -> None:
        if isinstance(node.value, ast.Call):
            calls.call(self, node.value, certain=certain)
        elif not self.top and not isinstance(node.value, ast.Constant):
            self.value(node.value)

    def _stmt_Return(self, node: ast.Return, certain: bool) -> None:
        raise Return(self.value(node.value) if node.value is not None else None)

    def _stmt_Raise(self, node: ast.Raise, certain: bool) -> None:
        exc = node.exc
        target = exc.func if isinstance(exc, ast.Call) else exc
        name = dotted(target) if target is not None else None  # a bare `raise`: re-raise
        raise Raised((name or "Exception").rsplit(".", 1)[-1])

    def _stmt_Assign(self, node: ast.Assign, certain: bool) -> None:
        if self.top and calls.lazy_assign(self, node):
            return
        value = self.value(node.value)
        for target in node.targets:
            self.assign(target, value, certain)

    def _stmt_AnnAssign(self, node: ast.AnnAssign, certain: bool) -> None:
        if node.value is not None:
            self.assign(node.target, self.value(node.value), certain)

    def _stmt_AugAssign(self, node: ast.AugAssign, certain: bool) -> None:
        if not isinstance(node.target, ast.Name):
            return self.unknown_write(node.target)
        current = self.lookup(node.target.id)
        update = self.deref(self.value(node.value))
        result = binop(node.op, current, update)
        self.locals[node.target.id] = merge(current, result, certain)
        return None

    def _stmt_If(self, node: ast.If, certain: bool) -> None:
        if is_type_checking(node.test):
            saved = self.mirrored
            self.mirrored = self.top
            try:
                self.run_block(node.orelse, certain=certain)
            finally:
                self.mirrored = saved
            return
        test = self.value(node.test)
        if test is UNKNOWN or isinstance(test, (Partial, Ref, AnyKey)):
            if not self.lenient:
                raise Stop(f"the condition `{ast.unparse(node.test)[:80]}` cannot be decided")
            self.run_block(node.body, certain=False)
            self.run_block(node.orelse, certain=False)
        elif test:
            self.run_block(node.body, certain=certain)
        else:
            self.run_block(node.orelse, certain=certain)

    def _stmt_Try(self, node: ast.Try, certain: bool) -> None:
        if self.lenient:  # every branch may run: take them all
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                self._quietly(block)
            return
        try:
            self._try_body(node.body, certain)
        except Raised as raised:
            for handler in node.handlers:
                if catches(handler, raised.name):
                    if handler.name:
                        self.locals[handler.name] = UNKNOWN
                    if raised.maybe:  # it may not have raised: either way may have run
                        for block in (raised.rest, handler.body, node.orelse):
                            self._quietly(block)
                    else:
                        self.run_block(handler.body, certain=certain)
                    break
            else:
                raise
        else:
            self.run_block(node.orelse, certain=certain)
        finally:
            self.run_block(node.finalbody, certain=certain)

    def _try_body(self, body: list[ast.stmt], certain: bool) -> None:
        """A try's body, strictly: a statement that may raise (Raised maybe) carries what of
        the body comes after it; one inside a compound statement cannot be followed."""
        for index, node in enumerate(body):
            self.ev.tick()
            try:
                self.run(node, certain)
            except Raised as raised:
                if raised.maybe and not isinstance(node, (ast.Delete, ast.Expr, ast.Assign)):
                    raise Stop("a statement that may raise, inside a block") from None
                if raised.maybe:
                    raised.rest = body[index + 1 :]
                raise

    def _stmt_With(self, node: ast.With, certain: bool) -> None:
        self.run_block(node.body, certain=certain)

    def _stmt_For(self, node: ast.For, certain: bool) -> None:
        items = self.deref(self.value(node.iter))
        seq = iterate(items)
        if seq is None:
            if not self.lenient:
                raise Stop("a loop over something not known")
            known = iterate(items.known) if isinstance(items, Partial) else None
            for item in known or ():  # what is known is iterated, then any other item
                self.assign(node.target, item, certain=True)  # the loop's own variable
                self._quietly(node.body)
            self._quietly(node.body, unknown_target=node.target, item=any_key(items))
            self._quietly(node.orelse)
            return
        for count, item in enumerate(seq):
            if count >= MAX_LOOP:
                raise Stop("a loop too long to follow")
            self.assign(node.target, item, certain)
            self.run_block(node.body, certain=certain)
        self.run_block(node.orelse, certain=certain)

    def _quietly(
        self, body: list[ast.stmt], unknown_target: ast.expr | None = None, item: Any = UNKNOWN
    ) -> None:
        """Lenient, a branch that may or may not run: its writes count as possible."""
        if unknown_target is not None:  # a loop variable: this item, in this pass
            self.assign(unknown_target, item, certain=True)
        for node in body:
            try:
                self.ev.tick()
                self.run(node, certain=False)
            except Return as done:
                self.returned.append(done.value)
                return
            except Raised:
                return

    # ------------------------------------------------------------------- assignment

    def assign(self, target: ast.expr, value: Any, certain: bool) -> None:
        if isinstance(target, ast.Name):
            scope = self.facts.values if target.id in self.global_names else self.locals
            old = scope.get(target.id, None)
            scope[target.id] = value if certain or old is None else merge(old, value, False)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
            for i, element in enumerate(target.elts):
                self.assign(element, items[i] if items is not None else UNKNOWN, certain)
        elif isinstance(target, ast.Subscript):
            self._set_item(target, value)
        elif isinstance(target, ast.Attribute):
            owner = self.value(target.value)
            if isinstance(owner, Ref) and not owner.module:  # `Cls.name = ...`, `cls.name = ...`
                self.ev.class_write(owner.path, target.attr)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, certain=False)

    def _set_item(self, target: ast.Subscript, value: Any) -> None:
        container = self.value(target.value)
        key = self.value(target.slice)
        if isinstance(container, GlobalsView):
            self.write(key)
            return
        if isinstance(container, Partial):
            if isinstance(container.known, dict) and hashable((key,)) and key in container.absent:
                container.absent = container.absent - {key}
            container = container.known
        if isinstance(container, dict):
            if key is UNKNOWN or isinstance(key, (Partial, Ref, AnyKey)):
                self.poison(target.value)
            else:
                container[key] = value
        elif isinstance(container, Ref) and container.path == "sys.modules":
            return

    def write(self, key: Any) -> None:
        """A name written into the module's namespace at import time."""
        if isinstance(key, str):
            self.facts.written.add(key)
        else:
            self.facts.write_unknown(key.absent if isinstance(key, AnyKey) else frozenset())

    def poison(self, expr: ast.expr, absent: frozenset[Any] = frozenset()) -> None:
        """A container got an entry whose key is not known (but none of `absent`): it becomes
        Partial, under every name this scope and its module bind to it."""
        if not isinstance(expr, ast.Name):
            return
        current = self.lookup(expr.id)
        if isinstance(current, Partial):
            current.absent = frozenset(a for a in current.absent if a in absent)
            return
        if not isinstance(current, (dict, list, set)):
            return
        known = frozenset(current) if hashable(current) else frozenset()
        replacement = Partial(current, frozenset(a for a in absent if a not in known))
        for scope in (self.locals, self.facts.values):
            for name, value in list(scope.items()):
                if value is current:
                    scope[name] = replacement

    def unknown_write(self, target: ast.expr) -> None:
        if isinstance(target, ast.Subscript):
            self.poison(target.value)

    def ev_function(self, path: str) -> Function | None:
        """The provider function a path names, through the imports that re-export it."""
        for _ in range(8):
            module, _, name = path.rpartition(".")
            if not module or not self.ev.host.owns(path):
                return None
            try:
                facts = self.ev.namespace(module)
            except Stop:
                return None
            value = facts.values.get(name) if facts is not None else None
            if not isinstance(value, Ref) or value.module or value.path == path:
                return value if isinstance(value, Function) else None
            path = value.path
        return None

    # ------------------------------------------------------------------- names

    def _closure(self) -> dict[str, Any]:
        return {} if self.top else dict(self.locals)

    def lookup(self, name: str) -> Any:
        if name in self.locals and name not in self.global_names:
            return self.locals[name]
        if name in self.facts.values:
            return self.facts.values[name]
        if name in ("__name__", "__package__"):
            return self.facts.module if name == "__name__" else self.facts.package
        if name in BUILTINS:
            return Ref(f"builtins.{name}")
        return UNKNOWN

    def deref(self, value: Any) -> Any:
        """A name imported from another provider module (`from ._expired import
        __former_attrs__`): its value there, when that module's top level gives one."""
        if not isinstance(value, Ref) or value.module or not self.ev.host.owns(value.path):
            return value
        module, _, name = value.path.rpartition(".")
        try:
            facts = self.ev.namespace(module) if module != self.facts.module else None
        except Stop:
            return value
        found = facts.values.get(name) if facts is not None else None
        if found is None:
            found = self._class_attribute(module, name)
        if found is None or isinstance(found, (Ref, Function, EnumClass)) or found is UNKNOWN:
            return value
        return found

    def _class_attribute(self, owner: str, name: str) -> Any:
        """`pkg.mod.Cls.name`: what the class body of a provider module binds `name` to."""
        module, _, cls = owner.rpartition(".")
        if not module or not self.ev.host.owns(module):
            return None
        try:
            facts = self.facts if module == self.facts.module else self.ev.namespace(module)
        except Stop:
            return None
        body = facts.class_bodies.get(cls) if facts is not None else None
        return body.get(name) if body is not None else None

    def canonical(self, expr: ast.expr) -> str | None:
        """The dotted path an expression names, through this module's imports."""
        spelled = dotted(expr)
        if spelled is None:
            return None
        head, _, rest = spelled.partition(".")
        bound = self.lookup(head)
        if isinstance(bound, Ref):
            return f"{bound.path}.{rest}" if rest else bound.path
        return spelled

    # ------------------------------------------------------------------- expressions

    def value(self, expr: ast.expr | None) -> Any:
        if expr is None:
            return None
        self.ev.tick()
        handler = getattr(self, f"_expr_{type(expr).__name__}", None)
        if handler is None:
            return UNKNOWN
        return handler(expr)

    def _expr_Constant(self, expr: ast.Constant) -> Any:
        return expr.value

    def _expr_Name(self, expr: ast.Name) -> Any:
        return self.lookup(expr.id)

    def _expr_JoinedStr(self, expr: ast.JoinedStr) -> Any:
        parts = []
        for piece in expr.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
            elif isinstance(piece, ast.FormattedValue):
                value = self.value(piece.value)
                if not isinstance(value, (str, int)) or piece.format_spec is not None:
                    return UNKNOWN
                parts.append(repr(value) if piece.conversion == ord("r") else str(value))
        return "".join(parts)

    def _expr_Tuple(self, expr: ast.Tuple) -> Any:
        return self._sequence(expr.elts)

    def _expr_List(self, expr: ast.List) -> Any:
        items = self._sequence(expr.elts)
        return list(items) if isinstance(items, tuple) else items

    def _expr_Set(self, expr: ast.Set) -> Any:
        items = self._sequence(expr.elts)
        return set(items) if isinstance(items, tuple) and hashable(items) else UNKNOWN

    def _sequence(self, elements: list[ast.expr]) -> Any:
        out: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                inner = iterate(self.value(element.value))
                if inner is None:
                    return UNKNOWN
                out.extend(inner)
            else:
                out.append(self.value(element))
        return tuple(out)

    def _expr_Dict(self, expr: ast.Dict) -> Any:
        out: dict[Any, Any] = {}
        partial = False
        for key, value in zip(expr.keys, expr.values, strict=True):
            if key is None:  # {**other}
                other = self.value(value)
                if isinstance(other, Partial):
                    partial, other = True, other.known
                if not isinstance(other, dict):
                    return UNKNOWN
                out.update(other)
                continue
            k = self.value(key)
            if k is UNKNOWN or not hashable((k,)):
                partial = True
                continue
            out[k] = self.value(value)
        return Partial(out) if partial else out

    def _expr_BinOp(self, expr: ast.BinOp) -> Any:
        return binop(expr.op, self.deref(self.value(expr.left)), self.deref(self.value(expr.right)))

    def _expr_BoolOp(self, expr: ast.BoolOp) -> Any:
        result: Any = None
        for operand in expr.values:
            result = self.value(operand)
            if result is UNKNOWN or isinstance(result, (Partial, Ref)):
                return UNKNOWN
            if isinstance(expr.op, ast.And) and not result:
                return result
            if isinstance(expr.op, ast.Or) and result:
                return result
        return result

    def _expr_UnaryOp(self, expr: ast.UnaryOp) -> Any:
        operand = self.value(expr.operand)
        if isinstance(expr.op, ast.Not):
            return (
                UNKNOWN
                if operand is UNKNOWN or isinstance(operand, (Partial, Ref))
                else not operand
            )
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            if isinstance(expr.op, ast.USub):
                return -operand
            if isinstance(expr.op, ast.UAdd):
                return operand
        return UNKNOWN

    def _expr_Compare(self, expr: ast.Compare) -> Any:
        left = self.deref(self.value(expr.left))
        for op, right_expr in zip(expr.ops, expr.comparators, strict=True):
            right = self.deref(self.value(right_expr))
            if isinstance(right, NamespaceView) and isinstance(op, (ast.In, ast.NotIn)):
                inside = self._in_namespace(right, left) if isinstance(left, str) else UNKNOWN
                result = inside if inside is UNKNOWN or isinstance(op, ast.In) else not inside
            else:
                result = compare(op, left, right)
            if result is UNKNOWN or not result:
                return result
            left = right
        return True

    def _expr_Subscript(self, expr: ast.Subscript) -> Any:
        container = self.deref(self.value(expr.value))
        key = self.value(expr.slice)
        if isinstance(container, GlobalsView):
            if isinstance(key, str):
                return self.global_value(key)
            return UNKNOWN
        if isinstance(container, Ref) and container.path == "sys.modules" and isinstance(key, str):
            return ModuleObject(key) if self.ev.host.owns(key) else UNKNOWN
        if isinstance(container, NamespaceView) and isinstance(key, str):
            inside = self._in_namespace(container, key)
            if inside is UNKNOWN:
                return UNKNOWN
            if not inside:
                raise Raised("KeyError")
            return Ref(f"{container.path}.{key}")
        if isinstance(key, AnyKey):
            return UNKNOWN
        partial = isinstance(container, Partial)
        known = container.known if partial else container
        if isinstance(known, dict) and key is not UNKNOWN and hashable((key,)):
            if key in known:
                return known[key]
            if isinstance(container, Partial) and key not in container.absent:
                return UNKNOWN
            raise Raised("KeyError")
        if isinstance(known, (tuple, list, str)) and isinstance(key, int):
            try:
                return known[key]
            except IndexError:
                raise Raised("IndexError") from None
        return UNKNOWN

    def global_value(self, key: str) -> Any:
        if key.startswith("__") and key.endswith("__"):
            return UNKNOWN  # __file__, __spec__...: set by the import system
        if key in self.facts.values:
            value = self.facts.values[key]
            if isinstance(value, Function):
                return Ref(f"{self.facts.module}.{key}")
            return value
        if key in self.facts.written or self.facts.may_write(key):
            return UNKNOWN
        raise Raised("KeyError")

    def _in_namespace(self, namespace: NamespaceView, name: str) -> Any:
        """Whether a provider module's namespace has `name` (UNKNOWN when not decidable)."""
        self.ev.read(namespace.path)
        names = self.ev.host.member_names(namespace.path)
        if names is None:
            return UNKNOWN
        if name in names:
            return True
        try:
            facts = self.ev.facts(namespace.path)
        except Stop:
            return UNKNOWN
        if facts is not None and (name in facts.written or facts.may_write(name)):
            return True if name in facts.written else UNKNOWN
        return False

    def _expr_Attribute(self, expr: ast.Attribute) -> Any:
        owner = self.value(expr.value)
        if isinstance(owner, ModuleObject):
            return (
                NamespaceView(owner.path)
                if expr.attr == "__dict__"
                else Ref(f"{owner.path}.{expr.attr}")
            )
        if isinstance(owner, Ref):
            return Ref(f"{owner.path}.{expr.attr}")
        if isinstance(owner, EnumMember) and expr.attr in ("name", "_name_"):
            return owner.name
        if isinstance(owner, (str, dict, list, tuple, set, Partial, GlobalsView)):
            return ("method", owner, expr.attr)
        return UNKNOWN

    def _expr_ListComp(self, expr: ast.ListComp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN else list(items)

    def _expr_SetComp(self, expr: ast.SetComp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN or not hashable(items) else set(items)

    def _expr_GeneratorExp(self, expr: ast.GeneratorExp) -> Any:
        items = self._comprehension(expr.generators, lambda: [self.value(expr.elt)])
        return items if items is UNKNOWN else tuple(items)

    def _expr_DictComp(self, expr: ast.DictComp) -> Any:
        pairs = self._comprehension(
            expr.generators,
            lambda: [(self.value(expr.key), self.value(expr.value))],
            known=lambda produced: all(key is not UNKNOWN for key, _ in produced),
        )  # a value not known is kept (membership needs only the keys)
        if pairs is UNKNOWN or not hashable(tuple(k for k, _ in pairs)):
            return UNKNOWN
        return dict(pairs)

    def _comprehension(
        self, generators: list[ast.comprehension], produce: Any, known: Any = None
    ) -> Any:
        saved = dict(self.locals)
        known = known or (lambda produced: not any(v is UNKNOWN for v in flat(produced)))
        try:
            return list(self._generate(generators, produce, known))
        except Unknowable:
            return UNKNOWN
        finally:
            self.locals.clear()
            self.locals.update(saved)

    def _generate(
        self, generators: list[ast.comprehension], produce: Any, known: Any
    ) -> Iterator[Any]:
        first, rest = generators[0], generators[1:]
        seq = iterate(self.value(first.iter))
        if seq is None:
            raise Unknowable
        for count, item in enumerate(seq):
            if count >= MAX_LOOP:
                raise Unknowable
            self.assign(first.target, item, certain=True)
            conditions = [self.value(c) for c in first.ifs]
            if any(c is UNKNOWN for c in conditions):
                raise Unknowable
            if not all(conditions):
                continue
            if rest:
                yield from self._generate(rest, produce, known)
            else:
                values = produce()
                if not known(values):
                    raise Unknowable
                yield from values

    def _expr_Call(self, expr: ast.Call) -> Any:
        return calls.call(self, expr, certain=True)
