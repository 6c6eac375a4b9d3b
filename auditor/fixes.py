# Maintainers: mechanical repairs of findings, as edits of the consumer's source.
#
# Owns: turning a finding's FixHint (bind.repair: what would repair it, and whether that is
# safe) into a concrete Fix (one edit of the call or import, keyed by the finding), and
# applying the chosen fixes to a file's text. Edits go through libcst's concrete syntax tree,
# which keeps formatting and comments exactly (the same tree ruff's and Instagram's codemods
# use); never string surgery. libcst costs ~0.2 s to import, so this module is imported only
# for --diff and --fix, and for a proposal fixtext.py does not make from the text itself (it
# makes the plain cases, byte for byte as this module would; tests/unit/test_fixtext.py).
# Safety is decided here where it depends on the source: dropping a keyword is safe only when
# its value at the site is a literal equal to the baseline's default (it changed nothing);
# otherwise the fix is unsafe and says so. A hint whose node cannot be found, or whose edit
# would not apply cleanly, gives no fix: never a guess. Nor does one whose new name no call or
# import can write (a keyword such as `class`, `x y`: bind.is_keyword_name), nor one after
# which the file would not parse as the audit parses it (scan/source.parse_source): the
# finding stays, without a fix. fixfiles.py checks the text it writes once more.
# Takes: findings and their files' text. Gives: findings with `fix` set; new file texts.
"""Fixes: libcst edits for findings whose repair is mechanical."""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from auditor.behaviour import NOT_LITERAL, literal_value, same_value
from auditor.bind import is_keyword_name
from auditor.fixtext import parses
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


def apply(text: str, findings: Iterable[Finding], *, unsafe: bool) -> tuple[str, list[Finding]]:
    """The file's text with every chosen fix applied in one pass, and the findings fixed.

    Safe fixes always; unsafe ones only with `unsafe`. Several fixes of one call compose."""
    chosen = [f for f in findings if f.fix is not None and f.hint is not None]
    chosen = [f for f in chosen if unsafe or (f.fix is not None and f.fix.safe)]
    source = _Source.parse(text)
    if source is None or not chosen:
        return text, []
    return source.apply_all(chosen)


# --------------------------------------------------------------------------- the tree


class _Source:
    """A parsed file with the positions of its nodes."""

    def __init__(self, text: str, wrapper: MetadataWrapper) -> None:
        self.text = text
        self.wrapper = wrapper
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
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
        name = finding.symbol.rpartition(".")[2]
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
        if not made or parses(path, self._with(list(made.values()))):
            return list(made)
        return [i for i, pair in made.items() if parses(path, self._with([pair]))]

    def _with(self, pairs: Sequence[tuple[Finding, Fix]]) -> str:
        """The text with these fixes made: their edits, as the reports carry them, spliced
        in (cheap); where edits overlap (fixes of nested calls compose), applied through the
        tree, as --fix does."""
        spliced = splice(self.text, [edit for _, fix in pairs for edit in fix.edits])
        return spliced if spliced is not None else self.apply_all([f for f, _ in pairs])[0]

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
            new = _moved_import(statement, node, finding.symbol.rpartition(".")[2], hint.new)
            if new is None:
                return None
            what = f"import {finding.symbol.rpartition('.')[2]} from {hint.new}"
            return Fix(True, what, (self._import_edit(finding, node, new),))
        call = self.call_at(finding)
        if call is None:
            return None
        changed = _changed_call(call, hint)
        if changed is None:
            return None
        new_call, safe, what = changed
        return Fix(safe, what, (self._edit(finding, call, new_call),))

    def _import_edit(
        self,
        finding: Finding,
        node: cst.ImportFrom,
        new: cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement],
    ) -> Edit:
        """The import statement replaced: by the moved one, or by the one that keeps the
        other names and, on the next line at the same indentation, the moved one."""
        lines = new.nodes if isinstance(new, cst.FlattenSentinel) else [new]
        smalls = [
            s for line in lines if isinstance(line, cst.SimpleStatementLine) for s in line.body
        ]
        indent = " " * self.positions[node].start.column
        text = ("\n" + indent).join(self.module.code_for_node(s) for s in smalls)
        return self._edit(finding, node, text)

    def _edit(self, finding: Finding, old: cst.CSTNode, new: cst.CSTNode | str) -> Edit:
        where: CodeRange = self.positions[old]
        text = new if isinstance(new, str) else self._in_place(old, new, where)
        return Edit(
            finding.location.path,
            where.start.line,
            where.start.column + 1,
            where.end.line,
            where.end.column + 1,
            text,
        )

    def _in_place(self, old: cst.CSTNode, new: cst.CSTNode, where: CodeRange) -> str:
        """The text `new` takes where `old` stands, exactly as the whole module writes it
        (what --fix writes and --diff shows): a node rendered alone loses the indentation
        of the block it sits in, so a call over several lines would come out re-indented."""
        whole = self.module.deep_replace(old, new)
        code = whole.code if isinstance(whole, cst.Module) else self.module.code_for_node(new)
        starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        start = starts[where.start.line - 1] + where.start.column
        end = starts[where.end.line - 1] + where.end.column
        prefix, suffix = self.text[:start], self.text[end:]
        if code.startswith(prefix) and code.endswith(suffix) and len(code) >= start + len(suffix):
            return code[start : len(code) - len(suffix)]
        return self.module.code_for_node(new)  # never reached for a tree of this text

    # ------------------------------------------------------------------ all fixes

    def apply_all(self, findings: Sequence[Finding]) -> tuple[str, list[Finding]]:
        source = self
        calls: dict[cst.Call, list[Finding]] = {}
        imports: dict[cst.SimpleStatementLine, list[tuple[cst.ImportFrom, Finding]]] = {}
        for finding in findings:
            assert finding.hint is not None
            if finding.hint.action == "move-import":
                found = self.import_at(finding)
                if found is not None:
                    imports.setdefault(found[0], []).append((found[1], finding))
            elif (call := self.call_at(finding)) is not None:
                calls.setdefault(call, []).append(finding)
        applied: list[Finding] = []

        class Fixer(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                for finding in calls.get(original, ()):
                    assert finding.hint is not None
                    changed = _changed_call(updated, finding.hint)
                    if changed is not None:
                        updated = changed[0]
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
                    name = finding.symbol.rpartition(".")[2]
                    current = _same_import(result, node)
                    moved = (
                        _moved_import(result, current, name, finding.hint.new) if current else None
                    )
                    if moved is not None:
                        result = moved
                        applied.append(finding)
                return result

        new_module = self.wrapper.module.visit(Fixer())
        del source
        return new_module.code, applied


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
        safe = hint.default is not None and value is not NOT_LITERAL
        safe = safe and same_value(value, literal_value(hint.default or ""))
        if safe:
            what = f"drop {hint.old}=: its value is the old default, {hint.default}"
        else:
            what = f"drop {hint.old}=: the target has no such parameter; behaviour may change"
        return call.with_changes(args=_without(args, index)), safe, what
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
