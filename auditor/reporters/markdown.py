# Maintainers: a compact summary for a pull-request comment (GitHub-flavoured Markdown).
#
# Owns: the layout. A heading and the context line, the headline, a quoted note naming the
# kinds and files the settings left out and where (when they did), one naming the settings
# that let findings past the gate (gate-tests off; such a finding's kind says so in the
# table), a table of counts by kind and status, a table of the new findings (its "First
# broken" says so when the only release audited broke: where it starts is not known), then
# each new finding's details folded in a <details> block (its signatures cut to the
# parameters that matter, signatures.py; the suggestion; the proposed fix and whether it is
# safe), the preexisting ones folded in another; baselined and suppressed findings are only
# counted. No links (paths are relative to the consumer's import root, not the repository)
# and no timings, so the comment is stable between runs. Untrusted values are code spans
# (escape.markdown_code) or escaped inline text (escape.markdown_text); every cell goes
# through `cell()`: `|` escaped, newlines flattened.
"""Markdown reporter: counts and new findings, for a PR comment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.escape import markdown_cell, markdown_code, markdown_text
from auditor.model import Status
from auditor.reporters.common import (
    UNGATED_MARK,
    count_by_kind,
    not_checked_note,
    plural,
    provider_line,
    tally,
    ungated_note,
)
from auditor.reporters.signatures import cut_signatures

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.model import Finding, Report

NAME = "markdown"

STATUS_COLUMNS = (Status.NEW, Status.PREEXISTING, Status.BASELINED, Status.SUPPRESSED)
FINDING_HEADER = ("Location", "Kind", "Symbol", "Parameter", "First broken")


def render(report: Report, *, color: bool = False) -> str:
    """The PR-comment summary as Markdown, with a trailing newline."""
    blocks = [
        f"## drift-audit\n\n{markdown_text(provider_line(report), starts_block=True)}",
        _headline(report),
    ]
    note = not_checked_note(report)
    if note is not None:
        blocks.append(f"> **Not checked:** {markdown_text(note)}.")
    ungated = ungated_note(report)
    if ungated is not None:
        blocks.append(f"> **Not gated:** {markdown_text(ungated)}.")
    if report.findings or report.hidden:
        blocks.append(_counts_table(report))
    new = [f for f in report.findings if f.status is Status.NEW]
    if new:
        blocks.append("### New findings\n\n" + _findings_table(new, report))
        blocks.append(_details_of(new))
    old = [f for f in report.findings if f.status is Status.PREEXISTING]
    if old:
        blocks.append(_details(f"{plural(len(old), 'preexisting finding')}", old))
    return "\n\n".join(blocks) + "\n"


def _headline(report: Report) -> str:
    files = plural(report.stats.files_scanned, "file")
    if not report.findings and not report.hidden:
        return f"**No drift found** in {files}."
    t = tally(report.findings, report.hidden)
    return (
        f"**{t.new} new** ({plural(t.new_error, 'error')}, {plural(t.new_warning, 'warning')}, "
        f"{t.new_info} info), {t.preexisting} preexisting, {t.baselined} recorded, "
        f"{t.suppressed} suppressed, in {files}."
    )


def _counts_table(report: Report) -> str:
    header = ["Kind", "Severity", *(s.label.capitalize() for s in STATUS_COLUMNS)]
    rows = [
        [f"`{kind.slug}`", kind.severity.value, *(str(counts[s]) for s in STATUS_COLUMNS)]
        for kind, counts in count_by_kind([*report.findings, *report.hidden]).items()
    ]
    return table(header, rows, numeric_from=2)


def _findings_table(findings: Sequence[Finding], report: Report | None = None) -> str:
    """One row per finding; the kind says `(not gated: test file)` of a new finding the
    settings let past the gate."""
    rows = [
        [
            code(f"{f.location.path}:{f.location.line}"),
            f.kind.slug if report is None or report.gated(f) else f"{f.kind.slug} ({UNGATED_MARK})",
            code(f.symbol),
            code(f.parameter) if f.parameter else "",
            _first_broken(f),
        ]
        for f in findings
    ]
    return table(list(FINDING_HEADER), rows)


def _first_broken(finding: Finding) -> str:
    """The release it first broke in; when the only release audited broke, that it is not
    known (nothing audited shows where it starts); "" for a finding about no release."""
    if finding.first_broken_known:
        return markdown_text(finding.first_broken_known)
    if finding.first_broken:
        return f"not known: only {markdown_text(finding.first_broken)} audited"
    return ""


def _details_of(findings: Sequence[Finding]) -> str:
    """Each new finding's signatures, suggestion and fix, folded: one list item a finding."""
    items = [_detail(f) for f in findings]
    return (
        "<details>\n<summary>Details: signatures, suggestions and fixes</summary>\n\n"
        + "\n".join(items)
        + "\n\n</details>"
    )


def _detail(finding: Finding) -> str:
    loc = finding.location
    lines = [
        f"- {code(f'{loc.path}:{loc.line}')} {markdown_text(finding.kind.slug)}: "
        f"{markdown_text(finding.message)}"
    ]
    old, new = cut_signatures(
        finding.baseline_signature, finding.target_signature, finding.parameter
    )
    for label, signature in (("baseline", old), ("target", new)):
        if signature is not None:
            lines.append(f"  - {label}: {code(signature)}")
    if finding.suggestion:
        lines.append(f"  - suggestion: {markdown_text(finding.suggestion)}")
    if finding.fix is not None:
        how = "safe: `--fix`" if finding.fix.safe else "unsafe: `--fix --unsafe-fixes`"
        lines.append(f"  - fix ({how}): {markdown_text(finding.fix.description)}")
    return "\n".join(lines)


def _details(summary: str, findings: Sequence[Finding]) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{_findings_table(findings)}\n\n</details>"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int = -1) -> str:
    """A GFM table; columns from `numeric_from` on are right-aligned. Cells are escaped."""
    align = ["---:" if 0 <= numeric_from <= i else "---" for i in range(len(header))]
    lines = [_row(header), _row(align, escape=False), *(_row(r) for r in rows)]
    return "\n".join(lines)


def _row(cells: Sequence[str], *, escape: bool = True) -> str:
    return "| " + " | ".join(cell(c) if escape else c for c in cells) + " |"


def code(text: str) -> str:
    """Inline code: the fence is longer than any backtick run inside (escape.markdown_code)."""
    return markdown_code(text)


def cell(text: str) -> str:
    """A table cell: `|` escaped (GFM honours it inside code spans too), newlines flattened."""
    return markdown_cell(text)
