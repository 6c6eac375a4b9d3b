# Maintainers: the vocabulary of one lookup, shared by the modules that answer it.
#
# Owns: what walking a dotted path through a release can reach besides griffe's own objects
#       (`_Instance` of a class, `_Bound` method, `_Dynamic` name a module serves at run time,
#       `_Overloads` set, `_Typed` container value), the ways a lookup ends without an object
#       (`_Missing`, `Unreadable`, `Unlisted`; `classes.Unknown` is theirs too), the limits of
#       a walk, and the small pure readings of griffe objects every part uses (their source,
#       their AST, a name made canonical through a module's imports, stub or not).
# Takes: griffe objects. Gives: values and exceptions; no state, no I/O.
"""What a provider lookup walks through and how it ends: the shared vocabulary of provider/."""

from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass
from typing import Any

import griffe

from auditor.provider import functions
from auditor.provider.classes import Unknown

logger = logging.getLogger("drift_audit")
_MARKER = re.compile(r"\(\)|\[\]|\[\*\]")
MAX_DEPTH = 40
MODULE_DUNDERS = frozenset(
    {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__path__",
     "__dict__", "__cached__", "__builtins__", "__annotations__"}
)  # fmt: skip  # what every module object has, whatever its source defines


class _Missing(Exception):
    """A lookup reached a name that does not exist."""

    def __init__(self, path: str, *, module: bool) -> None:
        super().__init__(path)
        self.path = path
        self.module = module


@dataclass(frozen=True)
class _Instance:
    """An object of a provider class (what `Cls()` or an annotation denotes)."""

    cls: griffe.Class


@dataclass(frozen=True)
class _Dynamic:
    """A name a module serves at run time (dynamic.py): what it resolves to (None: not
    known) and the deprecation warning serving it gives."""

    path: str
    obj: Any
    deprecated: str | None


@dataclass(frozen=True)
class _Overloads:
    """A function a stub defines only by @overload variants (griffe keeps them aside)."""

    path: str


@dataclass(frozen=True)
class _Typed:
    """A value known only by its container annotation (`list[Param]`): its items are."""

    annotation: Any


@dataclass(frozen=True)
class _Bound:
    """A method reached through an instance: its first parameter is already supplied;
    `owner`: the class of that instance, when known (what `return self` gives)."""

    function: griffe.Function
    owner: griffe.Class | None = None


class Unreadable(Unknown):
    """A provider module on a lookup's way could not be parsed: what the lookup asks is not
    known, and a site that needs it is reported (`unparsable-provider`), never passed."""

    def __init__(self, module: str, reason: str) -> None:
        super().__init__(f"module {module} could not be parsed: {reason}")
        self.module = module
        self.reason = reason


class Unlisted(Unknown):
    """A name a compiled module's (or class's) stub does not list: unknown by itself (a stub
    is a sketch of the C code), but a removal when the baseline's stub listed it."""

    def __init__(self, path: str, why: str, *, closed: bool = False) -> None:
        super().__init__(why, closed=closed)
        self.path = path


# ---------------------------------------------------------------------- helpers (pure)


def _from_stub(obj: griffe.Object) -> bool:
    """Whether a module or class is known only by a `.pyi` stub: a module with no Python
    source (a compiled one: candidates() read a stub only then). What a stub leaves out
    may still be there at run time (torch's `_C`: private names, aliases the C argument
    parser takes), so it is unknown, never missing."""
    return functions.from_stub(obj)


def _canonical(module: griffe.Module, name: str) -> str:
    """A dotted name as written in `module`, made canonical through its imports."""
    head, _, rest = name.partition(".")
    member = module.members.get(head)
    if member is not None and member.is_alias:
        base = str(getattr(member, "target_path", head))
    elif member is not None:
        base = member.path
    else:
        base = head
    return f"{base}.{rest}" if rest else base


def _function_ast(function: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The AST of a provider function, from its source text."""
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(_source(function)))
    except (SyntaxError, ValueError, RecursionError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _source(obj: Any) -> str:
    try:
        return str(obj.source)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        griffe.BuiltinModuleError,
    ):
        return ""
