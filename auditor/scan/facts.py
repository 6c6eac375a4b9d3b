# Maintainers: the raw facts one walk over one file collects, before any name is resolved.
#
# Owns: `Use` (a name, attribute chain or call seen in some scope; a chain may pass through
# calls: `f(x).a` is root `f`, attrs `("()", "a")`), `CallFacts` (what a call passes, read
# while its node is at hand), `SuperUse`, `NameStore` (`x = ...`),
# `AttrStore` (`self.x = ...`), `FunctionFacts`, `ClassFacts` and `FileFacts`, plus
# `Positions`, which turns ast's
# positions (1-based lines, 0-based UTF-8 byte offsets) into model.Location (1-based
# character columns) exactly once.
# Takes: nothing but what the walker appends. Gives: input to resolve, calls and classes,
# which turn facts into model.Site and model.Edge once every file's bindings are known.
#
# The facts hold no AST node: what the later stages read of one is read by the walker (a
# span, a call's shape, a value as a name or chain), and an annotation, a default or a
# decorator is kept as its source text (`Expr`), parsed again only when a later stage reads
# it. So a file's tree is freed once it is walked (transformers: ~1 GiB of trees were kept
# until the scan ended), and a file's facts can be kept between runs as plain data
# (keptfacts.py): an edited consumer walks only the files that changed.
from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from auditor.model import (
    CallShape,
    Definition,
    Edge,
    FlagDef,
    FlagGate,
    FlagHelper,
    Handled,
    Location,
    ParamKind,
    Site,
    VersionGate,
)
from auditor.scan.spreads import NOTHING

if TYPE_CHECKING:
    from auditor.provider.forwards import Forward
    from auditor.scan.scopes import Scope, Source
    from auditor.scan.spreads import Spread

Span = tuple[int, int, int, int]  # line, byte offset, end line, end byte offset (raw ast)
Reference = tuple[str, tuple[str, ...]]  # an expression as a name or chain: root, steps
CALLED: Final = "()"  # the step of a chain that calls what precedes it
ITEM: Final = "[]"  # the step of a chain that subscripts what precedes it
EACH: Final = "[*]"  # an element of what precedes it, as `for x in ...` iterates it
OPS: Final = (CALLED, ITEM, EACH)


def span_of(node: ast.expr | ast.stmt | ast.alias) -> Span:
    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return (node.lineno, node.col_offset, end_line, end_col)


@dataclass(frozen=True, slots=True)
class Positions:
    """Converts raw ast spans of one file to model.Location."""

    path: str
    lines: tuple[str, ...]  # every line while the file is walked; () once compact()
    wide: dict[int, str] | None = None  # once compact(): line number -> a non-ASCII line

    def compact(self) -> Positions:
        """These positions without the lines that need no converting (ASCII: a byte offset
        is a character's), once the file is walked: its lines are then not kept twice."""
        wide = {n: text for n, text in enumerate(self.lines, 1) if not text.isascii()}
        return Positions(self.path, (), wide)

    def column(self, line: int, offset: int) -> int:
        if self.wide is not None:
            text = self.wide.get(line)
        else:
            text = self.lines[line - 1] if 1 <= line <= len(self.lines) else None
        if text is None or text.isascii():
            return offset + 1
        return len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) + 1

    def location(self, span: Span) -> Location:
        line, col, end_line, end_col = span
        return Location(
            self.path, line, self.column(line, col), end_line, self.column(end_line, end_col)
        )

    def of(self, node: ast.expr | ast.stmt | ast.alias) -> Location:
        return self.location(span_of(node))

    def expr(self, node: ast.expr) -> Expr:
        """`node` as its source text (the lines it spans, cut at its byte offsets)."""
        line, col, end_line, end_col = span_of(node)
        lines = self.lines
        if not 1 <= line <= end_line <= len(lines):
            return Expr(ast.unparse(node))  # positions the lines do not have: not expected
        if line == end_line:
            text = lines[line - 1]
            if text.isascii():
                return Expr(text[col:end_col])
            return Expr(text.encode("utf-8")[col:end_col].decode("utf-8", "replace"))
        first = lines[line - 1].encode("utf-8")[col:].decode("utf-8", "replace")
        last = lines[end_line - 1].encode("utf-8")[:end_col].decode("utf-8", "replace")
        return Expr("\n".join((first, *lines[line : end_line - 1], last)))


@dataclass(frozen=True, slots=True)
class Expr:
    """An expression (an annotation, a default, a decorator) kept as its source text."""

    text: str

    @property
    def node(self) -> ast.expr | None:
        """The expression parsed again (shared: read it, never change it); None if the text
        is not one expression (a kept record may be damaged)."""
        return parse_expr(self.text)


@lru_cache(maxsize=1 << 16)
def parse_expr(text: str) -> ast.expr | None:
    """One expression's text parsed, inside brackets so that it may span lines; a starred
    one (`*args: *Ts`) parsed as its value, starred."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the file's own parse reported them
            return ast.parse(f"(\n{text}\n)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        if text.startswith("*"):
            value = parse_expr(text[1:])
            return None if value is None else ast.Starred(value, ast.Load())
        return None


class UseKind(Enum):
    NAME = "name"  # a bare name that is read (edges only)
    ATTRIBUTE = "attribute"  # a dotted chain that is read, not called
    CALL = "call"  # a dotted chain (or bare name) that is called
    STORE = "store"  # a dotted chain that is assigned to (`a.b.c = 1`)


@dataclass(eq=False, slots=True)
class CallFacts:
    """What one call passes and how its result is used, read from its node by the walker."""

    shape: CallShape  # spread keys (spreads.py) included
    result_use: tuple[str, ...]  # how the code relies on its result (results.py)
    positional_first: bool  # the first argument is positional, not `*args` (partial)
    first: Reference | None  # that argument, when it is a name or a chain


@dataclass(eq=False, slots=True)
class Use:
    """Recorded for every name read, so it stays cheap: locations come later."""

    scope: Scope
    root: str
    attrs: tuple[str, ...]
    kind: UseKind
    span: Span | None  # the outermost Attribute's, or the Call's; None for a NAME
    guarded: bool
    call: CallFacts | None = None  # a CALL's, the only kind whose node is a Call

    @property
    def through_call(self) -> bool:
        """The chain passes through a call: `f().a`, `x.m().n`."""
        return CALLED in self.attrs or ITEM in self.attrs


@dataclass(frozen=True, slots=True)
class SuperUse:
    """`super().meth(...)` or `super(C, self).meth(...)`."""

    scope: Scope
    klass: str | None  # the class whose method holds the call
    explicit: str | None  # the name `C` in `super(C, self)`
    method: str
    span: Span
    call: CallShape
    guarded: bool


@dataclass(frozen=True, slots=True)
class NameStore:
    """A plain store of a name in a scope (parameters, `x = ...`, `for x in ...`, ...)."""

    scope: Scope
    name: str
    source: Source | None  # None: the stored value cannot be read statically


@dataclass(frozen=True, slots=True)
class AttrStore:
    """`root.attr = ...` (or `root.attr: T`, `root.attr += ...`, `del root.attr`)."""

    scope: Scope
    root: str  # resolved later: an attribute of `self` in a method is the class's
    attr: str
    source: Source | None  # None: the stored value cannot be read statically


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of a `def` or a lambda, in the order of its signature."""

    name: str
    kind: ParamKind
    default: Expr | None
    annotation: Expr | None


@dataclass(frozen=True, slots=True)
class FunctionFacts:
    """A `def`, without its body: what its callers and its result depend on."""

    path: str
    scope: Scope  # where its annotations and decorators are evaluated
    params: tuple[Parameter, ...]
    returns: Expr | None
    decorators: tuple[Expr, ...]
    is_async: bool
    forward: Forward | None = None  # where its **kwargs go on to, unchanged (forwards.py)


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    span: Span  # the name in the `def` line
    guarded: bool
    function: FunctionFacts | None = None


@dataclass(slots=True)
class ClassFacts:
    path: str
    qualname: str
    scope: Scope  # where the bases are evaluated
    bases: list[tuple[str, tuple[str, ...], Span]] = field(default_factory=list)
    methods: list[Method] = field(default_factory=list)
    guarded: bool = False
    body: Scope | None = None  # the class body's own scope
    made: bool = False  # decorated or given a metaclass: its constructor may not be __init__


@dataclass(slots=True)
class FileFacts:
    path: str
    module: str
    is_package: bool
    positions: Positions
    module_scope: Scope
    uses: list[Use] = field(default_factory=list)
    supers: list[SuperUse] = field(default_factory=list)
    classes: list[ClassFacts] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    containment: list[Edge] = field(default_factory=list)
    import_sites: list[Site] = field(default_factory=list)
    module_refs: list[tuple[str, str]] = field(default_factory=list)  # (owner, target)
    name_stores: list[NameStore] = field(default_factory=list)
    attr_stores: list[AttrStore] = field(default_factory=list)
    functions: list[FunctionFacts] = field(default_factory=list)
    handled: list[Handled] = field(default_factory=list)
    gates: list[VersionGate] = field(default_factory=list)
    flag_defs: list[FlagDef] = field(default_factory=list)  # scan/flags.py
    flag_helpers: list[FlagHelper] = field(default_factory=list)
    flag_gates: list[FlagGate] = field(default_factory=list)
    spread_keys: dict[int, Spread] = field(default_factory=dict)  # id(call) -> its spreads
    results: dict[int, tuple[str, ...]] = field(default_factory=dict)  # id(call) -> uses

    def spreads(self, node: ast.AST) -> Spread:
        """What a call's `**d` spreads carry (scan/spreads.py)."""
        return self.spread_keys.get(id(node), NOTHING)

    def result_use(self, node: ast.AST) -> tuple[str, ...]:
        """How the code relies on a call's result (scan/results.py)."""
        return self.results.get(id(node), ())
