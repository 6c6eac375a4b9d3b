"""One scope of provider code evaluated: a module's top level or a function's body.

What it owns: statements (assignment, `if`, `for`, `try`, `del`, `global`, imports, `def`,
`class`, `return`, `raise`) and expressions (literals, containers, comprehensions, operators,
subscripts, attributes, f-strings) over the values of pyvalues.py. Names and expressions are
expressions.py's (the Frame's base class); calls are calls.py's.

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
from auditor.provider.expressions import MAX_LOOP, Expressions
from auditor.provider.pyvalues import (
    UNKNOWN,
    AnyKey,
    EnumClass,
    Function,
    GlobalsView,
    ModuleFacts,
    NamespaceView,
    Partial,
    Raised,
    Ref,
    Return,
    Stop,
    absolute,
    any_key,
    binop,
    catches,
    dotted,
    hashable,
    is_type_checking,
    iterate,
    merge,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.provider.dynamic import Evaluator


class Frame(Expressions):
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
                self._bind_import(alias.asname, Ref(alias.name, module=True), certain)
            else:
                head = alias.name.split(".", 1)[0]
                self._bind_import(head, Ref(head, module=True), certain)

    def _stmt_ImportFrom(self, node: ast.ImportFrom, certain: bool) -> None:
        base = absolute(node.module or "", node.level, self.facts.package)
        for alias in node.names:
            if alias.name == "*":
                self.facts.star_imported()
                continue
            self._bind_import(alias.asname or alias.name, Ref(f"{base}.{alias.name}"), certain)

    def _bind_import(self, name: str, value: Ref, certain: bool) -> None:
        """An import binds in the frame's scope; one of a `global` name in a function called
        at import time (`global mapped` then `from .impl import mapped`: SQLAlchemy 2.0's
        `orm.collections.__go`) writes the module's namespace, as `globals()[name] = ...`."""
        if name in self.global_names and not self.top:
            self.facts.write(name, value, certain)
        else:
            self.locals[name] = value

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
            self._set_item(target, value, certain)
        elif isinstance(target, ast.Attribute):
            owner = self.value(target.value)
            if isinstance(owner, Ref) and not owner.module:  # `Cls.name = ...`, `cls.name = ...`
                self.ev.class_write(owner.path, target.attr)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, certain=False)

    def _set_item(self, target: ast.Subscript, value: Any, certain: bool) -> None:
        container = self.value(target.value)
        key = self.value(target.slice)
        own = isinstance(container, NamespaceView) and container.path == self.facts.module
        if isinstance(container, GlobalsView) or own:  # `sys.modules[__name__].__dict__[k]`
            self.write(key, value, certain)
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

    def write(self, key: Any, value: Any = UNKNOWN, certain: bool = True) -> None:
        """A name written into the module's namespace at import time: bound to `value`
        as an assignment binds it (a key not known: any name may have been rebound)."""
        if isinstance(key, str):
            self.facts.write(key, value, certain)
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

    def _expr_Call(self, expr: ast.Call) -> Any:
        return calls.call(self, expr, certain=True)
