# Maintainers: mechanical repairs of findings, as edits of the consumer's source.
#
# Owns: turning a finding's FixHint (bind.repair: what would repair it, and whether that is
# safe) into a concrete Fix (one edit of the call or import, keyed by the finding), and
# applying the chosen fixes to a file's text. Edits are made on libcst's concrete syntax tree,
# which keeps formatting and comments (the same tree ruff's and Instagram's codemods use);
# never string surgery. But the file is never written back as libcst writes the whole module:
# that round trip is not exact (after a line holding only a backslash it indents the next
# statement into the block above; it drops a last lone CR, or the line end after a last
# comment ending in `\`). Only each edited node's new text is taken from the tree and spliced
# over the node's own text (fixsplice.py), and only where that text is what libcst read there
# (_Source.span); a node libcst places elsewhere than Python does is no fix, and --fix leaves
# that file alone with a warning (Applied.refused). libcst costs ~0.2 s to import, so this
# module is imported only for --diff and --fix, and for a proposal fixtext.py does not make
# from the text itself (it makes the plain cases, byte for byte as this module would;
# tests/unit/test_fixtext.py).
# Safety is decided here where it depends on the source: a keyword is dropped only when its
# value at the site is a literal equal to the baseline's default (it changed nothing), and
# that fix is safe; any other value gets no fix (dropping it would change what the call does
# without a word: the finding's suggestion says so, fixtext.old_default). A hint whose node
# cannot be found, or whose edit would not apply cleanly, gives no fix: never a guess. Nor
# does one whose new name no call or import can write (a keyword such as `class`, `x y`:
# bind.is_keyword_name), nor one after which the file would not parse as the audit parses it
# (scan/source.parse_source): the finding stays, without a fix. fixfiles.py checks the text
# it writes once more, and tests/unit/test_fix_roundtrip.py proves the writer on random
# programs.
# Takes: findings and their files' text. Gives: findings with `fix` set; new file texts, each
# with the splices that made it (Applied).
"""Fixes: libcst edits for findings whose repair is mechanical."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeAlias

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from auditor.behaviour import literal_value
from auditor.bind import is_keyword_name
from auditor.fixsplice import Splice, spliced
from auditor.fixtext import moved_name, old_default, parses
from auditor.fixtext import spliced as splice
from auditor.model import Edit, Fix, text_digest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from auditor.model import Finding, FixHint

log = logging.getLogger("drift_audit")
_NEWLINE = re.compile(r"\r\n|\r|\n")


# --------------------------------------------------------------------------- proposing


def propose(findings: Sequence[Finding], read: Callable[[str], str | None]) -> tuple[Finding, ...]:
    """The findings, each with its Fix when its hint applies to the source.

    `read(module_path)` gives a consumer file's text (None when it cannot be read)."""
    by_path: dict[str, list[int]] = {}
    for i, finding in enumerate(findings):
        if finding.hint is not None:
            by_path.setdefault(finding.module_path or finding.location.path, []).append(i)
    out = list(findings)
    for module_path, indexes in by_path.items():
        text = read(module_path)
        if text is None:
            continue
        source = _Source.parse(text)
        if source is None:
            continue
        made = {i: (findings[i], fix) for i in indexes if (fix := source.fix_for(findings[i]))}
        for i in source.parsing(module_path, made):
            out[i] = replace(findings[i], fix=replace(made[i][1], digest=text_digest(text)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Applied:
    """A file's text with its fixes spliced in, the findings fixed, the splices made; or,
    with `refused`, why none is made (the text is the file's own)."""

    text: str
    fixed: list[Finding]
    splices: tuple[Splice, ...] = ()
    refused: str | None = None


def apply(text: str, findings: Iterable[Finding], *, unsafe: bool) -> Applied:
    """The file's text with every chosen fix applied in one pass, and the findings fixed.

    Safe fixes always; unsafe ones only with `unsafe`. Several fixes of one call compose.
    Each edited node's text is spliced into the file's own text (fixsplice.py): nothing
    outside the edited calls and imports changes, byte for byte."""
    chosen = [f for f in findings if f.fix is not None and f.hint is not None]
    chosen = [f for f in chosen if unsafe or (f.fix is not None and f.fix.safe)]
    source = _Source.parse(text) if chosen else None
    if source is None:
        return Applied(text, [], refused=NOT_PARSED if chosen else None)
    return source.apply_all(chosen)


# --------------------------------------------------------------------------- the tree


class _Source:
    """A parsed file with the positions of its nodes."""

    def __init__(self, text: str, wrapper: MetadataWrapper) -> None:
        self.text = text
        self.wrapper = wrapper
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
        self.code = self.module.code  # libcst's rendering, which its positions count in
        self._text_lines = _line_starts(text)
        self._code_lines = _line_starts(self.code)
        self._calls: dict[tuple[int, int, int, int], cst.Call] = {}
        self._imports: dict[int, list[tuple[cst.SimpleStatementLine, cst.ImportFrom]]] = {}
        self._index()

    @classmethod
    def parse(cls, text: str) -> _Source | None:
        try:
            return cls(text, MetadataWrapper(cst.parse_module(text)))
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return None

    def _index(self) -> None:
        source = self

        class Indexer(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                where = source.positions[node]
                key = (where.start.line, where.start.column, where.end.line, where.end.column)
                source._calls[key] = node

            def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
                for small in node.body:
                    if isinstance(small, cst.ImportFrom):
                        line = source.positions[node].start.line
                        source._imports.setdefault(line, []).append((node, small))

        self.wrapper.visit(Indexer())

    # ------------------------------------------------------------------ finding nodes

    def call_at(self, finding: Finding) -> cst.Call | None:
        loc = finding.location
        return self._calls.get((loc.line, loc.column - 1, loc.end_line, loc.end_column - 1))

    def import_at(self, finding: Finding) -> tuple[cst.SimpleStatementLine, cst.ImportFrom] | None:
        hint = finding.hint
        if hint is None:
            return None
        name = moved_name(finding)
        for line, entries in self._imports.items():
            if not line <= finding.location.line <= self.positions[entries[0][0]].end.line:
                continue
            for statement, node in entries:
                module = _dotted(node.module) if node.module is not None else None
                if node.relative or module != hint.old or isinstance(node.names, cst.ImportStar):
                    continue
                if any(_alias_name(a) == name for a in node.names):
                    return statement, node
        return None

    # ------------------------------------------------------------------ checking

    def parsing(self, path: str, made: Mapping[int, tuple[Finding, Fix]]) -> list[int]:
        """The keys of the fixes that leave the file parsing: all of them when the file with
        every fix made parses (one parse), else each fix tried alone."""
        if not made or self._parses(path, list(made.values())):
            return list(made)
        return [i for i, pair in made.items() if self._parses(path, [pair])]

    def _parses(self, path: str, pairs: Sequence[tuple[Finding, Fix]]) -> bool:
        """Whether the text with these fixes made parses: their edits, as the reports carry
        them, spliced in (cheap); where edits overlap (fixes of nested calls compose),
        applied as --fix applies them (and refused if --fix would refuse them)."""
        spliced = splice(self.text, [edit for _, fix in pairs for edit in fix.edits])
        if spliced is not None:
            return parses(path, spliced)
        applied = self.apply_all([f for f, _ in pairs])
        return applied.refused is None and parses(path, applied.text)

    # ------------------------------------------------------------------ one fix

    def fix_for(self, finding: Finding) -> Fix | None:
        hint = finding.hint
        if hint is None:
            return None
        if hint.action == "move-import":
            found = self.import_at(finding)
            if found is None:
                return None
            statement, node = found
            new = _moved_import(statement, node, moved_name(finding), hint.new)
            if new is None:
                return None
            what = f"import {moved_name(finding)} from {hint.new}"
            edit = self._import_edit(finding, node, new)
            return Fix(True, what, (edit,)) if edit is not None else None
        call = self.call_at(finding)
        if call is None:
            return None
        changed = _changed_call(call, hint)
        if changed is None:
            return None
        new_call, safe, what = changed
        edit = self._edit(finding, call, new_call)
        return Fix(safe, what, (edit,)) if edit is not None else None

    def _import_edit(
        self,
        finding: Finding,
        node: cst.ImportFrom,
        new: cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement],
    ) -> Edit | None:
        """The import statement replaced: by the moved one, or by the one that keeps the
        other names and, on the next line at the same indentation, the moved one."""
        lines = new.nodes if isinstance(new, cst.FlattenSentinel) else [new]
        smalls = [
            s for line in lines if isinstance(line, cst.SimpleStatementLine) for s in line.body
        ]
        indent = " " * self.positions[node].start.column
        text = ("\n" + indent).join(self.module.code_for_node(s) for s in smalls)
        return self._edit(finding, node, text)

    def _edit(self, finding: Finding, old: cst.CSTNode, new: cst.CSTNode | str) -> Edit | None:
        """The edit replacing `old` by `new`; None where libcst does not read the file's
        text at `old` as it stands (its round trip is not exact everywhere)."""
        where: CodeRange = self.positions[old]
        if self.span(where) is None:
            return None
        text = new if isinstance(new, str) else self._in_place(old, new, where)
        if text is None:
            return None
        return Edit(
            finding.location.path,
            where.start.line,
            where.start.column + 1,
            where.end.line,
            where.end.column + 1,
            text,
        )

    def span(self, where: CodeRange) -> tuple[int, int] | None:
        """A node's place as offsets in the file's text; None unless the text there is what
        libcst writes there (the positions count in libcst's rendering of the file, which
        is not the file everywhere: fixsplice.py)."""
        text = _offsets(self._text_lines, where, len(self.text))
        code = _offsets(self._code_lines, where, len(self.code))
        if text is None or code is None:
            return None
        if self.text[text[0] : text[1]] != self.code[code[0] : code[1]]:
            return None
        return text

    def _in_place(self, old: cst.CSTNode, new: cst.CSTNode, where: CodeRange) -> str | None:
        """The text `new` takes where `old` stands, exactly as the whole module writes it:
        a node rendered alone loses the indentation of the block it sits in, so a call over
        several lines would come out re-indented. None if that cannot be told."""
        whole = self.module.deep_replace(old, new)
        span = _offsets(self._code_lines, where, len(self.code))
        if not isinstance(whole, cst.Module) or span is None:
            return None
        code = whole.code
        prefix, suffix = self.code[: span[0]], self.code[span[1] :]
        if code.startswith(prefix) and code.endswith(suffix) and len(code) >= span[0] + len(suffix):
            return code[span[0] : len(code) - len(suffix)]
        return None

    # ------------------------------------------------------------------ all fixes

    def apply_all(self, findings: Sequence[Finding]) -> Applied:
        """The fixes of these findings composed through the tree (several of one call, and
        of calls nested in it), then each outermost edited node's new text spliced into the
        file's own text (never the whole module as libcst writes it back)."""
        changed, applied = self._changed(findings)
        if changed.missing:  # libcst places the node elsewhere than Python does
            return Applied(self.text, [], refused=NOT_READ)
        if not changed.nodes:
            return Applied(self.text, [])
        splices = self._splices(changed)
        new = spliced(self.text, splices) if splices is not None else None
        if splices is None or new is None:
            return Applied(self.text, [], refused=NOT_READ)
        return Applied(new, applied, tuple(splices))

    def _changed(self, findings: Sequence[Finding]) -> tuple[_Changed, list[Finding]]:
        """The new tree, with each original node (a call, or a `from` import) that changed
        and what it became; the findings fixed."""
        calls: dict[cst.Call, list[Finding]] = {}
        imports: dict[cst.SimpleStatementLine, list[tuple[cst.ImportFrom, Finding]]] = {}
        missing = False
        for finding in findings:
            assert finding.hint is not None
            if finding.hint.action == "move-import":
                found = self.import_at(finding)
                if found is not None:
                    imports.setdefault(found[0], []).append((found[1], finding))
                missing = missing or found is None
            elif (call := self.call_at(finding)) is not None:
                calls.setdefault(call, []).append(finding)
            else:
                missing = True
        applied: list[Finding] = []
        changed: dict[cst.CSTNode, _New] = {}

        class Fixer(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                for finding in calls.get(original, ()):
                    assert finding.hint is not None
                    change = _changed_call(updated, finding.hint)
                    if change is not None:
                        updated = changed[original] = change[0]
                        applied.append(finding)
                return updated

            def leave_SimpleStatementLine(
                self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
            ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
                result: cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] = updated
                for node, finding in imports.get(original, ()):
                    assert finding.hint is not None
                    if not isinstance(result, cst.SimpleStatementLine):
                        break  # one move per statement line; the re-audit finds the rest
                    name = moved_name(finding)
                    current = _same_import(result, node)
                    moved = (
                        _moved_import(result, current, name, finding.hint.new) if current else None
                    )
                    if moved is not None:
                        result = changed[node] = moved
                        applied.append(finding)
                return result

        module = self.module.visit(Fixer())
        return _Changed(module, changed, missing=missing), applied

    def _splices(self, changed: _Changed) -> list[Splice] | None:
        """Per outermost node that changed, the splice of its new text (as libcst writes
        it in the new tree) over its old text; None when an old node's text is not what
        libcst read there, or a new one cannot be found."""
        spans = []
        for old in changed.nodes:
            span = self.span(self.positions[old])
            if span is None:
                return None
            spans.append((span, old))
        spans.sort(key=lambda pair: (pair[0][0], -pair[0][1]))
        made: list[Splice] = []
        for span, old in spans:  # a fixed call in a fixed call: the outer one's text has it
            if made and span[0] < made[-1].end:
                continue
            splice = self._splice(span, old, changed.nodes[old], changed)
            if splice is None:
                return None
            made.append(splice)
        return made

    def _splice(
        self, span: tuple[int, int], old: cst.CSTNode, new: _New, changed: _Changed
    ) -> Splice | None:
        """A call's splice: its new text over its old. A `from` import moved: the import
        itself replaced (its comment stays on its line); a name moving out of several goes
        to a new line after it, at its indentation and with its line's end."""
        if isinstance(old, cst.Call) and isinstance(new, cst.Call):
            text = changed.text_of(new)
            return Splice(*span, text, span, (text,)) if text is not None else None
        if not isinstance(old, cst.ImportFrom):
            return None
        if isinstance(new, cst.SimpleStatementLine):
            text = changed.text_of(new.body[0])
            return None if text is None else Splice(*span, text, span, (text,), statements=True)
        if not isinstance(new, cst.FlattenSentinel) or len(new.nodes) != 2:
            return None
        kept, added = (
            changed.text_of(n.body[0]) if isinstance(n, cst.SimpleStatementLine) else None
            for n in new.nodes
        )
        indent = self.text[self._text_lines[self.positions[old].start.line - 1] : span[0]]
        if kept is None or added is None or indent.strip(" \t\f"):
            return None
        end = _NEWLINE.search(self.text, span[1])
        if end is None:  # the last line, with no line end: it gets one, the file still none
            text = f"{kept}{self.text[span[1] :]}{self.module.default_newline}{indent}{added}"
            return Splice(span[0], len(self.text), text, span, (kept, added), statements=True)
        text = f"{kept}{self.text[span[1] : end.end()]}{indent}{added}{end.group()}"
        return Splice(span[0], end.end(), text, span, (kept, added), statements=True)


_New: TypeAlias = "cst.CSTNode | cst.FlattenSentinel[cst.BaseStatement]"
NOT_READ = "libcst does not read the code at the edit as Python does"
NOT_PARSED = "libcst cannot read the file"


class _Changed:
    """A tree with fixes made, each original node that changed with what it became,
    whether one to fix was not found, and the new nodes' texts as the new tree writes
    them."""

    def __init__(
        self, module: cst.Module, nodes: dict[cst.CSTNode, _New], *, missing: bool
    ) -> None:
        self.module = module
        self.nodes = nodes
        self.missing = missing  # a node to fix was not found
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        self._code = ""
        self._lines: list[int] = []

    def text_of(self, node: cst.CSTNode) -> str | None:
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
            self._code = self.module.code
            self._lines = _line_starts(self._code)
        where = self._positions.get(node)
        span = _offsets(self._lines, where, len(self._code)) if where is not None else None
        return self._code[span[0] : span[1]] if span is not None else None


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def _offsets(starts: list[int], where: CodeRange, size: int) -> tuple[int, int] | None:
    """A range's (line, column) places as offsets in the text whose lines start at
    `starts`; None when a place is not in it."""
    places = []
    for place in (where.start, where.end):
        if not 1 <= place.line <= len(starts):
            return None
        line_end = starts[place.line] if place.line < len(starts) else size
        offset = starts[place.line - 1] + place.column
        if offset > line_end:
            return None
        places.append(offset)
    return places[0], places[1]


# --------------------------------------------------------------------------- edits


def _changed_call(call: cst.Call, hint: FixHint) -> tuple[cst.Call, bool, str] | None:
    """The call with the hint's repair, whether that is safe, and what it does."""
    args = list(call.args)
    if hint.action == "rename-keyword":
        index = _keyword_index(args, hint.old)
        name = _name(hint.new)
        if index is None or name is None or _keyword_index(args, hint.new) is not None:
            return None
        args[index] = args[index].with_changes(keyword=name)
        return call.with_changes(args=args), hint.safe, f"pass {hint.new}= instead of {hint.old}="
    if hint.action == "drop-keyword":
        index = _keyword_index(args, hint.old)
        if index is None:
            return None
        value = literal_value(cst.Module([]).code_for_node(args[index].value))
        if not old_default(value, hint):
            return None  # dropping another value changes what the call does: no fix
        what = f"drop {hint.old}=: its value is the old default, {hint.default}"
        return call.with_changes(args=_without(args, index)), True, what
    if hint.action == "keywordize":
        positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        targets = positional[hint.start : hint.start + len(hint.names)]
        names = [_name(name) for name in hint.names]
        if len(targets) != len(hint.names) or None in names:
            return None
        for index, name in zip(targets, names, strict=True):
            args[index] = args[index].with_changes(
                keyword=name,
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
        what = f"pass {', '.join(hint.names)} by keyword"
        return call.with_changes(args=args), hint.safe, what
    return None


def _keyword_index(args: Sequence[cst.Arg], name: str) -> int | None:
    return next(
        (i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name), None
    )


def _without(args: list[cst.Arg], index: int) -> list[cst.Arg]:
    """The arguments without one; the last one left takes the dropped one's comma, so no
    stray `, )` appears."""
    rest = args[:index] + args[index + 1 :]
    if rest and index == len(args) - 1:
        rest[-1] = rest[-1].with_changes(comma=args[index].comma)
    return rest


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


def _alias_name(alias: cst.ImportAlias) -> str | None:
    return _dotted(alias.name)


def _name(value: str) -> cst.Name | None:
    """The name as libcst writes it; None for one no code can write (bind.is_keyword_name)."""
    return cst.Name(value) if is_keyword_name(value) else None


def _module_node(dotted: str) -> cst.Attribute | cst.Name | None:
    """`a.b.c` as an expression; None when a part is no name (`acme.class`)."""
    head, *rest = dotted.split(".")
    node: cst.Attribute | cst.Name | None = _name(head)
    for part in rest:
        name = _name(part)
        if node is None or name is None:
            return None
        node = cst.Attribute(value=node, attr=name)
    return node


def _same_import(
    statement: cst.SimpleStatementLine, original: cst.ImportFrom
) -> cst.ImportFrom | None:
    """The import in the (possibly updated) statement that stands where `original` stood."""
    module = _dotted(original.module) if original.module is not None else None
    for small in statement.body:
        if not isinstance(small, cst.ImportFrom) or small.module is None:
            continue
        if _dotted(small.module) == module:
            return small
    return None


def _moved_import(
    statement: cst.SimpleStatementLine, node: cst.ImportFrom, name: str, new_module: str
) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement] | None:
    """`from old import name [as alias]` -> `from new import name [as alias]`; with other
    names in the same import, those stay and a second line imports `name` from the new
    module, the alias kept."""
    module = _module_node(new_module)
    if isinstance(node.names, cst.ImportStar) or len(statement.body) != 1 or module is None:
        return None
    names = list(node.names)
    moving = [a for a in names if _alias_name(a) == name]
    if len(moving) != 1:
        return None
    alias = moving[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if len(names) == 1:
        return statement.with_changes(body=[node.with_changes(module=module)])
    staying = [a for a in names if a is not moving[0]]
    staying[-1] = staying[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    kept = statement.with_changes(body=[node.with_changes(names=staying)])
    added = cst.SimpleStatementLine(
        body=[cst.ImportFrom(module=module, names=[alias])],
        leading_lines=[],
    )
    return cst.FlattenSentinel([kept, added])
