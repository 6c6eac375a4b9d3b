"""The values the namespace evaluator computes with, and the pure operations on them.

What it owns: the evaluator's value model (a Python value when it is known, `UNKNOWN` when
not, `Partial` for a container some of whose contents are not known, `Ref` for a named
object, the views of a module's namespace) and what Python's operators, comparisons,
conversions and argument binding do to such values, never guessing: an operation on
something not known is `UNKNOWN`. Also the small AST readers the evaluator shares. Plain data
and pure functions; no I/O.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

MAX_VALUE = 1_000_000  # items or characters: a bigger value is UNKNOWN
WIDE_FORMAT = re.compile(r"%[-+ #0]*(?:\d|\*)|%\.")  # `%999999d`, `%*d`, `%.9f`
FORMAT_SPEC = re.compile(r"\{[^{}]*[:!.\[][^{}]*\}")  # `{:>99999}`, `{0!r}`, `{0.attr}`


class _Unknown:
    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_UNBOUND = object()  # a name the namespace does not hold


@dataclass
class Ref:
    """A reference to a named object: a provider path (or an external one)."""

    path: str
    module: bool = False


@dataclass
class Partial:
    """A container some of whose contents are not known: `known` is what is; `absent`, keys
    (items) it certainly does not hold (`del d[k]` took them out)."""

    known: Any
    absent: frozenset[Any] = frozenset()


@dataclass(frozen=True)
class AnyKey:
    """An item of a Partial container that is not known, except that it is none of `absent`
    (the loop variable of `for k in d:` over what is not known of d)."""

    absent: frozenset[Any]


@dataclass
class EnumClass:
    names: list[str]


@dataclass
class EnumMember:
    name: str


@dataclass
class Function:
    """A function defined in a provider module, with its closure when a factory made it."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    module: str
    closure: dict[str, Any] = field(default_factory=dict)


class GlobalsView:
    """What `globals()` / `vars()` gives inside the module's own code."""


@dataclass
class ModuleObject:
    """`sys.modules[name]` for a provider module named by a known string."""

    path: str


@dataclass
class NamespaceView:
    """`sys.modules[name].__dict__`: a provider module's names (griffe's members, and what
    its top level writes into its namespace)."""

    path: str


class Raised(Exception):
    """An exception the evaluated code raises; `maybe`: it may raise it or not (`del d[k]` of
    a key a Partial d may hold), and then `rest` is what of the block may have run after."""

    def __init__(self, name: str, message: str = "", *, maybe: bool = False) -> None:
        super().__init__(name)
        self.name = name
        self.message = message
        self.maybe = maybe
        self.rest: list[ast.stmt] = []


class Stop(Exception):
    """The evaluation cannot go on: the outcome is Undecided."""


class Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__("return")
        self.value = value


class Unknowable(Exception):
    pass


@dataclass
class ModuleFacts:
    """What evaluating a module's top level tells: its values, dynamic names, getattr."""

    module: str
    package: str  # the package relative imports start from
    values: dict[str, Any] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)  # names put there through globals()...
    written_unknown: bool = False  # a write whose key could not be known
    written_excluded: frozenset[str] = frozenset()  # ...known to be none of these names
    # name -> the value a namespace write left it (rebound while values[name] is it still)
    rebound: dict[str, Any] = field(default_factory=dict)
    # name -> its value when a write whose key is not known ran (hit while it is still it)
    exposed: dict[str, Any] = field(default_factory=dict)
    getattr: Any = None  # Function, ("lazy", submodules, attrs), or UNKNOWN
    lazy_module: Any = None  # ("lazy", submodules, attrs, extra) for sys.modules[...] = ...
    deps: set[str] = field(default_factory=set)  # every module its evaluation read
    class_bodies: dict[str, dict[str, Any]] = field(default_factory=dict)  # class -> its names

    def write_unknown(self, absent: frozenset[Any] = frozenset()) -> None:
        """A name written whose key is not known, except that it is none of `absent`: every
        name bound so far may have been rebound (until it is bound again)."""
        kept = absent if not self.written_unknown else self.written_excluded & absent
        self.written_excluded = frozenset(k for k in kept if isinstance(k, str))
        self.written_unknown = True
        self.exposed.update((k, v) for k, v in self.values.items() if k not in absent)

    def write(self, name: str, value: Any, certain: bool) -> None:
        """`globals()[name] = value` (or an update, a setattr on the module): the name is
        bound to the value, as `name = value` binds it."""
        self.written.add(name)
        old = self.values.get(name)
        self.values[name] = value if certain or old is None else merge(old, value, False)
        self.rebound[name] = self.values[name]

    def star_imported(self) -> None:
        """`from m import *` after names were written: it may bind any of them again."""
        for name, value in list(self.rebound.items()):
            if self.values.get(name, _UNBOUND) is value:
                self.values[name] = self.rebound[name] = UNKNOWN

    def rebinding(self, name: str) -> tuple[str, Any] | None:
        """How a namespace write decides what `name` is now: ("value", what it left) when
        the name's last binding is one, ("key", UNKNOWN) when a write whose key is not
        known came after its last binding; None when no write decides it."""
        current = self.values.get(name, _UNBOUND)
        if name in self.rebound and self.rebound[name] is current:
            return "value", current
        if self.may_write(name) and name in self.exposed and self.exposed[name] is current:
            return "key", UNKNOWN
        return None

    def may_write(self, name: str) -> bool:
        """Whether a write whose key is not known may have put `name` there."""
        return self.written_unknown and name not in self.written_excluded


def bind_arguments(
    arguments: ast.arguments, args: list[Any], kwargs: dict[str, Any], out: dict[str, Any]
) -> None:
    """Parameters of a function bound to evaluated arguments (UNKNOWN where not given)."""
    bind(arguments, args, dict(kwargs), out)


def bind(
    arguments: ast.arguments, args: list[Any], kwargs: dict[str, Any], out: dict[str, Any]
) -> None:
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    for i, param in enumerate(positional):
        default = defaults[i]
        if i < len(args):
            out[param.arg] = args[i]
        elif param.arg in kwargs:
            out[param.arg] = kwargs.pop(param.arg)
        elif default is not None:
            out[param.arg] = literal(default)
        else:
            out[param.arg] = UNKNOWN
    for param, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if param.arg in kwargs:
            out[param.arg] = kwargs.pop(param.arg)
        else:
            out[param.arg] = literal(default) if default is not None else UNKNOWN
    if arguments.vararg is not None:
        out[arguments.vararg.arg] = tuple(args[len(positional) :])
    if arguments.kwarg is not None:
        out[arguments.kwarg.arg] = dict(kwargs)


def literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return UNKNOWN


def dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = dotted(expr.value)
        return f"{inner}.{expr.attr}" if inner else None
    return None


def absolute(module: str, level: int, package: str) -> str:
    if level == 0:
        return module
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module]) if module else ".".join(base)


def target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in target_names(e)]
    return []


def is_sys_modules_self(expr: ast.expr) -> bool:
    """`sys.modules[__name__]`."""
    return (
        isinstance(expr, ast.Subscript)
        and dotted(expr.value) == "sys.modules"
        and isinstance(expr.slice, ast.Name)
        and expr.slice.id == "__name__"
    )


def is_type_checking(test: ast.expr) -> bool:
    return (dotted(test) or "").rsplit(".", 1)[-1] == "TYPE_CHECKING"


def catches(handler: ast.ExceptHandler, raised: str) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = {(dotted(k) or "").rsplit(".", 1)[-1] for k in kinds}
    family = {
        "KeyError": {"LookupError"},
        "IndexError": {"LookupError"},
        "ModuleNotFoundError": {"ImportError"},
    }.get(raised, set())
    return bool(names & ({raised, "Exception", "BaseException"} | family))


def hashable(items: Iterable[Any]) -> bool:
    try:
        for item in items:
            hash(item)
    except TypeError:
        return False
    return True


def any_key(value: Any) -> Any:
    """What iterating a Partial container gives beyond what is known of it."""
    return AnyKey(value.absent) if isinstance(value, Partial) and value.absent else UNKNOWN


def iterate(value: Any) -> list[Any] | None:
    if isinstance(value, (list, tuple, set, frozenset)):
        return sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, str):
        return list(value)
    if isinstance(value, EnumClass):
        return [EnumMember(n) for n in value.names]
    return None


def flat(values: list[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, tuple):
            yield from value
        else:
            yield value


def convert(name: str, value: Any, kwargs: dict[str, Any]) -> Any:
    if name == "dict":
        if isinstance(value, dict):
            return {**value, **kwargs}
        seq = iterate(value)
        if seq is None or not all(isinstance(p, tuple) and len(p) == 2 for p in seq):
            return UNKNOWN if value != () else dict(kwargs)
        return dict(seq) | kwargs
    if isinstance(value, Partial):
        converted = convert(name, value.known, kwargs)
        return UNKNOWN if converted is UNKNOWN else Partial(converted, value.absent)
    seq = iterate(value)
    if seq is None:
        return UNKNOWN
    if name in ("set", "frozenset"):
        return set(seq) if hashable(seq) else UNKNOWN
    if name == "sorted":
        try:
            return sorted(seq)
        except TypeError:
            return UNKNOWN
    return list(seq) if name == "list" else tuple(seq)


def binop(op: ast.operator, left: Any, right: Any) -> Any:
    for side in (left, right):
        if side is UNKNOWN or isinstance(side, Ref):
            return UNKNOWN
    if isinstance(left, Partial) or isinstance(right, Partial):
        lk = left.known if isinstance(left, Partial) else left
        rk = right.known if isinstance(right, Partial) else right
        combined = binop(op, lk, rk)
        together = isinstance(op, (ast.Add, ast.BitOr))  # what either holds, the result does
        absent = union_absent(left, right) if together else frozenset()
        return UNKNOWN if combined is UNKNOWN else Partial(combined, absent)
    if _size(left) + _size(right) > MAX_VALUE:
        return UNKNOWN  # provider code that grows a value without bound is not followed
    try:
        if isinstance(op, ast.BitOr):
            if isinstance(left, dict) and isinstance(right, dict):
                return {**left, **right}
            return set(left) | set(right)
        if isinstance(op, ast.Add):
            if isinstance(left, list) and isinstance(right, (list, tuple)):
                return [*left, *right]
            return left + right
        if isinstance(op, ast.Sub) and isinstance(left, set):
            return left - set(right)
        if isinstance(op, ast.Mod) and isinstance(left, str) and not WIDE_FORMAT.search(left):
            return left % right
    except (TypeError, ValueError, KeyError):
        return UNKNOWN
    return UNKNOWN


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple, set, dict)) else 0


def safe_str_method(text: str, method: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """A str method on literals, bounded: no format field with a width or a conversion
    (`"{:999999999}"`), no result past MAX_VALUE; UNKNOWN when Python would raise."""
    if method == "format" and FORMAT_SPEC.search(text):
        return UNKNOWN
    sizes = [_size(text), *(_size(a) for a in args), *(_size(v) for v in kwargs.values())]
    if (
        method in ("replace", "join", "format")
        and (sizes[0] + 1) * max(sizes[1:] or [1]) > MAX_VALUE
    ):
        return UNKNOWN
    try:
        return getattr(text, method)(*args, **kwargs)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return UNKNOWN


def compare(op: ast.cmpop, left: Any, right: Any) -> Any:
    if isinstance(op, (ast.In, ast.NotIn)):
        inside = contains(right, left)
        if inside is UNKNOWN:
            return UNKNOWN
        return inside if isinstance(op, ast.In) else not inside
    if any(side is UNKNOWN or isinstance(side, (Partial, Ref)) for side in (left, right)):
        return UNKNOWN
    if isinstance(op, (ast.Is, ast.IsNot)):
        if left is None or right is None:
            same = left is right
            return same if isinstance(op, ast.Is) else not same
        return UNKNOWN
    try:
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
    except TypeError:
        return UNKNOWN
    return UNKNOWN


def contains(container: Any, item: Any) -> Any:
    if item is UNKNOWN:
        return UNKNOWN
    if isinstance(container, NamespaceView):
        return UNKNOWN  # answered by the frame, which can read modules (_in_namespace)
    if isinstance(item, AnyKey):  # none of its absent keys: not in what holds only those
        seq = iterate(container)
        if seq is not None and hashable(seq) and all(e in item.absent for e in seq):
            return False
        return UNKNOWN
    if isinstance(container, Partial):
        found = contains(container.known, item)
        if found is True:
            return True
        return False if hashable((item,)) and item in container.absent else UNKNOWN
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, (dict, set, frozenset, list, tuple)):
        try:
            return item in container
        except TypeError:
            return UNKNOWN
    return UNKNOWN


def merge(old: Any, new: Any, certain: bool) -> Any:
    """A value that may have been replaced in a branch: containers unite, scalars blur."""
    if certain or old is None:
        return new
    if old is new:
        return new
    if isinstance(old, Partial) or isinstance(new, Partial):
        lk = old.known if isinstance(old, Partial) else old
        rk = new.known if isinstance(new, Partial) else new
        united = merge(lk, rk, False)
        return UNKNOWN if united is UNKNOWN else Partial(united, union_absent(old, new))
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}
    if isinstance(old, set) and isinstance(new, set):
        return old | new
    if isinstance(old, list) and isinstance(new, list):
        return old + [v for v in new if v not in old]
    try:
        if old == new:
            return new
    except TypeError:
        return UNKNOWN
    return UNKNOWN


def union_absent(left: Any, right: Any) -> frozenset[Any]:
    """The items neither of two containers can hold (a Partial: its `absent`; a container
    known whole: what it does not hold), among those a Partial says are absent."""
    candidates: set[Any] = set()
    for side in (left, right):
        if isinstance(side, Partial):
            candidates |= side.absent
    return frozenset(c for c in candidates if _excludes(left, c) and _excludes(right, c))


def _excludes(container: Any, item: Any) -> bool:
    if isinstance(container, Partial):
        return item in container.absent
    seq = iterate(container)
    return seq is not None and hashable(seq) and item not in seq


def as_set(value: Any) -> Any:
    if isinstance(value, Partial):
        inner = as_set(value.known)
        return Partial(inner if inner is not UNKNOWN else set(), value.absent)
    seq = iterate(value)
    if seq is None or not all(isinstance(v, str) for v in seq):
        return UNKNOWN
    return set(seq)


def as_attrs(value: Any) -> Any:
    known = value.known if isinstance(value, Partial) else value
    if not isinstance(known, dict):
        return UNKNOWN
    out: dict[str, Any] = {}
    for key, names in known.items():
        names_set = as_set(names)
        if not isinstance(key, str) or names_set is UNKNOWN:
            return UNKNOWN
        out[key] = names_set
    return out
