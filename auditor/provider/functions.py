"""Functions: a griffe Function -> the Signature a caller sees, or why it cannot be known.

Owns decorator knowledge for functions (which keep a signature, which hide it), dropping the
bound first parameter, `@overload` sets from stubs, and deprecation markers (the
`deprecated` decorator, `warnings.warn(..., DeprecationWarning)` in the body, a
`.. deprecated::` docstring). Takes griffe Functions plus a callback that classifies a
provider's own decorators; gives `Signature`s.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import griffe

from auditor.model import Param, ParamKind, Signature
from auditor.provider import docstrings

if TYPE_CHECKING:
    from collections.abc import Callable

    from auditor.provider import wrappers

# Decorators that leave a function's call signature as it is.
TRANSPARENT = frozenset(
    {
        "staticmethod",
        "classmethod",
        "abc.abstractmethod",
        "abstractmethod",
        "typing.final",
        "typing_extensions.final",
        "typing.override",
        "typing_extensions.override",
        "typing.no_type_check",
        "functools.cache",
        "functools.lru_cache",
        "contextlib.contextmanager",
        "contextlib.asynccontextmanager",
        "typing_extensions.deprecated",
        "warnings.deprecated",
        "deprecated.deprecated",
        "deprecated.classic.deprecated",
        "torch.inference_mode",
        "torch.no_grad",
        "torch.compiler.disable",
        "torch.jit.unused",
        "torch.jit.ignore",
    }
)
# Decorators of classes that only mark them for type checkers (or warn on use): the class
# they return is the class they were given, its members and constructor unchanged.
CLASS_MARKERS = frozenset(
    {
        f"{module}.{name}"
        for module in ("typing", "typing_extensions")
        for name in ("final", "runtime_checkable", "type_check_only", "disjoint_base")
    }
    | {"typing_extensions.deprecated", "warnings.deprecated"}
)
PROPERTY = frozenset(
    {"property", "builtins.property", "functools.cached_property", "cached_property"}
)
OVERLOAD = frozenset({"typing.overload", "typing_extensions.overload", "overload"})
DEPRECATED = frozenset(
    {"typing_extensions.deprecated", "warnings.deprecated", "deprecated.deprecated"}
)
WARNING_CATEGORIES = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")
DEPRECATED_DOC = re.compile(
    r"\.\. deprecated::|^\s*Deprecated[:.]|deprecated since", re.MULTILINE | re.IGNORECASE
)  # a cheap first look; docstrings.py decides what a note is about


def decorator_path(decorator: Any) -> str:
    path = decorator.callable_path
    return path if isinstance(path, str) else str(decorator.value)


def is_property(function: griffe.Function) -> bool:
    decorators = {decorator_path(d) for d in function.decorators}
    return bool(decorators & PROPERTY) or "property" in function.labels


@dataclass(frozen=True)
class Decorated:
    """What a caller meets: the signature (None: unknown, and why), and what the provider's
    wrappers add to it (old keyword names still accepted, positional use still accepted)."""

    signature: Signature | None
    why: str | None = None
    renamed: tuple[tuple[str, str], ...] = ()
    positional_limit: int | None = None
    warned: tuple[str, ...] = ()  # keywords a wrapper warns about


def signature_of(
    function: griffe.Function,
    *,
    bound: bool,
    provider_decorator: Callable[[Any], wrappers.Effect | None],
) -> tuple[Signature | None, str | None]:
    """The signature a caller sees, or (None, why). See `decorated`."""
    found = decorated(function, bound=bound, provider_decorator=provider_decorator)
    return found.signature, found.why


def decorated(
    function: griffe.Function,
    *,
    bound: bool,
    provider_decorator: Callable[[Any], wrappers.Effect | None],
) -> Decorated:
    """The signature a caller sees, through the function's decorators (innermost first).

    `bound`: the first parameter is already supplied (a method called on an instance, or
    `__init__`); classmethods always drop `cls`, staticmethods never drop anything.
    `provider_decorator(decorator)`: what one of the provider's own decorators does
    (wrappers.Effect, read from its source), None when it is not the provider's.
    """
    if function.overloads and _is_stub(function):
        return Decorated(None, f"{function.path} is an @overload set")
    params = [_param(p) for p in function.parameters]
    drops = _drops_first(function, bound)
    result = Decorated(Signature(tuple(params[1:] if drops and params else params)))
    for decorator in reversed(list(function.decorators)):
        path = decorator_path(decorator)
        if path in TRANSPARENT or path in OVERLOAD:
            continue
        effect = provider_decorator(decorator)
        if effect is None or effect.kind == "unknown":
            why = f"{function.path} is decorated with {path}; its signature is unknown"
            return Decorated(None, why + (f" ({effect.reason})" if effect else ""))
        result = _apply(result, effect, drops)
    if result.signature is not None and function.returns is not None:
        signature = Signature(result.signature.params, str(function.returns))
        result = Decorated(signature, None, result.renamed, result.positional_limit, result.warned)
    return result


def _apply(current: Decorated, effect: wrappers.Effect, drops: bool) -> Decorated:
    """One decorator's effect on what the caller meets."""
    signature = current.signature
    assert signature is not None
    if effect.kind == "preserve":
        return current
    if effect.kind == "own" and effect.own is not None:
        params = _ast_params(effect.own)
        return Decorated(Signature(tuple(params[1:] if drops and params else params)))
    if effect.kind == "renames":
        known = {p.name for p in signature.params}
        extra = [
            Param(old, ParamKind.KEYWORD_ONLY, "<renamed>") for old, _ in effect.renames
            if old not in known
        ]  # fmt: skip
        widened = _insert_keyword_only(signature.params, extra)
        warned = tuple(old for old, _ in effect.renames) if effect.warns else ()
        return Decorated(
            Signature(widened, signature.returns),
            None,
            (*current.renamed, *effect.renames),
            current.positional_limit,
            (*current.warned, *warned),
        )
    if effect.kind == "positional":
        limit = sum(1 for p in signature.params if p.kind.value.startswith("positional"))
        if any(p.kind is ParamKind.VAR_POSITIONAL for p in signature.params):
            return current  # keyword-only after *args can never be reached by position
        loosened = [
            Param(p.name, ParamKind.POSITIONAL_OR_KEYWORD, p.default, p.annotation)
            if p.kind is ParamKind.KEYWORD_ONLY else p
            for p in signature.params
        ]  # fmt: skip
        return Decorated(
            Signature(_reorder(loosened), signature.returns),
            None,
            current.renamed,
            limit if effect.warns else None,
            current.warned,
        )
    return Decorated(None, "a decorator whose effect is not known")


def _insert_keyword_only(params: tuple[Param, ...], extra: list[Param]) -> tuple[Param, ...]:
    """`extra` keyword-only parameters, before any **kwargs."""
    head = [p for p in params if p.kind is not ParamKind.VAR_KEYWORD]
    tail = [p for p in params if p.kind is ParamKind.VAR_KEYWORD]
    return (*head, *extra, *tail)


def _reorder(params: list[Param]) -> tuple[Param, ...]:
    """Positional parameters first, then *args, keyword-only and **kwargs (a valid order)."""
    rank = {
        ParamKind.POSITIONAL_ONLY: 0,
        ParamKind.POSITIONAL_OR_KEYWORD: 1,
        ParamKind.VAR_POSITIONAL: 2,
        ParamKind.KEYWORD_ONLY: 3,
        ParamKind.VAR_KEYWORD: 4,
    }
    return tuple(sorted(params, key=lambda p: rank[p.kind]))


def _ast_params(arguments: ast.arguments) -> list[Param]:
    """A wrapper's own parameters, from its AST."""
    out: list[Param] = []
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    for i, arg in enumerate(positional):
        kind = (
            ParamKind.POSITIONAL_ONLY
            if i < len(arguments.posonlyargs)
            else (ParamKind.POSITIONAL_OR_KEYWORD)
        )
        default = defaults[i]
        out.append(Param(arg.arg, kind, ast.unparse(default) if default is not None else None))
    if arguments.vararg is not None:
        out.append(Param(arguments.vararg.arg, ParamKind.VAR_POSITIONAL))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        text = ast.unparse(default) if default is not None else None
        out.append(Param(arg.arg, ParamKind.KEYWORD_ONLY, text))
    if arguments.kwarg is not None:
        out.append(Param(arguments.kwarg.arg, ParamKind.VAR_KEYWORD))
    return out


def overloads_of(function: griffe.Function, *, bound: bool) -> tuple[Signature, ...]:
    """The `@overload` variants of a stub function (a call must match one)."""
    if not function.overloads or not _is_stub(function):
        return ()
    out = []
    for variant in function.overloads:
        params = [_param(p) for p in variant.parameters]
        if _drops_first(variant, bound) and params:
            params = params[1:]
        out.append(Signature(tuple(params)))
    return tuple(out)


def from_stdlib(obj: griffe.Object) -> bool:
    """Whether an object is the standard library's, read from typeshed's stubs
    (sources/stdlib.py): a complete declaration, whose classes inherit what they do not
    declare (a compiled provider's stub may just leave it out)."""
    module = obj.module if not isinstance(obj, griffe.Module) else obj
    return bool(module.extra.get("drift_audit", {}).get("stdlib"))


def from_stub(obj: griffe.Object) -> bool:
    """Whether an object is known only by a `.pyi` stub. A module griffe holds with no file
    (a namespace package's folder, made in memory) raises BuiltinModuleError for its
    `filepath`, and so does every object in it: that is no stub."""
    try:
        path = obj.filepath
    except griffe.BuiltinModuleError:
        return False
    return str(path or "").endswith(".pyi")


def _is_stub(function: griffe.Function) -> bool:
    return from_stub(function)


def _drops_first(function: griffe.Function, bound: bool) -> bool:
    if not isinstance(function.parent, griffe.Class) or "staticmethod" in function.labels:
        return False
    if "classmethod" in function.labels:
        return True
    return bound  # `Cls.__init__(self, x)` through the class passes self explicitly


def _param(parameter: griffe.Parameter) -> Param:
    default = parameter.default
    annotation = parameter.annotation
    kind = parameter.kind.value if parameter.kind else "positional or keyword"
    return Param(
        name=parameter.name,
        kind=ParamKind(kind),
        default=None if default is None else str(default),
        annotation=None if annotation is None else str(annotation),
    )


def deprecation(obj: Any) -> str | None:
    """How the provider marks `obj` deprecated, or None."""
    for decorator in getattr(obj, "decorators", ()):
        if decorator_path(decorator) in DEPRECATED:
            return "marked @deprecated"
    if docstring_notes(obj).whole:
        return "its docstring says it is deprecated"
    if isinstance(obj, griffe.Function) and _warnings(obj)[0]:
        return "it warns with a DeprecationWarning whenever it is called"
    return None


def deprecated_parameters(function: Any) -> tuple[str, ...]:
    """Parameters the provider warns about: `@deprecate_kwargs("old")`-style decorators
    (string arguments naming parameters), or a DeprecationWarning under `if old ...:`."""
    if not isinstance(function, griffe.Function):
        return ()
    names = {p.name for p in function.parameters}
    found = set(_warnings(function)[1])
    for decorator in function.decorators:
        if "deprecat" in decorator_path(decorator).lower() and isinstance(
            decorator.value, griffe.ExprCall
        ):
            found |= {str(a).strip("'\"") for a in decorator.value.arguments if isinstance(a, str)}
    catch_all = any(p.kind and p.kind.value == "variadic keyword" for p in function.parameters)
    found |= set(docstring_notes(function).parameters)
    return tuple(sorted(n for n in found if n in names or catch_all))


def docstring_notes(obj: Any) -> docstrings.Notes:
    """What the deprecation notes of a function's (or a class's) docstring are about: the
    callable, or parameters of it (of its `__init__`, for a class) (docstrings.py)."""
    docstring = getattr(obj, "docstring", None)
    text = (docstring.value or "") if docstring is not None else ""
    if not DEPRECATED_DOC.search(text):
        return docstrings.Notes(False)
    function = obj.members.get("__init__") if isinstance(obj, griffe.Class) else obj
    parameters = list(function.parameters) if isinstance(function, griffe.Function) else []
    catch_all = any(p.kind and p.kind.value == "variadic keyword" for p in parameters)
    return docstrings.notes(text, [p.name for p in parameters], catch_all=catch_all)


def deprecated_renames(function: Any) -> tuple[tuple[str, str], ...]:
    """(old, new) keywords the function's own body maps: under `if "old" in kwargs:` it
    warns (DeprecationWarning) and binds a parameter from the old key (`new =
    kwargs.pop("old")`), so passing `new=` instead is what it asks for."""
    if not isinstance(function, griffe.Function):
        return ()
    return _warnings(function)[2]


def _warnings(
    function: griffe.Function,
) -> tuple[bool, tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(an unconditional DeprecationWarning, parameters whose use triggers one, renames)."""
    source = _body(function)
    if "warn" not in source:
        return False, (), ()
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError):
        return False, (), ()
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False, (), ()
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    kwargs = node.args.kwarg.arg if node.args.kwarg else None
    scan = _WarningScan(params, kwargs)
    scan.block(node.body, ())
    return scan.unconditional, tuple(sorted(scan.parameters)), tuple(sorted(scan.renames))


class _WarningScan:
    """Walks a function's statements, remembering which `if` tests enclose each warning."""

    def __init__(self, params: set[str], kwargs: str | None) -> None:
        self.params, self.kwargs = params, kwargs
        self.unconditional = False
        self.parameters: set[str] = set()
        self.renames: set[tuple[str, str]] = set()

    def block(self, statements: list[ast.stmt], tests: tuple[ast.expr, ...]) -> None:
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # a nested definition's warnings are not this function's
            if isinstance(statement, ast.If):
                self.block(statement.body, (*tests, statement.test))
                self.block(statement.orelse, (*tests, statement.test))
                if any(_warns_here(s) for s in statement.body):
                    self.renames |= self._mapped(statement.body)
                continue
            if _warns_here(statement):
                self._record(tests)
            for child in ("body", "orelse", "finalbody", "handlers"):
                self.block(getattr(statement, child, []) or [], tests)

    def _record(self, tests: tuple[ast.expr, ...]) -> None:
        if not tests:
            self.unconditional = True
            return
        named = {n for test in tests for n in self._parameters_tested(test)}
        self.parameters |= named  # a warning under some other condition says nothing

    def _mapped(self, statements: list[ast.stmt]) -> set[tuple[str, str]]:
        """`new = kwargs.pop("old"[, default])` or `new = kwargs["old"]` in a warning block,
        `new` a parameter: the body maps the old keyword onto the new one."""
        found = set()
        for statement in statements:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                continue
            target, value = statement.targets[0], statement.value
            if not isinstance(target, ast.Name) or target.id not in self.params:
                continue
            key = self._kwargs_key(value)
            if key is not None and key != target.id:
                found.add((key, target.id))
        return found

    def _kwargs_key(self, value: ast.expr) -> str | None:
        """The constant key of `kwargs.pop("k")`, `kwargs.get("k")` or `kwargs["k"]`."""
        owner: ast.expr | None = None
        key: ast.expr | None = None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            if value.func.attr in ("pop", "get") and value.args:
                owner, key = value.func.value, value.args[0]
        elif isinstance(value, ast.Subscript):
            owner, key = value.value, value.slice
        named = isinstance(owner, ast.Name) and owner.id == self.kwargs
        return str(key.value) if named and isinstance(key, ast.Constant) else None

    def _parameters_tested(self, test: ast.expr) -> set[str]:
        """Parameters whose *being passed* the test checks: `if p:`, `if p is not None`
        (or a sentinel), `if "p" in kwargs`; `and`/`or` of those. Value tests (`p > 3`)
        say nothing about passing, and count for nothing."""
        if isinstance(test, ast.BoolOp):
            return {n for value in test.values for n in self._parameters_tested(value)}
        if isinstance(test, ast.Name) and test.id in self.params:
            return {test.id}
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return set()
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.IsNot) and isinstance(left, ast.Name) and left.id in self.params:
            return {left.id}
        in_kwargs = isinstance(right, ast.Name) and right.id == self.kwargs
        if isinstance(op, ast.In) and in_kwargs and isinstance(left, ast.Constant):
            return {str(left.value)}
        return set()


def _warns_here(statement: ast.stmt) -> bool:
    """This statement itself (not a nested block) calls warn(..., DeprecationWarning)."""
    if not isinstance(statement, (ast.Expr, ast.Assign, ast.Return)):
        return False
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and _is_warn(node.func):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(_names_deprecation(a) for a in arguments):
                return True
    return False


def _is_warn(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"warn", "warn_explicit"}


def _names_deprecation(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return isinstance(name, str) and name.endswith(WARNING_CATEGORIES)


def _body(function: griffe.Function) -> str:
    try:
        return function.source
    except (OSError, ValueError, KeyError, TypeError, AttributeError, griffe.BuiltinModuleError):
        return ""
