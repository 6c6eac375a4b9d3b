# Maintainers: the names and expressions of one evaluated scope of provider code.
#
# Owns: `Expressions`, the part of frame.Frame that reads names (the scope's locals, `global`
#       names, the module's top level, `__name__`, builtins; a name imported from another
#       provider module is read there, and a class attribute from its class body) and
#       evaluates expressions over pyvalues.py's values: literals, containers, f-strings,
#       operators, comparisons, subscripts (of `globals()` and module namespaces too),
#       attributes and comprehensions (bounded by MAX_LOOP). Calls are calls.py's, through
#       the Frame. What it cannot follow is UNKNOWN; strict and lenient are Frame's.
# Takes: AST expressions of the Frame's module. Gives: values (pyvalues.py), or UNKNOWN.
"""Names and expressions of one scope (the Frame's expression half)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

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
    Stop,
    Unknowable,
    binop,
    compare,
    dotted,
    flat,
    hashable,
    iterate,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from auditor.provider.dynamic import Evaluator

MAX_LOOP = 10_000
BUILTINS = frozenset(
    {"globals", "vars", "locals", "dir", "getattr", "hasattr", "set", "frozenset", "dict",
     "list", "tuple", "sorted", "len", "str", "isinstance", "any", "all", "setattr",
     "AttributeError",
     "ImportError", "KeyError", "ModuleNotFoundError"}
)  # fmt: skip


class Expressions:
    """The names and expressions of a Frame: what a name or an expression is worth there."""

    if TYPE_CHECKING:  # the Frame's state (frame.py sets it) and the one statement used here
        ev: Evaluator
        facts: ModuleFacts
        locals: dict[str, Any]
        top: bool
        global_names: set[str]

        def assign(self, target: ast.expr, value: Any, certain: bool) -> None: ...

    def ev_function(self, path: str) -> Function | None:
        """The provider function a path names, through the imports that re-export it."""
        found = self.ev_binding(path)
        value = found[0].values.get(found[1]) if found is not None else None
        return value if isinstance(value, Function) else None

    def ev_binding(self, path: str) -> tuple[ModuleFacts, str] | None:
        """The provider module and name where a path's binding is made (not re-exported:
        a def, a class, a value), through the imports that re-export it."""
        for _ in range(8):
            module, _, name = path.rpartition(".")
            if not module or not self.ev.host.owns(path):
                return None
            try:
                facts = self.ev.namespace(module)
            except Stop:
                return None
            if facts is None:
                return None
            value = facts.values.get(name)
            if not isinstance(value, Ref) or value.module or value.path == path:
                return facts, name
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
