"""The fix writer, proven by a round trip (trust, round four, items 2 and 9).

Random valid programs: calls of `acme.run` at module level, in nested blocks, over several
lines, nested in one another; `from` imports of a moved name; lines holding only a backslash
after an indented block, backslash continuations inside and outside brackets, comments (some
ending in a backslash), blank and blank-looking lines, strings holding `\\` and `#`, tabs or
spaces, LF, CRLF, lone CR or a mix of them, with or without a final line end (or an extra
lone CR). Each call and import gets findings with repairs (a keyword renamed or dropped,
positional arguments given by keyword, a name moved); the proposals are made as the audit
makes them (fixtext.py, else fixes.py) and the writer (fixfiles.fixed_text, what --fix
writes and --diff shows) applies them all. For every example:

- the bytes outside the edited calls and imports are the old ones, in order, every one;
- the new AST is the old one with each edited call (or import) replaced by the node its
  repairs make, worked out here on the AST itself, and nothing else changed;
- a text the writer refuses is the old text, and a file libcst reads back exactly is never
  refused.

    DRIFT_AUDIT_FIX_EXAMPLES=5000 python -m pytest -q tests/unit/test_fix_roundtrip.py
"""

from __future__ import annotations

import ast
import copy
import os
import re
from typing import TYPE_CHECKING

import libcst as cst
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from auditor import fixes, fixtext
from auditor.fixfiles import fixed_text
from auditor.kinds import Kind
from auditor.model import Finding, FixHint, Location

if TYPE_CHECKING:
    from collections.abc import Sequence

EXAMPLES = int(os.environ.get("DRIFT_AUDIT_FIX_EXAMPLES", "100"))  # 5,000 by hand: minutes
PATH = "widget/m.py"
_NEWLINE = re.compile(r"\r\n|\r|\n")

# --------------------------------------------------------------------------- programs

COMMENTS = st.sampled_from(
    ["# c", "# see \\", "# caf\u00e9 \\", "#", "# (", "# x = 1", "# \\\\", "# '''"]
)
VALUES = st.sampled_from(["5", "2", "'s'", "x", "None", "[1, 2]", "'\\\\'", "'#'", "f(1)"])
SPACE = st.sampled_from(["", " ", "  "])


@st.composite
def arguments(draw: st.DrawFn, depth: int) -> list[str]:
    """A call's arguments: positional ones, then keywords (one is `old` most of the time);
    a value may itself be a call of acme.run."""
    args = [draw(value(depth)) for _ in range(draw(st.integers(0, 2)))]
    names = draw(st.lists(st.sampled_from(["old", "b", "other"]), max_size=2))
    if draw(st.integers(0, 3)) and "old" not in names:
        names.insert(draw(st.integers(0, len(names))), "old")
    return args + [f"{name}={draw(value(depth))}" for name in dict.fromkeys(names)]


@st.composite
def value(draw: st.DrawFn, depth: int) -> str:
    if depth < 2 and draw(st.integers(0, 5)) == 0:
        return draw(call(depth + 1))
    return draw(VALUES)


@st.composite
def call(draw: st.DrawFn, depth: int = 0) -> str:
    """acme.run(...) on one line, or over several lines: the arguments' own lines at any
    indentation, comments after them, backslashes between them, a trailing comma."""
    args = draw(arguments(depth))
    head = draw(st.sampled_from(["acme.run", "acme.run ", "acme . run"]))
    if not args or draw(st.booleans()):
        return f"{head}({', '.join(args)})"
    parts = [f"{head}("]
    for n, arg in enumerate(args):
        comma = "," if n < len(args) - 1 or draw(st.booleans()) else ""
        tail = draw(st.sampled_from(["", "  # c", "  # see \\", " \\", ""]))
        if tail == " \\" and n == len(args) - 1 and not comma:
            tail = ""
        parts.append(f"{draw(st.sampled_from(['', '  ', '    ', '        ']))}{arg}{comma}{tail}")
    parts.append(draw(st.sampled_from([")", "  )", "    )"])))
    return "\n".join(parts)


@st.composite
def statement(draw: st.DrawFn, pad: str, in_def: bool, kind: int | None = None) -> list[str]:
    """One simple statement, as lines (the first at `pad`, what follows it as it falls);
    kind 0: a call."""
    kind = draw(st.integers(0, 11)) if kind is None else kind
    if kind <= 5:
        lines = draw(call()).split("\n")
        first = draw(st.sampled_from(["", "x = ", "return " if in_def else "", "print(", "y = ["]))
        if len(lines) == 1 and draw(st.integers(0, 4)) == 0:
            first = draw(st.sampled_from(["f'{", "f'a{x}{"]))
        lines[0] = first + lines[0]
        lines[-1] += {"print(": ")", "y = [": "]", "f'{": "}'", "f'a{x}{": "!r:>{x}}'"}.get(
            first, ""
        )
    elif kind == 6:
        lines = ["x = 1 + \\", f"{draw(SPACE)}2"]
    elif kind == 7:
        lines = [f'x = "a\\\\"  {draw(COMMENTS)}']
    elif kind == 8:
        lines = ['s = """one \\', "two # not a comment", '"""']
    elif kind == 9:
        names = draw(st.sampled_from(["cdiv", "cdiv, clamp", "clamp, cdiv", "cdiv as c"]))
        lines = [f"from acme.utils import {names}"]
    elif kind == 10:
        lines = [f"VERSION = {draw(VALUES)}"]
    else:
        lines = ["pass"]
    if draw(st.integers(0, 3)) == 0:
        lines[-1] += f"  {draw(COMMENTS)}"
    return [pad + lines[0], *lines[1:]]


@st.composite
def block(draw: st.DrawFn, pad: str, unit: str, depth: int, in_def: bool = False) -> list[str]:
    """Statements at `pad` (one at least): simple ones, compound ones with a body one level
    in, and the lines between them (comments, blanks, a line holding only a backslash)."""
    out: list[str] = []
    statements = 0
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 7))
        statements += kind not in (2, 3)
        if kind <= 1 and depth < 2:
            head = draw(st.sampled_from(["def go():", "if x:", "class C:", "for i in y:"]))
            inner = head == "def go():" or (in_def and head != "class C:")
            body = draw(block(pad + unit, unit, depth + 1, inner))
            if head == "def go():" and draw(st.booleans()):
                body.append(pad + unit + "return " + draw(call()))
            out += [pad + head, *body]
        elif kind == 2:
            out.append(pad + draw(COMMENTS))
        elif kind == 3:
            out.append(draw(st.sampled_from(["", "   ", "\t", "\f"])))
        elif kind == 4:  # a lone backslash: the statement takes its line's indentation, or
            if pad and unit != "\t" and draw(st.booleans()):  # at column 0 the next line's
                out.append(pad + "\\")
                out += draw(statement(draw(st.sampled_from([pad, pad + unit])), in_def))
            else:
                out.append("\\")
                out += draw(statement(pad, in_def))
        else:
            out += draw(statement(pad, in_def))
    return out if statements else [*out, pad + "pass"]


@st.composite
def program(draw: st.DrawFn) -> str:
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    lines = ["import acme", *draw(block("", unit, 0))]
    last = draw(statement("", in_def=False, kind=0))  # a call at least, after all that or first
    lines = [*lines, *last] if draw(st.integers(0, 3)) else [lines[0], *last, *lines[1:]]
    ends = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    text = ""
    for line in lines:
        text += line + (draw(st.sampled_from(["\n", "\r\n", "\r"])) if ends == "mixed" else ends)
    last = draw(st.sampled_from(["as is", "no end", "lone CR", "comment", "comment, no end"]))
    if last == "no end":
        text = text.rstrip("\r\n")
    elif last == "lone CR":
        text += "\r"
    elif last.startswith("comment"):
        text += "# see \\" + ("" if last.endswith("no end") else ends.replace("mixed", "\n"))
    return text


def round_trip(text: str) -> str | None:
    """The text as libcst writes back what it read; None when it cannot read it."""
    try:
        return cst.parse_module(text).code
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None


def valid(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


# --------------------------------------------------------------------------- findings


class Places:
    """A text's (line, UTF-8 byte column) places, as the AST gives them, as offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def offset(self, line: int, byte_column: int) -> int:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        raw = self.text[start:end].encode("utf-8")[:byte_column]
        return start + len(raw.decode("utf-8"))

    def span(self, node: ast.expr | ast.stmt) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.offset(node.lineno, node.col_offset), self.offset(
            node.end_lineno, node.end_col_offset
        )

    def location(self, node: ast.expr | ast.stmt) -> Location:
        start, end = self.span(node)
        assert node.end_lineno is not None
        return Location(
            PATH,
            node.lineno,
            start - self.starts[node.lineno - 1] + 1,
            node.end_lineno,
            end - self.starts[node.end_lineno - 1] + 1,
        )


def moves(node: ast.AST) -> bool:
    """`from acme.utils import ...cdiv...`: cdiv moved to acme.utils.math."""
    if not isinstance(node, ast.ImportFrom) or node.module != "acme.utils":
        return False
    return any(a.name == "cdiv" for a in node.names)


def is_run(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "run"


@st.composite
def hints(draw: st.DrawFn, node: ast.Call) -> list[FixHint]:
    """Repairs one could ask of this call (several compose)."""
    keywords = [k.arg for k in node.keywords]
    out = []
    repair = draw(st.integers(0, 9)) if "old" in keywords else None
    if repair is not None and repair < 6:
        out.append(FixHint("rename-keyword", True, old="old", new="new"))
    elif repair is not None and repair < 9:
        out.append(FixHint("drop-keyword", False, old="old", default="5"))
    if node.args and draw(st.booleans()):
        out.append(FixHint("keywordize", True, names=("a",), start=len(node.args) - 1))
    return out


@st.composite
def findings_for(draw: st.DrawFn, text: str, tree: ast.Module) -> list[Finding]:
    places, out = Places(text), []
    for node in ast.walk(tree):
        if is_run(node):
            assert isinstance(node, ast.Call)
            for hint in draw(hints(node)):
                out.append(finding(places.location(node), "acme.run", hint))
        elif moves(node) and draw(st.booleans()):
            assert isinstance(node, ast.ImportFrom)
            hint = FixHint("move-import", True, old="acme.utils", new="acme.utils.math")
            out.append(finding(places.location(node), "acme.utils.cdiv", hint))
    return out


def finding(where: Location, symbol: str, hint: FixHint) -> Finding:
    return Finding(
        Kind.UNEXPECTED_KEYWORD, where, "m", symbol, None, ("0.2",), None, None, hint=hint
    )


# --------------------------------------------------------------------------- expected


def repaired_call(node: ast.Call, repairs: Sequence[FixHint]) -> ast.Call:
    """The call with these repairs, made on the AST."""
    new = copy.deepcopy(node)
    for hint in repairs:
        if hint.action == "rename-keyword":
            for keyword in new.keywords:
                if keyword.arg == hint.old:
                    keyword.arg = hint.new
        elif hint.action == "drop-keyword":
            new.keywords = [k for k in new.keywords if k.arg != hint.old]
        else:
            moved = new.args[hint.start : hint.start + len(hint.names)]
            new.args = new.args[: hint.start]
            given_by = [ast.keyword(name, v) for name, v in zip(hint.names, moved, strict=True)]
            new.keywords = given_by + new.keywords
    return new


def moved_import(node: ast.ImportFrom) -> list[ast.stmt]:
    """`from acme.utils import cdiv[, others]` with cdiv moved to acme.utils.math."""
    moving = [a for a in node.names if a.name == "cdiv"]
    staying = [a for a in node.names if a.name != "cdiv"]
    moved = ast.ImportFrom("acme.utils.math", moving, 0)
    return [moved] if not staying else [ast.ImportFrom(node.module, staying, 0), moved]


class Expected(ast.NodeTransformer):
    """The old tree with each fixed node replaced by what its repairs make."""

    def __init__(self, places: Places, fixed: Sequence[Finding]) -> None:
        self.places = places
        self.calls: dict[Location, list[FixHint]] = {}
        self.imports: set[Location] = set()
        for f in fixed:
            assert f.hint is not None
            if f.hint.action == "move-import":
                self.imports.add(f.location)
            else:
                self.calls.setdefault(f.location, []).append(f.hint)
        self.edited: list[tuple[int, int]] = []  # the outermost edited spans, in order

    def visit_Call(self, node: ast.Call) -> ast.AST:
        where = self.places.location(node)
        inner = self.generic_visit(node)
        if where not in self.calls:
            return inner
        self.edited.append(self.places.span(node))
        assert isinstance(inner, ast.Call)
        return repaired_call(inner, self.calls[where])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | list[ast.stmt]:
        if self.places.location(node) not in self.imports:
            return node
        start, end = self.places.span(node)  # the import, and the rest of its line
        line_end = _NEWLINE.search(self.places.text, end)
        self.edited.append((start, line_end.end() if line_end else len(self.places.text)))
        return moved_import(node)


def outside(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The text outside the outermost of these spans, piece by piece."""
    pieces, last = [], 0
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if start < last:
            continue  # inside an edited call
        pieces.append(text[last:start])
        last = end
    return [*pieces, text[last:]]


# --------------------------------------------------------------------------- the property


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, ast.Module, list[Finding]]:
    text = draw(program())
    tree = valid(text)
    if tree is None:  # a generated shape Python refuses (rare): try another
        text = "import acme\nacme.run(1, old=5)\n"
        tree = valid(text)
        assert tree is not None
    return text, tree, draw(findings_for(text, tree))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(cases())
def test_the_fix_writer_changes_only_the_edited_calls(
    case: tuple[str, ast.Module, list[Finding]],
) -> None:
    old, tree, asked = case
    proposed = fixtext.propose(asked, lambda _: old, fixes.propose)
    chosen = [f for f in proposed if f.fix is not None]
    new, fixed, refused = fixed_text(PATH, old, chosen, unsafe=True)
    exact = round_trip(old) == old
    event(f"libcst round trip exact: {exact}; refused: {refused}")
    event(f"fixed {min(len(fixed), 3)}+ of {min(len(chosen), 3)}+ proposed")
    if refused is not None or not fixed:
        assert new == old
        assert not (exact and refused), refused  # what libcst reads back exactly is fixed
        return
    places = Places(old)
    expected = Expected(places, fixed)
    want = ast.dump(expected.visit(copy.deepcopy(tree)))
    assert ast.dump(ast.parse(new)) == want
    pieces = outside(old, expected.edited)
    pattern = "(.*?)".join(re.escape(piece) for piece in pieces)
    assert re.fullmatch(pattern, new, re.DOTALL), (old, new)
