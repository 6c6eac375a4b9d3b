# Maintainers: fix proposals made on the text, without libcst (~0.2 s to import with
# fixes.py, more than the rest of a warm audit), for the plain cases a report carries.
#
# Owns: the same Fix that fixes.py makes through libcst's tree, byte for byte, computed from
# the file's tokens (tokenize) and its AST (the call or import at the finding's place): a
# keyword renamed, dropped or given to positional arguments, a `from old import name` moved.
# The text an edit writes follows how libcst owns whitespace: the space after a comma is the
# comma's, a last argument without a comma owns the space before `)`, a dropped last argument
# hands its comma (and what follows it) to the one before. Anything outside the plain cases
# (a line with a tab, a non-ASCII character or a backslash continuation, a file with a CR or
# another line break Python and libcst may count differently, a call in an f-string, an
# import over several lines, relative or with a `;`, a place the AST has no call or import
# at, edits that overlap) is not guessed at: the file goes to fixes.py, as before.
# tests/unit/test_fixtext.py holds the two to the same answers, on cases and on real code.
# Also owns what both use: the check that a fixed text parses, and splicing edits in.
# Takes: findings with hints and their files' text. Gives: findings with `fix` set, and
# those left to fixes.propose.
"""Fix proposals from the text: no libcst for the plain cases."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from auditor.behaviour import NOT_LITERAL, literal_value, same_value
from auditor.bind import is_keyword_name
from auditor.model import Edit, Fix, Unparsable, text_digest
from auditor.scan.source import parse_source

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from auditor.model import Finding, FixHint

    Propose = Callable[[Sequence[Finding], Callable[[str], str | None]], tuple[Finding, ...]]

_NEWLINE = re.compile(r"\r\n|\r|\n")
# what Python, libcst and _NEWLINE might split lines at differently: such a file goes to libcst
_ODD = re.compile("[\r\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_SKIP = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
     tokenize.ENDMARKER}
)  # fmt: skip


class Unsure:
    """Not a plain case: fixes.py (libcst) decides."""


UNSURE = Unsure()


# --------------------------------------------------------------------------- proposing


def propose(
    findings: Sequence[Finding], read: Callable[[str], str | None], slow: Propose
) -> tuple[Finding, ...]:
    """The findings, each with its Fix when its hint applies, as fixes.propose gives them;
    the files that are not plain cases are given to `slow` (fixes.propose)."""
    by_path: dict[str, list[int]] = {}
    for i, finding in enumerate(findings):
        if finding.hint is not None:
            by_path.setdefault(finding.module_path or finding.location.path, []).append(i)
    out, left = list(findings), []
    for module_path, indexes in by_path.items():
        text = read(module_path)
        if text is None:
            continue
        made = file_fixes(module_path, text, [findings[i] for i in indexes])
        if made is None:
            left += indexes
            continue
        for i, fix in zip(indexes, made, strict=True):
            if fix is not None:
                out[i] = replace(findings[i], fix=replace(fix, digest=text_digest(text)))
    if left:
        for i, finding in zip(left, slow([findings[i] for i in left], read), strict=True):
            out[i] = finding
    return tuple(out)


def file_fixes(path: str, text: str, findings: Sequence[Finding]) -> list[Fix | None] | None:
    """Each finding's Fix in this file (None: no fix), or None when the file is not a
    plain case."""
    if _ODD.search(text):
        return None
    tree = parse_source(path, text)
    if isinstance(tree, Unparsable):
        return None
    source = _Text(text, tree)
    made: list[Fix | None] = []
    for finding in findings:
        fix = source.fix_for(finding)
        if isinstance(fix, Unsure):
            return None
        made.append(fix)
    return source.parsing(path, made)


def parses(path: str, text: str) -> bool:
    """Whether `text` parses as the audit parses a consumer file."""
    return not isinstance(parse_source(path, text), Unparsable)


def spliced(text: str, edits: Sequence[Edit]) -> str | None:
    """`text` with each edit's range replaced by its text; None when two ranges overlap or
    one is not in the text. Lines end as the parser ends them (and libcst counts them)."""
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    try:
        spans = sorted(
            (starts[e.line - 1] + e.column - 1, starts[e.end_line - 1] + e.end_column - 1, e.text)
            for e in edits
        )
    except IndexError:
        return None
    if any(later[0] < earlier[1] for earlier, later in pairwise(spans)):
        return None
    parts, last = [], 0
    for start, end, new in spans:
        parts += [text[last:start], new]
        last = end
    return "".join([*parts, text[last:]])


# --------------------------------------------------------------------------- the text


@dataclass(frozen=True, slots=True)
class _Arg:
    start: int  # offsets in the call's text: the argument itself, without the space around
    end: int
    comma: int | None  # the end of its comma, if it has one
    keyword: tuple[int, int] | None  # the keyword's name
    value: int  # where the value starts (after `=`, after `*`)
    star: bool


class _Text:
    """A file's text, its lines' offsets, and its calls and imports by place."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.calls: dict[tuple[int, int, int, int], ast.Call] = {}
        self.imports: dict[int, list[ast.ImportFrom]] = {}
        self._index(tree)

    def _index(self, tree: ast.AST) -> None:
        todo = [tree]
        while todo:
            node = todo.pop()
            if isinstance(node, ast.JoinedStr):
                continue  # positions inside f-strings: left to libcst
            if isinstance(node, ast.Call) and node.end_lineno is not None:
                key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset or 0)
                self.calls[key] = node
            elif isinstance(node, ast.ImportFrom):
                self.imports.setdefault(node.lineno, []).append(node)
            todo.extend(ast.iter_child_nodes(node))

    def plain(self, first: int, last: int) -> str | None:
        """Lines first..last (1-based) as one string, if they are plain: ASCII (columns are
        bytes), no tab, no backslash continuation."""
        if last > len(self.starts):
            return None
        end = self.starts[last] if last < len(self.starts) else len(self.text)
        lines = self.text[self.starts[first - 1] : end]
        if not lines.isascii() or "\t" in lines or "\\\n" in lines:
            return None
        return lines

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column

    # ------------------------------------------------------------------ one fix

    def fix_for(self, finding: Finding) -> Fix | Unsure | None:
        hint = finding.hint
        if hint is None:
            return None
        if hint.action == "move-import":
            return self._move(finding, hint)
        loc = finding.location
        if self.plain(loc.line, loc.end_line) is None:
            return UNSURE
        call = self.calls.get((loc.line, loc.column - 1, loc.end_line, loc.end_column - 1))
        if call is None:
            return UNSURE
        start, end = (
            self.offset(loc.line, loc.column - 1),
            self.offset(loc.end_line, loc.end_column - 1),
        )
        code = self.text[start:end]
        args = _arguments(code)
        if args is None or len(args[0]) != len(call.args) + len(call.keywords):
            return UNSURE
        changed = _changed_call(code, args[0], args[1], hint)
        if changed is None:
            return None
        new, safe, what = changed
        edit = Edit(loc.path, loc.line, loc.column, loc.end_line, loc.end_column, new)
        return Fix(safe, what, (edit,))

    def _move(self, finding: Finding, hint: FixHint) -> Fix | Unsure | None:
        line = finding.location.line
        nodes = self.imports.get(line, [])
        lines = self.plain(line, line)
        if len(nodes) != 1 or lines is None or nodes[0].end_lineno != line:
            return UNSURE
        node = nodes[0]
        tokens = _tokens(lines)  # comments left out
        words = [t.string for t in tokens] if tokens is not None else [";"]
        if words.count("from") != 1 or ";" in words or "(" in words:
            return UNSURE
        if node.level or node.module != hint.old:
            return UNSURE
        name = moved_name(finding)
        if not any(a.name == name for a in node.names):
            return UNSURE
        start = node.col_offset
        code = lines[start : node.end_col_offset]
        moved = _moved(code, name, hint.new)
        if isinstance(moved, Unsure) or moved is None:
            return moved
        if "\n" in moved:
            moved = moved.replace("\n", "\n" + " " * start)
        edit = Edit(
            finding.location.path, line, start + 1, line, (node.end_col_offset or 0) + 1, moved
        )
        return Fix(True, f"import {name} from {hint.new}", (edit,))

    # ------------------------------------------------------------------ checking

    def parsing(self, path: str, made: list[Fix | None]) -> list[Fix | None] | None:
        """The fixes that leave the file parsing (fixes._Source.parsing): all when the file
        with every fix made parses, else each tried alone; None where edits overlap."""
        fixes = [fix for fix in made if fix is not None]
        if not fixes:
            return made
        whole = spliced(self.text, [e for fix in fixes for e in fix.edits])
        if whole is None:
            return None
        if parses(path, whole):
            return made
        return [
            fix if fix is not None and parses(path, spliced(self.text, fix.edits) or "") else None
            for fix in made
        ]


# --------------------------------------------------------------------------- tokens


def _tokens(code: str) -> list[tokenize.TokenInfo] | None:
    """The tokens of a piece of code, without comments and line ends; None when it does not
    tokenize."""
    try:
        found = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return [t for t in found if t.type not in _SKIP and t.string]


def _arguments(code: str) -> tuple[list[_Arg], int] | None:
    """A call's arguments (offsets in `code`, the call's text) and where its `)` stands;
    None when `code` is not a call whose last token closes its arguments."""
    tokens = _tokens(code)
    if not tokens or tokens[-1].string != ")":
        return None
    lines = [0] + [m.end() for m in _NEWLINE.finditer(code)]

    def at(pos: tuple[int, int]) -> int:
        return lines[pos[0] - 1] + pos[1]

    stack: list[int] = []
    opened = -1
    for i, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            stack.append(i)
        elif token.type == tokenize.OP and token.string in ")]}":
            if not stack:
                return None
            opened = stack.pop()
    if stack or opened < 0 or tokens[opened].string != "(":
        return None
    inner = tokens[opened + 1 : -1]
    groups: list[list[tokenize.TokenInfo]] = [[]]
    commas: list[int] = []
    depth = 0
    for token in inner:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if depth == 0 and token.type == tokenize.OP and token.string == ",":
            commas.append(at(token.end))
            groups.append([])
        else:
            groups[-1].append(token)
    if not groups[-1]:
        groups.pop()  # a trailing comma, or no arguments
    if any(not g for g in groups) or len(commas) not in (len(groups), len(groups) - 1):
        return None
    args = []
    for n, group in enumerate(groups):
        first, second = group[0], group[1] if len(group) > 1 else None
        keyword = None
        value = at(first.start)
        star = first.string in ("*", "**") and first.type == tokenize.OP
        if first.type == tokenize.NAME and second is not None and second.string == "=":
            keyword = (at(first.start), at(first.end))
            if len(group) < 3:
                return None
            value = at(group[2].start)
        comma = commas[n] if n < len(commas) else None
        args.append(_Arg(at(first.start), at(group[-1].end), comma, keyword, value, star))
    return args, at(tokens[-1].start)


# --------------------------------------------------------------------------- edits


def _changed_call(
    code: str, args: list[_Arg], close: int, hint: FixHint
) -> tuple[str, bool, str] | None:
    """The call's new text with the hint's repair, whether that is safe, and what it does
    (fixes._changed_call, on the text)."""
    if hint.action == "rename-keyword":
        index = _keyword_index(code, args, hint.old)
        if index is None or not is_keyword_name(hint.new):
            return None
        if _keyword_index(code, args, hint.new) is not None:
            return None
        span = args[index].keyword
        assert span is not None
        new = code[: span[0]] + hint.new + code[span[1] :]
        return new, hint.safe, f"pass {hint.new}= instead of {hint.old}="
    if hint.action == "drop-keyword":
        index = _keyword_index(code, args, hint.old)
        if index is None:
            return None
        arg = args[index]
        if not old_default(literal_value(code[arg.value : arg.end]), hint):
            return None  # dropping another value changes what the call does: no fix
        what = f"drop {hint.old}=: its value is the old default, {hint.default}"
        return _without(code, args, close, index), True, what
    if hint.action == "keywordize":
        positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        targets = positional[hint.start : hint.start + len(hint.names)]
        if len(targets) != len(hint.names) or not all(map(is_keyword_name, hint.names)):
            return None
        parts, last = [], 0
        for index, name in zip(targets, hint.names, strict=True):
            parts += [code[last : args[index].start], f"{name}="]
            last = args[index].start
        what = f"pass {', '.join(hint.names)} by keyword"
        return "".join([*parts, code[last:]]), hint.safe, what
    return None


def moved_name(finding: Finding) -> str:
    """The name a move-import fix moves: the hint's (the import of a name from a module gone
    whole names the module as its symbol), else the last part of the symbol."""
    hint = finding.hint
    if hint is not None and hint.names:
        return hint.names[0]
    return finding.symbol.rpartition(".")[2]


def old_default(value: object, hint: FixHint) -> bool:
    """Whether a dropped keyword's value (a literal's, else NOT_LITERAL) is the baseline's
    default, a literal too: the one drop that keeps what the call does (fixes.py too)."""
    if hint.default is None or value is NOT_LITERAL:
        return False
    return same_value(value, literal_value(hint.default))


def _keyword_index(code: str, args: list[_Arg], name: str) -> int | None:
    return next(
        (i for i, a in enumerate(args) if a.keyword and code[a.keyword[0] : a.keyword[1]] == name),
        None,
    )


def _without(code: str, args: list[_Arg], close: int, index: int) -> str:
    """The call's text without one argument, as libcst writes it: the argument and its comma
    go; a dropped last one leaves its comma (and what follows it) to the one before."""
    if index < len(args) - 1:
        return code[: args[index].start] + code[args[index + 1].start :]
    if index == 0:
        return code[: args[0].start] + code[close:]
    kept = code[args[index].end : close] if args[index].comma is not None else ""
    return code[: args[index - 1].end] + kept + code[close:]


def _moved(code: str, name: str, new_module: str) -> str | Unsure | None:
    """`from old import a, name as x` -> `from old import a` + newline + `from new import
    name as x` (fixes._moved_import, on the text of one plain import); None when libcst
    would make none."""
    if not all(is_keyword_name(part) for part in new_module.split(".")):
        return None
    tokens = _tokens(code)
    if tokens is None:
        return UNSURE
    words = [t.string for t in tokens]
    if "import" not in words or words[0] != "from" or "*" in words:
        return UNSURE if "*" not in words else None
    at = words.index("import")
    module = tokens[1:at]
    if not module:
        return UNSURE
    aliases: list[list[tokenize.TokenInfo]] = [[]]
    for token in tokens[at + 1 :]:
        if token.string == ",":
            aliases.append([])
        else:
            aliases[-1].append(token)
    if any(not a or len(a) not in (1, 3) for a in aliases):
        return UNSURE
    moving = [a for a in aliases if a[0].string == name]
    if len(moving) != 1:
        return None
    if len(aliases) == 1:
        return code[: module[0].start[1]] + new_module + code[module[-1].end[1] :]
    staying = [a for a in aliases if a is not moving[0]]
    parts = [code[: aliases[0][0].start[1]]]
    for n, alias in enumerate(staying):  # each keeps its comma and the space after it
        following = aliases[aliases.index(alias) + 1] if n < len(staying) - 1 else None
        end = following[0].start[1] if following is not None else alias[-1].end[1]
        parts.append(code[alias[0].start[1] : end])
    added = f"from {new_module} import {code[moving[0][0].start[1] : moving[0][-1].end[1]]}"
    return "".join(parts) + "\n" + added
