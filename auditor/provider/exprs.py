"""Reading griffe expressions: dotted paths, annotations, call keywords, literal values.

Owns the small, pure helpers every other provider module needs to look at griffe's
expression objects without caring about their many classes. Takes griffe `Expr` values (or
plain strings, which griffe uses for simple literals); gives strings, paths and `ast` nodes.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

import griffe

# Wrappers whose first argument is the real type: Optional[X], Annotated[X, ...], ClassVar[X]...
TYPE_WRAPPERS = frozenset(
    {
        "typing.Optional",
        "typing.Annotated",
        "typing_extensions.Annotated",
        "typing.Final",
        "typing.ClassVar",
        "typing_extensions.Required",
        "typing_extensions.NotRequired",
        "typing.Required",
        "typing.NotRequired",
        "pydantic.SkipValidation",
    }
)


def expr_path(expr: Any) -> str | None:
    """The canonical dotted path an expression names (`Generic[T]` -> `typing.Generic`)."""
    if isinstance(expr, str):
        return expr
    if isinstance(expr, griffe.ExprSubscript):
        return expr_path(expr.left)
    if isinstance(expr, griffe.ExprCall):
        return expr_path(expr.function)
    path = getattr(expr, "canonical_path", None)
    return path if isinstance(path, str) else None


BUILTIN_NAMES = frozenset(dir(builtins))


def builtin_path(path: str | None) -> str | None:
    """A bare name griffe could not resolve in its module (`dict`, `str`, `Exception`) as
    the builtin it is (`builtins.dict`); any other path as it is."""
    if path and "." not in path and path in BUILTIN_NAMES:
        return f"builtins.{path}"
    return path


def annotation_class(expr: Any) -> str | None:
    """The one class an annotation denotes, if it denotes exactly one (None is dropped).

    `X`, `"X"`, `Optional[X]`, `X | None`, `Annotated[X, ...]` -> X's path; unions of two
    real types, generics' parameters and anything else -> None (never guess).
    """
    if expr is None:
        return None
    if isinstance(expr, griffe.ExprBinOp) and expr.operator == "|":
        sides = [s for s in (expr.left, expr.right) if not _is_none(s)]
        return annotation_class(sides[0]) if len(sides) == 1 else None
    if isinstance(expr, griffe.ExprSubscript):
        head = expr_path(expr.left)
        if head in TYPE_WRAPPERS:
            inner: Any = expr.slice
            if isinstance(inner, griffe.ExprTuple):
                inner = inner.elements[0] if inner.elements else None
            return annotation_class(inner)
        return head  # list[int] -> list: a class, and member lookups on it are external
    if isinstance(expr, str):
        return None if expr == "None" else expr
    return expr_path(expr)


SEQUENCES = frozenset(
    {"list", "set", "frozenset", "tuple", "collections.deque"}
    | {f"{m}.{n}" for m in ("typing", "collections.abc") for n in (
        "List", "Set", "FrozenSet", "Tuple", "Sequence", "MutableSequence", "Iterable",
        "Iterator", "Collection", "AbstractSet", "MutableSet", "Deque", "Generator",
    )}
)  # fmt: skip
MAPPINGS = frozenset(
    {"dict", "collections.OrderedDict", "collections.defaultdict"}
    | {f"{m}.{n}" for m in ("typing", "collections.abc") for n in (
        "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict",
    )}
)  # fmt: skip


def element_annotation(expr: Any, *, iterate: bool) -> Any:
    """The annotation of an element of a container annotation: X of `list[X]`,
    `Sequence[X]`, `tuple[X, ...]`, `Optional[list[X]]`; V of `dict[K, V]` (K when `iterate`);
    None for anything else."""
    if isinstance(expr, griffe.ExprBinOp) and expr.operator == "|":
        sides = [s for s in (expr.left, expr.right) if not _is_none(s)]
        return element_annotation(sides[0], iterate=iterate) if len(sides) == 1 else None
    if not isinstance(expr, griffe.ExprSubscript):
        return None
    head = expr_path(expr.left)
    args = list(expr.slice.elements) if isinstance(expr.slice, griffe.ExprTuple) else [expr.slice]
    if head in TYPE_WRAPPERS:
        return element_annotation(args[0], iterate=iterate) if args else None
    if head in SEQUENCES:
        if head in ("tuple", "typing.Tuple") and not (len(args) == 2 and str(args[1]) == "..."):
            return args[0] if len(args) == 1 else None
        return args[0] if args else None
    if head in MAPPINGS and len(args) == 2:
        return args[0] if iterate else args[1]
    return None


def _is_none(expr: Any) -> bool:
    return str(expr) == "None"


def keywords(call: Any) -> dict[str, Any]:
    """Keyword arguments of a griffe call expression (`dataclass(kw_only=True)`)."""
    if not isinstance(call, griffe.ExprCall):
        return {}
    return {a.name: a.value for a in call.arguments if isinstance(a, griffe.ExprKeyword) and a.name}


def is_true(value: Any) -> bool:
    return value is not None and str(value) == "True"


def is_false(value: Any) -> bool:
    return value is not None and str(value) == "False"


def safe_call(source: str | None) -> ast.Call | None:
    """`source` parsed as a call expression, or None."""
    if source is None:
        return None
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return node if isinstance(node, ast.Call) else None


def call_keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg}


def unparse(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return "..."


def literal(node: ast.expr | None) -> object:
    """The value of a constant node, or None."""
    return node.value if isinstance(node, ast.Constant) else None
