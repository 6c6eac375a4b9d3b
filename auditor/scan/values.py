# Maintainers: what a consumer name, expression or annotation holds, as far as the source shows.
#
# Owns: `Value` (a provider target such as `vllm.x.Scheduler()`, an instance of a consumer
# class, or a consumer Definition itself) and `Values`, which answers, once every file has
# been walked: what a local variable holds (all its stores must agree), what `self.x` holds
# (every store into `x` in the class, its consumer bases and its consumer subclasses must
# agree; class-body names, `x: T` declarations and `obj.x = ...` on an object known to be
# one of them count), what an annotation names (`Optional[T]`, `T | None`,
# `Annotated[T, ...]`, `"T"` and a generic `T[int]` are T), what a consumer function returns
# (its return annotation), and what `.attr` and `(...)` do to a value (`__dunder__` and
# `__private` attributes are not followed).
# Takes: every file's facts (or each as the Resolver reads it in) and the Resolver. Gives:
# values to instances.py and classes.py.
#
# Never guess: a store we cannot read (`for x in`, unpacking, an unknown call), two stores
# that disagree, an `async def`, an unknown decorator, an `@overload` set: no value.
# Assigning `None` is neutral: `x = None` then `x = Scheduler()` holds a Scheduler wherever
# `x.m()` can run at all (on None it fails whatever the provider does).
# A consumer subclass of a provider class reaches the provider for a member it neither
# defines nor stores anywhere in its family (`P().m`), unless the family has `__getattr__`.
from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from auditor.provider.paths import PARAMETER
from auditor.scan.calls import dotted_chain, reference
from auditor.scan.facts import CALLED, EACH, ITEM, OPS
from auditor.scan.scopes import SourceKind, is_plain_variable
from auditor.scan.source import module_name

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from auditor.scan.facts import AttrStore, FileFacts, FunctionFacts, Reference
    from auditor.scan.resolve import Resolver
    from auditor.scan.scopes import Binding, Scope, Source

# Decorators after which a function still returns what its annotation says.
RETURN_KEEPING = frozenset(
    {
        "staticmethod",
        "classmethod",
        "abc.abstractmethod",
        "typing.final",
        "typing_extensions.final",
        "typing.override",
        "typing_extensions.override",
        "typing.no_type_check",
        "functools.cache",
        "functools.lru_cache",
        "typing_extensions.deprecated",
        "warnings.deprecated",
        "torch.inference_mode",
        "torch.no_grad",
    }
)
PROPERTY = frozenset({"property", "functools.cached_property"})
_TYPING = ("typing.", "typing_extensions.")
_FIRST_ARGUMENT = frozenset(
    {"Optional", "Final", "ClassVar", "Annotated", "Required", "NotRequired", "ReadOnly"}
)
_DYNAMIC = ("__getattr__", "__getattribute__")


class ValueKind(Enum):
    PROVIDER = "provider"  # path: a provider target, `()` parts included (`vllm.x.S().m`)
    INSTANCE = "instance"  # path: a consumer class; the value is one of its instances
    DEF = "def"  # path: a consumer Definition itself (module, class, function, method)


@dataclass(frozen=True, slots=True)
class Value:
    kind: ValueKind
    path: str
    guarded: bool = False  # made under a guard, or from an import with alternatives

    def same(self, other: Value) -> bool:
        return self.kind is other.kind and self.path == other.path


def _typing_name(path: str) -> str | None:
    for prefix in _TYPING:
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _accessor(function: FunctionFacts) -> bool:
    """`@x.setter` / `@x.deleter`: not the getter a read goes through."""
    for decorator in function.decorators:
        node = decorator.node
        chain = dotted_chain(node) if node is not None else None
        if chain is not None and len(chain) == 2 and chain[1] in ("setter", "deleter"):
            return True
    return False


class Values:
    """What consumer names and expressions hold; see the comment block above."""

    def __init__(
        self,
        files: Sequence[FileFacts],
        resolver: Resolver,
        others: dict[str, list[str]] | None = None,
    ) -> None:
        """Every file's facts in `files`; or, with `others` (an edited scan, consumer.py),
        each file's as the Resolver reads it in (add(), add_stores()), `others` naming the
        files whose `obj.attr = ...` stores count for each attribute (other_files)."""
        self._r = resolver
        self._functions: dict[str, list[FunctionFacts]] = {}
        self._function_order: dict[str, list[int]] = {}  # the index of each one's file
        self._names: dict[tuple[int, str], list[Source | None]] = {}  # (id(scope), name)
        self._self_stores: dict[str, dict[str, list[Source | None]]] = {}
        self._other_stores: dict[str, list[AttrStore]] = {}  # attr -> `obj.attr = ...`
        self._others = others
        self._files: dict[str, FileFacts] = {}
        self.other_files: dict[str, list[str]] = {}  # attr -> the files of its other stores
        self._memo: dict[object, Value | None] = {}
        self._members: dict[tuple[ValueKind, str, str], tuple[Value | None, bool]] = {}
        self._active: set[object] = set()
        self._decorators: dict[int, tuple[str, ...]] = {}
        self._parsed: dict[str, ast.expr | None] = {}
        self._families: dict[tuple[str, bool], tuple[tuple[str, ...], list[Scope]]] = {}
        for index, facts in enumerate(files):
            self.add(facts, index)
        for facts in files:
            for store in facts.attr_stores:
                binding = resolver.lookup(store.scope, store.root)
                if binding is not None and binding.instance:
                    attrs = self._self_stores.setdefault(binding.paths[0], {})
                    attrs.setdefault(store.attr, []).append(store.source)
                elif binding is None or resolver.may_matter(binding):
                    self._other_stores.setdefault(store.attr, []).append(store)
                    seen = self.other_files.setdefault(store.attr, [])
                    if not seen or seen[-1] != facts.path:
                        seen.append(facts.path)

    def add(self, facts: FileFacts, index: int) -> None:
        """One file's functions and name stores (the `index`-th file of the consumer)."""
        self._files[facts.path] = facts
        for function in facts.functions:
            order = self._function_order.setdefault(function.path, [])
            at = bisect.bisect_right(order, index)
            order.insert(at, index)
            self._functions.setdefault(function.path, []).insert(at, function)
        for named in facts.name_stores:
            self._names.setdefault((id(named.scope), named.name), []).append(named.source)

    def add_stores(self, facts: FileFacts) -> None:
        """One file's stores into `self.x` (read in after add(): they may look names up)."""
        for store in facts.attr_stores:
            binding = self._r.lookup(store.scope, store.root)
            if binding is not None and binding.instance:
                attrs = self._self_stores.setdefault(binding.paths[0], {})
                attrs.setdefault(store.attr, []).append(store.source)

    def _self_of(self, cls: str) -> dict[str, list[Source | None]]:
        self._r.need_prefixes(cls)
        return self._self_stores.get(cls, {})

    def _functions_of(self, path: str) -> list[FunctionFacts]:
        self._r.need_prefixes(path)
        return self._functions.get(path, [])

    def _other_stores_of(self, attr: str) -> list[AttrStore]:
        if self._others is None or attr in self._other_stores:
            return self._other_stores.get(attr, [])
        found: list[AttrStore] = []
        for path in self._others.get(attr, ()):
            self._r.need_prefixes(module_name(path))
            for store in self._files[path].attr_stores if path in self._files else ():
                if store.attr != attr:
                    continue
                binding = self._r.lookup(store.scope, store.root)
                if binding is None or (not binding.instance and self._r.may_matter(binding)):
                    found.append(store)
        self._other_stores[attr] = found
        return found

    # ------------------------------------------------------------------ entry points

    def start(
        self, scope: Scope, root: str, binding: Binding | None, steps: tuple[str, ...]
    ) -> tuple[Value | None, tuple[str, ...]]:
        """The value of `root` (plus the leading steps a path can name) and the steps left."""
        if binding is None:
            return self.variable(scope, root), steps
        if binding.instance:
            return Value(ValueKind.INSTANCE, binding.paths[0]), steps
        cut = next((i for i, step in enumerate(steps) if step in OPS), len(steps))
        value, rest = self._path(self._r.expand(binding, steps[:cut]))
        return value, rest + steps[cut:]

    def expression(self, scope: Scope, expr: ast.expr) -> Value | None:
        found = reference(expr)
        return self.reference(scope, found) if found is not None else None

    def reference(self, scope: Scope, ref: Reference) -> Value | None:
        """What a name or chain (calls.reference()) read in `scope` holds."""
        root, steps = ref
        value, rest = self.start(scope, root, self._r.lookup(scope, root), steps)
        return self.follow(value, rest)

    def follow(self, value: Value | None, steps: Iterable[str]) -> Value | None:
        for step in steps:
            if value is None:
                return None
            value = self.step(value, step)
        return value

    def step(self, value: Value, step: str) -> Value | None:
        """One step of a chain: a call, an item, or an attribute."""
        if step == CALLED:
            return self.call(value)
        if step == ITEM:
            return self.item(value)
        return self.member(value, step)[0]

    def item(self, value: Value, marker: str = ITEM) -> Value | None:
        """`value[k]` (ITEM), or an element of `for x in value` (EACH): for a provider value,
        what its annotation gives (the provider decides: `vllm.x.S().params[*]`)."""
        if value.kind is ValueKind.PROVIDER and not value.path.endswith((ITEM, EACH)):
            return replace(value, path=value.path + marker)
        return None

    def variable(self, scope: Scope, name: str) -> Value | None:
        """What a plain local (or module-level) variable holds, read in `scope`."""
        key = ("read", id(scope), name)
        if key in self._memo:
            return self._memo[key]
        owner = self._r.variable_scope(scope, name)
        value = None
        if owner is not None:
            value = self._once(
                ("var", id(owner), name),
                lambda: self._combine(self._stores(owner, name)),
            )
        if ("var", id(owner), name) not in self._active:
            self._memo[key] = value
        return value

    # ------------------------------------------------------------------ steps

    def member(self, value: Value, name: str) -> tuple[Value | None, bool]:
        """`value.name`, and whether the lookup happens in the provider.

        `__dunder__` attributes come from `object` and `type`, `__private` ones are mangled:
        neither is followed.
        """
        if name.startswith("__"):
            return None, False
        if value.kind is ValueKind.PROVIDER:
            return replace(value, path=f"{value.path}.{name}"), True
        key = (value.kind, value.path, name)
        found = self._members.get(key)
        if found is None:
            self._members[key] = (None, False)  # a cycle ends here
            found = self._members[key] = self._member(value, name)
        result, in_provider = found
        if result is None:
            return None, False
        return replace(result, guarded=result.guarded or value.guarded), in_provider

    def call(self, value: Value) -> Value | None:
        """`value(...)`: a provider call, a consumer constructor or function."""
        if value.kind is ValueKind.PROVIDER:
            if value.path.endswith(CALLED):
                return None  # calling what a call returned: not followed
            return replace(value, path=value.path + CALLED)
        if value.kind is ValueKind.DEF:
            if self._r.is_class(value.path):
                return Value(ValueKind.INSTANCE, value.path, value.guarded)
            return self.returns(value.path)
        return None

    def returns(self, path: str, *, accessor: bool = False) -> Value | None:
        """What calling the consumer function `path` returns (or reading a property)."""
        functions = [f for f in self._functions_of(path) if not _accessor(f)]
        if len(functions) != 1:
            return None  # an @overload set, or defined twice
        function = functions[0]
        if function.is_async or function.returns is None:
            return None
        keeping = RETURN_KEEPING | PROPERTY if accessor else RETURN_KEEPING
        if not set(self.decorators(function)) <= keeping:
            return None
        return self.annotation(function.scope, function.returns.node)

    def decorators(self, function: FunctionFacts) -> tuple[str, ...]:
        """Dotted paths of a function's decorators (`?` for one that cannot be named)."""
        key = id(function)
        found = self._decorators.get(key)
        if found is None:
            found = tuple(
                (self._static(function.scope, d) if d is not None else None) or "?"
                for d in self._heads(function)
            )
            self._decorators[key] = found
        return found

    @staticmethod
    def _heads(function: FunctionFacts) -> list[ast.expr | None]:
        nodes = [d.node for d in function.decorators]
        return [d.func if isinstance(d, ast.Call) else d for d in nodes]

    # ------------------------------------------------------------------ annotations

    def annotation(self, scope: Scope, expr: ast.expr | None) -> Value | None:
        """An instance of what annotation `expr` names, if it names one class."""
        if expr is None:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = self._parse(expr.value)
            return None if parsed is None else self.annotation(scope, parsed)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return self._union(scope, [expr.left, expr.right])
        if isinstance(expr, ast.Subscript):
            return self._generic(scope, expr)
        path = self._static(scope, expr)
        return self._instance_of(path) if path is not None else None

    def _generic(self, scope: Scope, expr: ast.Subscript) -> Value | None:
        origin = self._static(scope, expr.value)
        name = _typing_name(origin) if origin is not None else None
        args = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if name in _FIRST_ARGUMENT:
            return self.annotation(scope, args[0])
        if name == "Union":
            return self._union(scope, args)
        if (name == "Type" or origin == "type") and len(args) == 1:
            path = self._static(scope, args[0])
            return self._class_of(path) if path is not None else None
        if origin is not None and name is None:
            return self._instance_of(origin)  # `Scheduler[int]`; `list[...]` is no class of ours
        return None

    def _union(self, scope: Scope, members: list[ast.expr]) -> Value | None:
        flat: list[ast.expr] = []
        while members:
            member = members.pop()
            if isinstance(member, ast.BinOp) and isinstance(member.op, ast.BitOr):
                members += [member.left, member.right]
            elif not (_is_none(member) or (isinstance(member, ast.Name) and member.id == "None")):
                flat.append(member)
        return self.annotation(scope, flat[0]) if len(flat) == 1 else None

    def _parse(self, text: str) -> ast.expr | None:
        if text not in self._parsed:
            try:
                self._parsed[text] = ast.parse(text.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                self._parsed[text] = None
        return self._parsed[text]

    def _static(self, scope: Scope, expr: ast.expr) -> str | None:
        """The dotted path a plain chain names; an unbound name (a builtin) as written."""
        chain = dotted_chain(expr)
        if chain is None:
            return None
        binding = self._r.lookup(scope, chain[0])
        if binding is None:
            if self._r.variable_scope(scope, chain[0]) is not None:
                return None
            return ".".join(chain)
        if binding.instance:
            return None
        paths = self._r.expand(binding, chain[1:])
        return paths[0] if len(paths) == 1 or self._r.is_provider(paths[0]) else None

    def _instance_of(self, path: str) -> Value | None:
        if self._r.is_provider(path):
            return Value(ValueKind.PROVIDER, path + CALLED)
        if self._r.is_class(path):
            return Value(ValueKind.INSTANCE, path)
        return None

    def _class_of(self, path: str) -> Value | None:
        if self._r.is_provider(path):
            return Value(ValueKind.PROVIDER, path)
        return Value(ValueKind.DEF, path) if self._r.is_class(path) else None

    # ------------------------------------------------------------------ paths and stores

    def _path(self, paths: tuple[str, ...]) -> tuple[Value | None, tuple[str, ...]]:
        """A value for absolute candidate paths: a provider path, or the longest consumer
        Definition they start with and the parts left over."""
        provider = [p for p in paths if self._r.is_provider(p)]
        if provider:
            return Value(ValueKind.PROVIDER, provider[0], len(provider) < len(paths)), ()
        if len(paths) != 1:
            return None, ()
        parts = paths[0].split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            if prefix in self._r.definitions:
                return Value(ValueKind.DEF, prefix), tuple(parts[i:])
        return None, ()

    def store_count(self, scope: Scope, name: str) -> int:
        """How many stores bind `name` in `scope` (a parameter is one)."""
        return len(self._stores(scope, name))

    def _stores(self, scope: Scope, name: str) -> list[Source | None]:
        return self._names.get((id(scope), name), [])

    def _combine(self, sources: Iterable[Source | None]) -> Value | None:
        """The one value every store agrees on (stores of `None` aside), else None."""
        values: list[Value] = []
        for source in sources:
            if source is None:
                return None
            if source.kind is SourceKind.VALUE and source.none:
                continue
            value = self._read(source)
            if value is None or (values and not value.same(values[0])):
                return None
            values.append(replace(value, guarded=value.guarded or source.guarded))
        if not values:
            return None
        return replace(values[0], guarded=any(v.guarded for v in values))

    def _read(self, source: Source) -> Value | None:
        if source.kind is SourceKind.ANNOTATION:
            assert source.annotation is not None
            return self.annotation(source.scope, source.annotation.node)
        if source.kind is SourceKind.OVERRIDDEN:
            return self._overridden(source)
        found = source.reference
        if found is None:
            return None  # neither a name nor a chain: nothing we follow
        if source.kind is SourceKind.ELEMENT:
            iterable = self.reference(source.scope, found)
            return self.item(iterable, EACH) if iterable is not None else None
        return self.reference(source.scope, found)

    def _overridden(self, source: Source) -> Value | None:
        """An unannotated parameter of a consumer method that overrides a method of its
        first provider base (no consumer base defines it): what the provider's method
        declares for the parameter of that name (`Base().on_end.@trainer`, resolved by the
        provider, which passes it)."""
        cls, found = source.scope.method_of, source.reference
        if cls is None or found is None or len(found[1]) != 1:
            return None
        method, (param,) = found
        if any(self._r.class_member(b, method, frozenset()) for b in self._r.ancestors(cls)[1:]):
            return None  # a consumer base's method is what it overrides
        base = self._r.first_provider(cls)
        if base is None:
            return None
        return Value(ValueKind.PROVIDER, f"{base}{CALLED}.{method}.{PARAMETER}{param}")

    def _once(self, key: object, compute: Callable[[], Value | None]) -> Value | None:
        if key in self._memo:
            return self._memo[key]
        if key in self._active:
            return None  # `x = x.parent` and the like
        self._active.add(key)
        try:
            value = compute()
        finally:
            self._active.discard(key)
        self._memo[key] = value
        return value

    # ------------------------------------------------------------------ members

    def _member(self, value: Value, name: str) -> tuple[Value | None, bool]:
        if value.kind is ValueKind.INSTANCE:
            return self._class_member(value.path, name, instance=True)
        if self._r.is_class(value.path):
            return self._class_member(value.path, name, instance=False)
        scope = self._r.module_scope(value.path)
        if scope is None:
            return None, False  # an attribute of a function
        if is_plain_variable(scope, name):
            return self.variable(scope, name), False
        found, rest = self._path(self._r.resolve_path(f"{value.path}.{name}"))
        if found is None or (found.path == value.path and rest == (name,)):
            return None, False
        return self.follow(found, rest), False

    def _class_member(self, cls: str, name: str, *, instance: bool) -> tuple[Value | None, bool]:
        """`obj.name` on an instance of consumer class `cls` (or `cls.name`).

        An instance may belong to a subclass, so its family is its consumer bases and its
        consumer subclasses; a class attribute comes from the bases only.
        """
        family, bodies = self._family(cls, instance)
        method = self._r.class_member(cls, name, frozenset())
        stores = [s for c in family for s in self._self_of(c).get(name, ())]
        stores += self._stores_from_outside(family, name)
        if method is not None:
            return (None if stores else self._method(method, instance=instance)), False
        if stores and not instance:
            return None, False  # set on instances only: not a class attribute we can read
        if any(name in b.defs or name in b.imports for b in bodies):
            return None, False  # a subclass's method, a nested class, an import: not followed
        if stores or any(name in b.stores for b in bodies):
            sources = [*(s for b in bodies for s in self._stores(b, name)), *stores]
            return self._combine(sources), False
        if any(dynamic in b.defs for b in bodies for dynamic in _DYNAMIC):
            return None, False
        base = self._r.first_provider(cls)
        if base is None:
            return None, False
        owner = base + CALLED if instance else base
        return Value(ValueKind.PROVIDER, f"{owner}.{name}"), True

    def _stores_from_outside(self, family: tuple[str, ...], name: str) -> list[Source | None]:
        """`gen.x = ...` where `gen` holds an instance (or is a class) of the family."""
        out: list[Source | None] = []
        for store in self._other_stores_of(name):
            owner = self.reference(store.scope, (store.root, ()))
            if owner is not None and owner.kind is not ValueKind.PROVIDER and owner.path in family:
                out.append(store.source)
        return out

    def _method(self, path: str, *, instance: bool) -> Value | None:
        functions = self._functions_of(path)
        if instance and any(set(self.decorators(f)) & PROPERTY for f in functions):
            return self.returns(path, accessor=True)
        return Value(ValueKind.DEF, path)

    def _family(self, cls: str, instance: bool) -> tuple[tuple[str, ...], list[Scope]]:
        """The classes whose members an instance (or the class) may show, and their bodies."""
        key = (cls, instance)
        found = self._families.get(key)
        if found is None:
            family = self._r.ancestors(cls)
            if instance:
                family += self._r.subclasses(cls)
            facts = (self._r.class_facts(c) for c in family)
            bodies = [f.body for f in facts if f is not None and f.body is not None]
            found = self._families[key] = (family, bodies)
        return found
