"""Drift that binds and still changes behaviour: changed defaults and changed return shapes.

What it owns: comparing, for one call that binds against both releases, (1) the default of
each parameter the call leaves out, and (2) the callee's declared return when the call relies
on the result's shape (scan/results.py: subscripted, iterated, unpacked, len()). These are
reasons to look, never proof of a crash: `changed-default` and `changed-return` are info,
and warning only where the change is about shape or truth (a container became a single
object or the reverse; a `bool` default flipped).

Normalisation keeps spelling changes silent: annotations are parsed and rewritten to one
form (`Optional[X]` and `X | None`, `List[int]` and `list[int]`, `typing.`/`t.` prefixes,
quoted annotations, the order of a union's members); defaults compare as values when both are
literals; a default that is not a literal (a sentinel object, a call, a name) is opaque, and
so is a new default that only marks "not given" (None, or a value of another type than the
old one): neither reports a change, since what it means is decided in the provider's body.

What it takes: a CallShape and two Signatures. What it gives: Problems. Pure functions.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.kinds import Kind, Severity
from auditor.model import ParamKind

if TYPE_CHECKING:
    from auditor.model import CallShape, Param, Signature

POSITIONAL = (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)
NOT_LITERAL = object()  # what literal_value() gives for anything but a literal

_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "Deque": "deque",
    "DefaultDict": "defaultdict",
    "OrderedDict": "OrderedDict",
    "Text": "str",
    "NoneType": "None",
}
_PREFIXES = ("typing.", "t.", "typing_extensions.", "collections.abc.", "collections.", "abc.")
CONTAINERS = frozenset(
    {
        "list", "tuple", "dict", "set", "frozenset", "deque", "defaultdict", "OrderedDict",
        "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "Mapping",
        "MutableMapping", "Generator", "AsyncIterator", "AsyncIterable", "AbstractSet",
        "MutableSet", "KeysView", "ValuesView", "ItemsView",
    }
)  # fmt: skip
OPAQUE_RETURNS = frozenset({"Any", "object", "None", ""})


@dataclass(frozen=True, slots=True)
class Change:
    """A behavioural change at a call: the kind, the parameter, what changed, how serious."""

    kind: Kind
    parameter: str | None
    detail: str
    severity: Severity


# --------------------------------------------------------------------------- annotations


def normalised(annotation: str | None) -> str | None:
    """One spelling for an annotation; None when it is absent or does not parse."""
    if annotation is None or not annotation.strip():
        return None
    try:
        tree = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return None
    parts = _union(tree)
    return " | ".join(sorted(set(parts))) if parts is not None else None


def _union(node: ast.expr) -> list[str] | None:
    """The members of a union annotation (one member for a plain one), each normalised."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _union(node.left), _union(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Subscript):
        head = _name(node.value)
        if head == "Optional":
            inner = _union(node.slice)
            return None if inner is None else [*inner, "None"]
        if head == "Union":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            members = [_union(item) for item in items]
            if any(m is None for m in members):
                return None
            return [x for m in members if m is not None for x in m]
    single = _one(node)
    return None if single is None else [single]


def _one(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        if isinstance(node.value, str):  # a quoted annotation
            return normalised(node.value)
        return repr(node.value)
    if isinstance(node, ast.Subscript):
        head = _name(node.value)
        if head is None:
            return None
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = [normalised_node(item) for item in items]
        if any(a is None for a in args):
            return None
        return f"{head}[{', '.join(a for a in args if a is not None)}]"
    if isinstance(node, (ast.List, ast.Tuple)):  # Callable[[int], str]'s argument list
        args = [normalised_node(item) for item in node.elts]
        return None if any(a is None for a in args) else f"[{', '.join(args)}]"  # type: ignore[arg-type]
    return _name(node)


def normalised_node(node: ast.expr) -> str | None:
    parts = _union(node)
    return " | ".join(sorted(set(parts))) if parts is not None else None


def _name(node: ast.expr) -> str | None:
    """`typing.List` -> `list`, `t.Optional` -> `Optional`, `acme.Request` as written."""
    text: str | None = None
    if isinstance(node, ast.Name):
        text = node.id
    elif isinstance(node, ast.Attribute):
        try:
            text = ast.unparse(node)
        except (ValueError, RecursionError):
            return None
    elif isinstance(node, ast.Constant) and node.value is Ellipsis:
        return "..."
    if text is None:
        return None
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    return _ALIASES.get(text, text)


def _outer(normal: str) -> str:
    return normal.split("[", 1)[0]


def is_container(normal: str) -> bool | None:
    """Whether an annotation names a container; None for a union that mixes or is unknown."""
    members = [m for m in _split_union(normal) if m != "None"]
    kinds = {_outer(m) in CONTAINERS for m in members}
    return kinds.pop() if len(kinds) == 1 else None


def _split_union(normal: str) -> list[str]:
    """The members of a normalised union, ` | ` inside brackets kept whole."""
    out: list[str] = []
    depth = start = 0
    for i, ch in enumerate(normal):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0 and normal.startswith(" | ", i):
            out.append(normal[start:i])
            start = i + 3
    out.append(normal[start:])
    return out


# --------------------------------------------------------------------------- the checks


def changed_return(uses: tuple[str, ...], before: Signature, after: Signature) -> Change | None:
    """The declared return changed in a way that matters for how the site uses the result."""
    if not uses:
        return None
    old, new = normalised(before.returns), normalised(after.returns)
    if old is None or new is None or old == new:
        return None
    if old in OPAQUE_RETURNS or new in OPAQUE_RETURNS:
        return None
    how = ", ".join(uses)
    flipped = is_container(old) is not None and is_container(new) is not None
    flipped = flipped and is_container(old) != is_container(new)
    severity = Severity.WARNING if flipped else Severity.INFO
    shape = " (a container before, a single object now)" if is_container(old) else ""
    if flipped and not is_container(old):
        shape = " (a single object before, a container now)"
    detail = f"it returned {before.returns}, now {after.returns}{shape}; the result is {how} here"
    return Change(Kind.CHANGED_RETURN, None, detail, severity)


def changed_defaults(shape: CallShape, before: Signature, after: Signature) -> list[Change]:
    """Each parameter the call leaves to its default whose default changed (as a value)."""
    out = []
    old_params = {p.name: p for p in before.params}  # one lookup per parameter, not a scan
    for param in left_out(shape, after):
        old = old_params.get(param.name)
        if old is None or old.default is None or param.default is None:
            continue  # new in the target, or required before: not a changed default
        was, now = literal_value(old.default), literal_value(param.default)
        if was is NOT_LITERAL or now is NOT_LITERAL or same_value(was, now) or _marker(was, now):
            continue
        flipped = isinstance(was, bool) and isinstance(now, bool)
        flipped = flipped and normalised(param.annotation or "bool") in ("bool", "None | bool")
        severity = Severity.WARNING if flipped else Severity.INFO
        why = " (a bool flipped: the call now asks for the opposite)" if flipped else ""
        detail = f"the call leaves {param.name} out: it was {old.default}, now {param.default}{why}"
        out.append(Change(Kind.CHANGED_DEFAULT, param.name, detail, severity))
    return out


def left_out(shape: CallShape, signature: Signature) -> list[Param]:
    """The parameters with a default that the call certainly does not pass."""
    if shape.star_kwargs:
        return []  # **kw may pass any of them
    positional = [p for p in signature.params if p.kind in POSITIONAL]
    by_position = {p.name for p in positional[: shape.positional]}
    keywords = frozenset(shape.keywords)
    out = []
    for param in signature.params:
        if param.default is None or param.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD):
            continue
        if param.name in by_position or param.name in keywords:
            continue
        if shape.star_args and param.kind in POSITIONAL:
            continue  # *xs may reach it
        out.append(param)
    return out


@functools.lru_cache(maxsize=4096)  # the same defaults, release after release
def literal_value(text: str) -> object:
    """The value of source text that is a literal; NOT_LITERAL for anything else (opaque).
    Only compared, never changed: a cached list or dict is shared."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOT_LITERAL


def _marker(was: object, now: object) -> bool:
    """A new default that marks "not given" rather than a value: None, or a value of another
    type than the old default (`True` -> `'deprecated'`). The provider decides in its body
    what leaving the parameter out means now (pandas' `copy=None`, attrs' `cmp=None`,
    scikit-learn's `squared='deprecated'`), which is not known statically; a deprecation
    warning, if any, is `deprecated`'s to report. `None` -> a value is a change: what was
    decided later is fixed now (vLLM's `seed=None` -> `seed=0`)."""
    if was is None:
        return False
    return now is None or type(now) is not type(was)


def same_value(a: object, b: object) -> bool:
    """Equal as values of the same type (`1` and `True`, `1` and `1.0` differ)."""
    return type(a) is type(b) and repr(a) == repr(b)
