# Maintainers: which blocks of consumer code are "guarded".
#
# Owns: recognising `try` statements whose handlers catch an import failure, `with
# contextlib.suppress(ImportError)`, `if TYPE_CHECKING:` and `if` statements that test a
# version (`__version__`, `version(...)`, `Version(...)`, `parse(...)`, `sys.version_info`,
# `importlib.metadata`, names like `VLLM_VERSION` or `vllm_version`), and deciding the version
# tests that compare a provider's release with a literal (`tornado.version_info >= (5, 0)`).
# Takes: ast nodes. Gives: booleans to the walker, which marks every site inside such a
# block `guarded=True` (the consumer already expects the provider to move there).
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.model import RELEASE as _RELEASE
from auditor.model import VersionTest
from auditor.scan.calls import dotted_chain

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    Reading = tuple[str, int, bool]  # (module, prefix, wrapped)

_IMPORT_FAILURES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_WORD_SPLIT = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")
_VERSION_HINT = re.compile(r"version|parse|importlib", re.IGNORECASE)


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _catches_import_failure(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(last_name(kind) in _IMPORT_FAILURES for kind in kinds)


def caught(handler: ast.ExceptHandler) -> frozenset[str]:
    """The exception class names an `except` clause catches ("BaseException" when bare)."""
    if handler.type is None:
        return frozenset({"BaseException"})
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return frozenset(name for name in map(last_name, kinds) if name)


_BROAD = frozenset({"Exception", "BaseException"})
_LOG_ROOTS = frozenset({"log", "logger", "logging", "LOG", "LOGGER", "_log", "_logger",
                        "warnings", "traceback", "print", "sys"})  # fmt: skip
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                          "fatal", "log", "print_exc", "format_exc", "write"})  # fmt: skip


def only_fails(handler: ast.ExceptHandler) -> bool:
    """A broad handler (`except Exception`, `BaseException`, bare) whose body provides no
    alternative: it only logs, re-raises, wraps the error or returns one (an error value, the
    exception, None), or skips the iteration. Such a handler does not make a failing call
    fine: the feature still fails, just more quietly. A narrow handler never counts."""
    names = caught(handler)
    if not names or not names <= _BROAD:
        return False
    error = handler.name
    return all(_fails(statement, error) for statement in handler.body)


def _fails(statement: ast.stmt, error: str | None) -> bool:
    if isinstance(statement, (ast.Raise, ast.Pass, ast.Continue, ast.Break)):
        return True
    if isinstance(statement, ast.Expr):
        value = statement.value
        return isinstance(value, ast.Constant) or (
            isinstance(value, ast.Call) and _is_logging(value.func)
        )
    if isinstance(statement, ast.Return):
        returned = statement.value
        if returned is None or isinstance(returned, ast.Constant):
            return True
        return error is not None and any(
            isinstance(n, ast.Name) and n.id == error for n in ast.walk(returned)
        )
    return False


def _is_logging(func: ast.expr) -> bool:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    if not parts:
        return False
    root, last = parts[-1], parts[0]
    return (
        root in _LOG_ROOTS
        or "log" in root.lower()
        or (len(parts) > 1 and last in _LOG_METHODS and "log" in "".join(parts).lower())
    )


def catches_import_failure(handlers: list[ast.ExceptHandler]) -> bool:
    """Whether one of a `try`'s handlers would swallow a failed import."""
    return any(_catches_import_failure(h) for h in handlers)


def suppresses_import_failure(node: ast.With | ast.AsyncWith) -> bool:
    """`with contextlib.suppress(ImportError):` and the like."""
    for item in node.items:
        expr = item.context_expr
        if not isinstance(expr, ast.Call) or last_name(expr.func) != "suppress":
            continue
        if any(last_name(arg) in _IMPORT_FAILURES for arg in expr.args):
            return True
    return False


def is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    return last_name(test) == "TYPE_CHECKING"


def _is_version_word(identifier: str) -> bool:
    return any(word.lower() == "version" for word in _WORD_SPLIT.split(identifier))


def _mentions_version(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return _is_version_word(node.id)
    if isinstance(node, ast.Attribute):
        if node.attr == "metadata" and last_name(node.value) == "importlib":
            return True
        return _is_version_word(node.attr)
    if isinstance(node, ast.Call):
        return last_name(node.func) == "parse"
    return False


def is_version_check(test: ast.expr, source: str | None = None) -> bool:
    """Whether an `if` test looks at a version: both branches are then guarded.

    `source`, the text of the lines the test spans, lets most tests be ruled out cheaply.
    """
    if source is not None and _VERSION_HINT.search(source) is None:
        return False
    return any(_mentions_version(node) for node in ast.walk(test))


# ---------------------------------------------------------------- decided version tests

ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_VERSION_TUPLES = frozenset({"version_info", "VERSION", "__version_info__", "VERSION_INFO"})
_VERSION_WRAPPERS = frozenset({"Version", "parse", "parse_version", "LooseVersion"})


def version_test(
    test: ast.expr,
    resolve: Callable[[str], str | None],
    flags: Mapping[str, VersionTest],
) -> VersionTest | None:
    """A test of a provider's release that can be decided per release, or None.

    `tornado.version_info >= (5, 0)`, `tornado.version_info[0] < 5`, `Version(m.__version__)
    >= Version("2.0")` (also `parse`), `not` of one, or a name bound at module level to one
    (`flags`). `resolve` gives the module path a local name is bound to by an import."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = version_test(test.operand, resolve, flags)
        return None if inner is None else replace(inner, runs_if=not inner.runs_if)
    if isinstance(test, ast.Name):
        return flags.get(test.id)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op = ORDER.get(type(test.ops[0]))
    if op is None:
        return None
    left, right = test.left, test.comparators[0]
    read = _version_reading(left, resolve)
    literal = _version_literal(right)
    if read is None or literal is None:
        read, literal, op = _version_reading(right, resolve), _version_literal(left), FLIPPED[op]
    if read is None or literal is None:
        return None
    module, prefix, wrapped = read
    if (prefix == 1) != isinstance(literal, int):
        return None
    version = (literal,) if isinstance(literal, int) else literal
    exact = wrapped or prefix == len(version)  # Version(): "5.0" == "5.0.0"; [0] < 5
    return VersionTest(module, op, version, prefix, exact)


def _version_reading(expr: ast.expr, resolve: Callable[[str], str | None]) -> Reading | None:
    """(module, prefix, wrapped) for `m.version_info` (prefix 0: all of it),
    `m.version_info[0]` (1), `m.version_info[:2]` (2), `Version(m.__version__)` (0, wrapped:
    compared as packaging compares releases)."""
    if isinstance(expr, ast.Call):
        if last_name(expr.func) not in _VERSION_WRAPPERS or len(expr.args) != 1:
            return None
        inner = expr.args[0]
        if isinstance(inner, ast.Attribute) and inner.attr == "__version__":
            module = _module_of(inner.value, resolve)
            return (module, 0, True) if module else None
        return None
    if isinstance(expr, ast.Subscript):
        whole = _version_reading(expr.value, resolve)
        if whole is None or whole[2] or whole[1] != 0:
            return None
        index = expr.slice
        if isinstance(index, ast.Constant) and index.value == 0:
            return whole[0], 1, False
        if (
            isinstance(index, ast.Slice)
            and index.lower is None
            and index.step is None
            and isinstance(index.upper, ast.Constant)
            and isinstance(index.upper.value, int)
            and index.upper.value > 0
        ):
            return whole[0], index.upper.value, False
        return None
    if isinstance(expr, ast.Attribute) and expr.attr in _VERSION_TUPLES:
        module = _module_of(expr.value, resolve)
        return (module, 0, False) if module else None
    return None


def _module_of(expr: ast.expr, resolve: Callable[[str], str | None]) -> str | None:
    chain = dotted_chain(expr)
    head = resolve(chain[0]) if chain else None
    return ".".join([head, *chain[1:]]) if head and chain else None


def _version_literal(expr: ast.expr) -> tuple[int, ...] | int | None:
    if isinstance(expr, ast.Call) and last_name(expr.func) in _VERSION_WRAPPERS:
        if len(expr.args) == 1 and isinstance(expr.args[0], ast.Constant):
            text = expr.args[0].value
            if isinstance(text, str) and _RELEASE.fullmatch(text):
                return tuple(int(p) for p in text.split("."))
        return None
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ast.Tuple) and expr.elts:
        items = [e.value if isinstance(e, ast.Constant) else None for e in expr.elts]
        if all(type(i) is int for i in items):
            return tuple(i for i in items if isinstance(i, int))
    return None
