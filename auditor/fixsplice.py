# Maintainers: how --fix puts its edits into a file, and the last look before it is written.
#
# Owns: splicing (each edit a range of the file's own text, by code point offsets, and the
# text that replaces it; nothing else of the file is touched, not a line end, not a lone CR,
# not a comment ending in a backslash), and the check that the spliced text's AST is the old
# one's with only the edited nodes changed, into exactly what the edits say they become. A
# whole-module round trip through libcst is not exact (a line holding only a backslash after
# an indented block comes back indented, so the statement after it moves into the block; a
# final lone CR or a last comment ending in `\` loses its line end): fixes.py takes from
# libcst only the text of each edited node, and this module puts it in the original bytes.
# Takes: a file's text, its Splices. Gives: the new text, or None; whether it is sound.
# No libcst here.
"""Fixes spliced into a file's own text, and the check that only the edited nodes changed."""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_right
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from auditor.deep import deeply
from auditor.model import Unparsable
from auditor.scan.source import parse_source

if TYPE_CHECKING:
    from collections.abc import Sequence

_NEWLINE = re.compile(r"\r\n|\r|\n")  # lines as Python and libcst end them
_Place = tuple[int, int, int | None, int | None]  # line, byte column, end line, end column


@dataclass(frozen=True, slots=True)
class Splice:
    """Replace text[start:end] by `text`. It edits the node that stands at
    text[node[0]:node[1]], a call (which becomes the expression `becomes[0]`) or, with
    `statements`, a `from` import (which becomes the statements of `becomes`)."""

    start: int
    end: int
    text: str
    node: tuple[int, int]
    becomes: tuple[str, ...]
    statements: bool = False


def spliced(text: str, splices: Sequence[Splice]) -> str | None:
    """`text` with each splice made; None when two overlap or one is not in the text."""
    spans = sorted(splices, key=lambda s: (s.start, s.end))
    if any(s.start < 0 or s.end < s.start or s.end > len(text) for s in spans):
        return None
    if any(later.start < earlier.end for earlier, later in pairwise(spans)):
        return None
    parts, last = [], 0
    for splice in spans:
        parts += [text[last : splice.start], splice.text]
        last = splice.end
    return "".join([*parts, text[last:]])


def only_edited(path: str, old: str, new: str, splices: Sequence[Splice]) -> bool:
    """Whether `new`'s AST is `old`'s with each edited node replaced by what it becomes, and
    nothing else changed (positions aside): the fix moved no statement, swallowed no line,
    and did what it says. False when either text does not parse, or a node is not found."""
    try:
        return deeply(_only_edited, path, old, new, splices)
    except (RecursionError, MemoryError, SyntaxError, ValueError):
        return False


def _only_edited(path: str, old: str, new: str, splices: Sequence[Splice]) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the parser's, as parse_source silences them
        return _same_but_edited(path, old, new, splices)


def _same_but_edited(path: str, old: str, new: str, splices: Sequence[Splice]) -> bool:
    before, after = parse_source(path, old), parse_source(path, new)
    if isinstance(before, Unparsable) or isinstance(after, Unparsable):
        return False
    places = _Places(old)
    targets: dict[_Place, ast.expr | list[ast.stmt]] = {}
    for splice in splices:
        start, end = places.at(splice.node[0]), places.at(splice.node[1])
        targets[(*start, *end)] = _becomes(splice)
    expected = _Swap(targets).visit(before)
    return not targets and ast.dump(expected) == ast.dump(after)


def _becomes(splice: Splice) -> ast.expr | list[ast.stmt]:
    """The nodes an edited node becomes: a call (an expression), or statements."""
    if not splice.statements:
        return ast.parse(f"({splice.becomes[0]})", mode="eval").body
    return [statement for piece in splice.becomes for statement in ast.parse(piece).body]


class _Places:
    """Offsets in a text as the AST places them: (line, UTF-8 byte column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset) - 1
        column = self.text[self.starts[line] : offset].encode("utf-8", "surrogatepass")
        return line + 1, len(column)


class _Swap(ast.NodeTransformer):
    """Each call or `from` import standing at a target's place replaced by what it becomes;
    a target found is taken out of `targets`, so what is left was not found."""

    def __init__(self, targets: dict[_Place, ast.expr | list[ast.stmt]]) -> None:
        self.targets = targets

    def visit_Call(self, node: ast.Call) -> ast.AST:
        new = self._taken(node)
        return new if isinstance(new, ast.expr) else self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | list[ast.stmt]:
        new = self._taken(node)
        return new if isinstance(new, list) else node

    def _taken(self, node: ast.Call | ast.ImportFrom) -> ast.expr | list[ast.stmt] | None:
        place = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        new = self.targets.get(place)
        if new is not None and isinstance(node, ast.Call) == isinstance(new, ast.expr):
            del self.targets[place]
            return new
        return None
