# Maintainers: the name-binding tables of the consumer scan.
#
# Owns: `Scope` (one per module, class, function, lambda and comprehension), the record of
# which local names are bound by imports, by consumer `def`/`class` statements, or by anything
# else (plain stores), and the per-scope answer to "what does this name mean here?".
# Takes: calls from the walker while it visits one file (bind_import, bind_def, store).
# Gives: `local_binding()`, used by resolve.Resolver once every file has been walked, so that
# the answer never depends on the order in which statements or files were seen.
#
# Binding is flow-insensitive on purpose (simple and conservative): a name imported from
# somewhere and also stored in the same scope outside a fallback context (an `except
# ImportError` handler, a version-check branch, the `else` of `if TYPE_CHECKING`) means
# nothing we can trust in that whole scope.
#
# `Source` says where the value of one plain store comes from (an expression, or the
# annotation of a parameter or of an `x: T` statement); the walker keeps them in its
# facts.NameStore records (not here: a Scope never points at what is evaluated in it, so
# the facts of a file hold no reference cycles).
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from auditor.scan.facts import Expr, Reference

ScopeKind = Literal["module", "class", "function", "lambda", "comprehension"]


class SourceKind(Enum):
    VALUE = "value"  # `x = expr`, `x := expr`: the value of the expression
    ANNOTATION = "annotation"  # `x: T`, `x: T = ...`, a parameter `x: T`: an instance of T
    ELEMENT = "element"  # `for x in expr`, `[... for x in expr]`: an element of the value
    OVERRIDDEN = "overridden"  # an unannotated parameter of a method: what the provider
    # method it overrides declares for it (reference: the method's and the parameter's name)


@dataclass(frozen=True, slots=True)
class Source:
    """Where one store of a name (or of `self.name`) takes its value from."""

    kind: SourceKind
    annotation: Expr | None  # ANNOTATION: the annotation, as its text
    scope: Scope  # where the expression is evaluated
    guarded: bool
    reference: Reference | None = None  # VALUE, ELEMENT: the expression as a name or chain
    none: bool = False  # VALUE: the expression is the constant None


@dataclass(frozen=True, slots=True)
class Binding:
    """What a name refers to: absolute dotted candidates, first one preferred."""

    paths: tuple[str, ...]
    instance: bool = False  # `self`/`cls` in a method: paths[0] is the class
    is_def: bool = False  # a consumer `def` or `class` in this scope


@dataclass(eq=False, slots=True)
class Scope:
    """Names bound in one Python scope, filled while walking, read after."""

    kind: ScopeKind
    owner: str  # the consumer dotted path sites and edges are attributed to
    module: str
    parent: Scope | None = None
    imports: dict[str, list[str]] = field(default_factory=dict)
    defs: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name -> (path, fallback)
    stores: set[str] = field(default_factory=set)
    hard_stores: set[str] = field(default_factory=set)  # stores outside fallback contexts
    global_names: set[str] = field(default_factory=set)
    nonlocal_names: set[str] = field(default_factory=set)
    star_modules: list[str] = field(default_factory=list)  # consumer `from m import *`
    self_name: str | None = None  # first parameter of a method
    method_of: str | None = None  # class dotted path, for functions defined in a class body
    star_overwrites: set[str] = field(default_factory=set)  # names bound only before the
    # scope's last star import of a provider module: it rebinds them when it exports them

    def bind_import(self, name: str, target: str) -> None:
        targets = self.imports.setdefault(name, [])
        if target not in targets:
            targets.append(target)
        self.star_overwrites.discard(name)

    def bind_def(self, name: str, path: str, fallback: bool) -> None:
        known = self.defs.get(name)
        if known is None or (known[1] and not fallback):
            self.defs[name] = (path, fallback)
        self.star_overwrites.discard(name)

    def store(self, name: str, fallback: bool) -> None:
        self.stores.add(name)
        if not fallback:
            self.hard_stores.add(name)
        self.star_overwrites.discard(name)

    def star_import(self, module: str, *, provider: bool) -> None:
        """`from module import *`, met in the walk's (the source's) order: a provider's
        rebinds what is bound before it, when it exports that name (known per release)."""
        self.star_modules.append(module)
        if provider:
            self.star_overwrites = {*self.imports, *self.defs, *self.stores}

    @property
    def function_like(self) -> bool:
        return self.kind in ("function", "lambda")


class _NotHere:
    """Sentinel: the name is not bound in this scope; look further out."""


NOT_HERE: Final = _NotHere()


def local_binding(scope: Scope, name: str) -> Binding | _NotHere | None:
    """The name's meaning in this scope alone: a Binding, None (opaque), or NOT_HERE."""
    if name == scope.self_name and scope.method_of is not None:
        return Binding((scope.method_of,), instance=True)
    imported = scope.imports.get(name)
    defined = scope.defs.get(name)
    if imported is not None:
        if name in scope.hard_stores or (defined is not None and not defined[1]):
            return None
        return Binding(tuple(imported))
    if defined is not None:
        return Binding((defined[0],), is_def=True)
    if name in scope.stores:
        return None
    return NOT_HERE


def is_plain_variable(scope: Scope, name: str) -> bool:
    """Bound in `scope` by plain stores only: no import, `def`, `class` or `self`."""
    if name not in scope.stores or name in scope.imports or name in scope.defs:
        return False
    return not (name == scope.self_name and scope.method_of is not None)
