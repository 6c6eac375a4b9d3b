# Maintainers: the human report for a terminal or a log.
#
# Owns: the layout. A context line (who against what), then per file a header and each finding
# as `path:line:col: slug message [status]` (pyflakes / ruff concise, so editors can jump to
# it), the offending source line with a caret under the span (under the keyword at fault when
# the call is on one line, as mypy and ruff put it; a call over several lines shows its first
# line and the keyword's), the old and new signatures (cut to the parameters that matter and
# wrapped at WIDTH columns: signatures.py), the suggestion and the first call chain (each
# step relative to the one before); with several releases of a provider, a drift timeline
# (one row per finding, named by its line, kind and parameter; one column per release,
# adjacent releases with the same marks merged: `x` broken, `.` works, blank: a release of
# another provider); the baseline-file findings that are gone (`fixed`); then one summary
# line, which ends with what the settings left out when they narrowed the kinds reported or
# the files scanned (`not_checked_note`), and what they let past the gate (`ungated_note`;
# each such finding's headline is marked `[not gated: test file]`). Several providers: the
# context line names each. Takes a Report in its given order; never filters or sorts.
# Colour is a palette: with color=False every code is "", so there is one code path and no
# ANSI byte leaks into files. Every value shown comes from untrusted input and goes through
# escape.terminal() first (controls, bidi overrides), so a source line cannot drive the
# terminal, colour or not. Only the summary's `in 0.42s` varies between identical runs
# (golden tests mask it).
"""Text reporter: grouped by file, with source, signatures and a summary line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

from auditor.escape import terminal
from auditor.kinds import Severity
from auditor.model import Status, timeline
from auditor.reporters.common import (
    UNGATED_MARK,
    modules_phrase,
    not_checked_note,
    plural,
    provider_line,
    tally,
    ungated_note,
)
from auditor.reporters.signatures import cut_signatures, wrapped

if TYPE_CHECKING:
    from auditor.model import Finding, Report

NAME = "text"

INDENT = "    "
WIDTH = 80  # columns a finding's detail lines are wrapped to (signatures, call chains)


@dataclass(frozen=True, slots=True)
class Palette:
    """ANSI codes; the empty palette is the plain-text one."""

    bold: str = ""
    dim: str = ""
    red: str = ""
    yellow: str = ""
    blue: str = ""
    cyan: str = ""
    green: str = ""
    reset: str = ""

    def severity(self, severity: Severity) -> str:
        return {Severity.ERROR: self.red, Severity.WARNING: self.yellow}.get(severity, self.blue)


PLAIN = Palette()
ANSI = Palette(
    bold="\x1b[1m",
    dim="\x1b[2m",
    red="\x1b[31m",
    yellow="\x1b[33m",
    blue="\x1b[34m",
    cyan="\x1b[36m",
    green="\x1b[32m",
    reset="\x1b[0m",
)


def render(report: Report, *, color: bool = False) -> str:
    """The whole report as text; ANSI colour only when `color` is true."""
    pal = ANSI if color else PLAIN
    lines = [f"{pal.bold}{terminal(_context_line(report))}{pal.reset}", ""]
    for path, group in groupby(report.findings, key=lambda f: f.location.path):
        findings = list(group)
        shown = terminal(path)
        lines.append(
            f"{pal.bold}{pal.cyan}--- {shown} ({plural(len(findings), 'finding')}){pal.reset}"
        )
        for finding in findings:
            lines.extend(_finding_lines(finding, pal, gated=report.gated(finding)))
            lines.append("")
    lines.extend(_timeline_lines(report, pal))
    lines.extend(_fixed_lines(report, pal))
    lines.extend(_undecided_lines(report, pal))
    lines.append(summary_line(report, pal))
    return "\n".join(lines) + "\n"


def _undecided_lines(report: Report, pal: Palette) -> list[str]:
    """With --show-unknown: each site the analysis could not decide, and why."""
    if not report.list_undecided or not report.undecided:
        return []
    count = plural(len(report.undecided), "site")
    lines = [f"{pal.bold}{pal.cyan}--- undecided ({count}: not checked, never findings){pal.reset}"]
    for entry in report.undecided:
        where = entry.location
        place = terminal(f"{where.path}:{where.line}:{where.column}")
        lines.append(
            f"{place}: {terminal(entry.target)}: {pal.dim}{terminal(entry.reason)}{pal.reset}"
        )
    return [*lines, ""]


def _context_line(report: Report) -> str:
    """Who against what; with several providers, each with its releases and baseline."""
    if len(report.providers) < 2:
        return provider_line(report)
    consumer = report.consumer
    who = f"{consumer.name} {consumer.version}" if consumer.version else consumer.name
    parts = [
        f"{p.name} {', '.join(p.targets) or '(no release)'} "
        f"({f'baseline {p.baseline}' if p.baseline else 'no baseline'})"
        for p in report.providers
    ]
    return f"{who} against {'; '.join(parts)}"


def _timeline_lines(report: Report, pal: Palette) -> list[str]:
    """The release-by-finding table, when a provider has several releases and there are
    findings. Adjacent releases of a provider with the same marks share a column
    (`0.12.0..0.16.0`), so the table shows where each finding starts to break."""
    table = timeline(report)
    providers = [p for p, _ in table.columns]
    if not report.findings or all(providers.count(p) < 2 for p in providers):
        return []
    several = len(set(providers)) > 1
    spans = _spans(table.columns, table.rows)
    heads = [terminal(_span_label(table.columns[a], table.columns[b], several)) for a, b in spans]
    labels = [_timeline_label(f) for f in report.findings]
    width = max(len(label) for label in labels)
    title = "drift timeline: x broken, . works" + (
        "" if several else f" ({terminal(providers[0])})"
    )
    out = [f"{pal.bold}{title}{pal.reset}", f"{INDENT}{'':<{width}}  {' '.join(heads)}".rstrip()]
    for label, row in zip(labels, table.rows, strict=True):
        marks = [row[a] for a, _ in spans]
        cells = [_cell(mark, len(head), pal) for mark, head in zip(marks, heads, strict=True)]
        out.append(f"{INDENT}{label:<{width}}  {' '.join(cells)}".rstrip())
    return [*out, ""]


def _timeline_label(finding: Finding) -> str:
    """`path:line slug parameter`: the parameter tells apart two findings of one line."""
    where = f"{terminal(finding.location.path)}:{finding.location.line} {finding.kind.slug}"
    return f"{where} {terminal(finding.parameter)}" if finding.parameter else where


def _spans(
    columns: tuple[tuple[str, str], ...], rows: tuple[tuple[bool | None, ...], ...]
) -> list[tuple[int, int]]:
    """(first, last) column index of each run of a provider's releases with the same marks."""
    spans: list[tuple[int, int]] = []
    for i, (provider, _) in enumerate(columns):
        same = [row[i] for row in rows] == [row[i - 1] for row in rows]
        if spans and columns[i - 1][0] == provider and same:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    return spans


def _span_label(first: tuple[str, str], last: tuple[str, str], several: bool) -> str:
    versions = first[1] if first == last else f"{first[1]}..{last[1]}"
    return f"{first[0]} {versions}" if several else versions


def _cell(mark: bool | None, width: int, pal: Palette) -> str:
    if mark is None:
        return " " * width
    symbol = f"{pal.red}x{pal.reset}" if mark else f"{pal.dim}.{pal.reset}"
    return " " * (width - 1) + symbol


def _fixed_lines(report: Report, pal: Palette) -> list[str]:
    """Findings of the baseline file that this run no longer finds."""
    if not report.fixed:
        return []
    out = [f"{pal.bold}{pal.green}recorded findings fixed ({len(report.fixed)}):{pal.reset}"]
    for f in report.fixed:
        parameter = f" ({f.parameter})" if f.parameter else ""
        what = terminal(f"{f.location.path}: {f.kind.slug} {f.symbol}{parameter}")
        out.append(f"{INDENT}{what}")
    return [*out, ""]


def _finding_lines(finding: Finding, pal: Palette, *, gated: bool = True) -> list[str]:
    return [
        headline(finding, pal, gated=gated),
        *_source_lines(finding, pal),
        *_detail_lines(finding, pal),
    ]


def headline(finding: Finding, pal: Palette = PLAIN, *, gated: bool = True) -> str:
    """`path:line:col: error[slug] message [status]`: the severity word first, as mypy and
    pyright print it, so an info line does not read as an error in a log without colour;
    `[not gated: test file]` after it when the settings let it past the gate (not `gated`)."""
    loc = finding.location
    where = f"{pal.bold}{terminal(loc.path)}:{loc.line}:{loc.column}:{pal.reset}"
    label = f"{finding.severity.value}[{finding.kind.slug}]"
    slug = f"{pal.severity(finding.severity)}{label}{pal.reset}"
    status = (
        "" if finding.status is Status.NEW else f" {pal.dim}[{finding.status.label}]{pal.reset}"
    )
    if not gated:
        status += f" {pal.dim}[{UNGATED_MARK}]{pal.reset}"
    fixable = f"{pal.green}[*]{pal.reset} " if finding.fix is not None and finding.fix.safe else ""
    return f"{where} {slug} {fixable}{terminal(finding.message)}{status}"


def _source_lines(finding: Finding, pal: Palette) -> list[str]:
    """The offending line with a gutter, and a caret line under the reported span. The line
    is escaped for the terminal piece by piece, so the caret stays under the span."""
    loc = finding.location
    text = next((t for n, t in finding.source if n == loc.line), None)
    if text is None:
        return []
    text = text.rstrip("\r\n")
    start = max(loc.column - 1, 0)
    end = loc.end_column - 1 if loc.end_line == loc.line else len(text.rstrip())
    if (inline := _keyword_in(finding, text, start, end)) is not None:
        start, end = inline  # the call is on one line: the caret under the keyword at fault
    before, span = _clip(text[:start], MAX_SHOWN), _clip(text[start:end], MAX_SHOWN)
    after = _clip(text[end:], max(MAX_SHOWN - len(before) - len(span), 0))
    keyword = _keyword_at(finding)
    width = len(str(max(loc.line, keyword[0] if keyword else 0)))  # the widest number shown
    return [
        f"{INDENT}{pal.dim}{str(loc.line).rjust(width)} |{pal.reset} {before}{span}{after}",
        f"{INDENT}{pal.dim}{' ' * width} |{pal.reset} {_pad(before)}"
        f"{pal.severity(finding.severity)}{'^' * max(len(span), 1)}{pal.reset}",
        *_keyword_lines(finding, keyword, pal, width),
    ]


MAX_SHOWN = 240  # characters of a source line shown (generated code has enormous lines)


def _clip(text: str, limit: int) -> str:
    """`text` escaped for the terminal, at most `limit` characters of it, with a visible cut."""
    shown = terminal(text)
    return shown if len(shown) <= limit else shown[:limit] + " …"


def _pad(shown: str) -> str:
    """Blanks as wide as `shown`, keeping tabs so the caret lines up however the terminal
    expands them."""
    return "".join(ch if ch == "\t" else " " for ch in shown)


def _keyword_in(finding: Finding, text: str, start: int, end: int) -> tuple[int, int] | None:
    """In a call on one line, where the keyword at fault is (start, end): mypy and ruff put
    the caret there, not under the whole call."""
    loc, parameter = finding.location, finding.parameter
    if not parameter or loc.end_line != loc.line:
        return None
    match = _keyword_pattern(parameter).search(text, start, end)
    return (match.start(), match.start() + len(parameter)) if match else None


def _keyword_pattern(parameter: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(parameter)}\s*=(?!=)")


def _keyword_at(finding: Finding) -> tuple[int, str, int] | None:
    """In a call over several lines, the line that passes the keyword at fault: its number,
    its text and where the keyword starts."""
    loc, parameter = finding.location, finding.parameter
    if not parameter or loc.end_line == loc.line:
        return None
    pattern = _keyword_pattern(parameter)
    for number, text in finding.source:
        if loc.line < number <= loc.end_line and (match := pattern.search(text)):
            return number, text, match.start()
    return None


def _keyword_lines(
    finding: Finding, keyword: tuple[int, str, int] | None, pal: Palette, width: int
) -> list[str]:
    """The keyword's line under an elision row, with a caret under the keyword; the gutter
    is `width` wide (the widest line number of the frame, as rustc and ruff size it)."""
    if keyword is None or not finding.parameter:
        return []
    number, text, start = keyword
    before = _clip(text[:start], MAX_SHOWN)
    return [
        f"{INDENT}{pal.dim}{'.' * width} |{pal.reset}",
        f"{INDENT}{pal.dim}{str(number).rjust(width)} |{pal.reset} "
        f"{_clip(text.rstrip(), MAX_SHOWN)}",
        f"{INDENT}{pal.dim}{' ' * width} |{pal.reset} {_pad(before)}"
        f"{pal.severity(finding.severity)}{'^' * len(terminal(finding.parameter))}{pal.reset}",
    ]


def _detail_lines(finding: Finding, pal: Palette) -> list[str]:
    out: list[str] = []
    old, new = cut_signatures(
        finding.baseline_signature, finding.target_signature, finding.parameter
    )
    for label, signature in (("baseline:", old), ("target:  ", new)):
        if signature is not None:
            out.extend(_signature_lines(label, signature, pal))
    if finding.suggestion:
        suggestion = _continued(finding.suggestion, INDENT + "  ")
        out.append(f"{INDENT}{pal.green}suggestion:{pal.reset} {suggestion}")
    if finding.fix is not None:
        how = "safe: --fix" if finding.fix.safe else "unsafe: --fix --unsafe-fixes"
        what = terminal(finding.fix.description)
        out.append(f"{INDENT}{pal.green}fix:{pal.reset} {what} ({how})")
    if finding.also_at:
        lines = ", ".join(str(n) for n in finding.also_at)
        label = "line" if len(finding.also_at) == 1 else "lines"
        out.append(f"{INDENT}{pal.dim}also used at:{pal.reset} {label} {lines}")
    if finding.reached_from:
        chain = terminal(" -> ".join(chain_shown(finding.reached_from[0])))
        out.append(f"{INDENT}{pal.dim}reached from:{pal.reset} {chain}")
    return out


def _signature_lines(label: str, signature: str, pal: Palette) -> list[str]:
    """`baseline: (a, ...` wrapped at WIDTH after top-level commas, the continuation lines
    under the first parameter."""
    lead = f"{INDENT}{label} "
    first, *rest = wrapped(terminal(signature), WIDTH - len(lead))
    head = f"{INDENT}{pal.dim}{label}{pal.reset} {first}"
    return [head, *(" " * (len(lead) - 1) + line for line in rest)]


def chain_shown(chain: tuple[str, ...]) -> list[str]:
    """A call chain's steps, each after the first shown relative to the one before when it
    lies inside it (`a.b -> .C -> .f` for `a.b -> a.b.C -> a.b.C.f`), as the HTML report
    shows it."""
    shown: list[str] = []
    previous = ""
    for name in chain:
        inside = previous and name.startswith(previous + ".")
        shown.append(name[len(previous) :] if inside else name)
        previous = name
    return shown


def _continued(text: str, indent: str) -> str:
    """Indent the continuation lines of a multi-line value under its label (each line
    escaped for the terminal)."""
    return ("\n" + indent).join(terminal(line) for line in text.splitlines())


def summary_line(report: Report, pal: Palette = PLAIN) -> str:
    """One line of counts; `no drift found` when the report has no finding at all."""
    stats = report.stats
    scanned = ", ".join(
        [
            plural(stats.files_scanned, "file"),
            plural(stats.call_sites, "call site"),
            *([f"{stats.undecided} undecided"] if stats.undecided else []),
            *modules_read(report),
            f"{'replayed ' if stats.replayed else ''}in {stats.seconds:.2f}s",
        ]
    )
    fixed = f", {len(report.fixed)} fixed" if report.fixed else ""
    notes = [n for n in (not_checked_note(report), ungated_note(report)) if n is not None]
    narrowed = "".join(f"; {pal.yellow}{terminal(note)}{pal.reset}" for note in notes)
    if not report.findings and not report.hidden:
        clean = f"{pal.green}{pal.bold}no drift found{pal.reset}"
        return f"{clean}{fixed} ({scanned}){narrowed}"
    t = tally(report.findings, report.hidden)
    new = (
        f"{plural(t.new_error, 'new error')}, {plural(t.new_warning, 'new warning')}, "
        f"{t.new_info} new info{_in_tests(report)}"
    )
    colour = pal.red if t.new_error else pal.yellow if t.new_warning else pal.blue
    narrowed = _fixable_note(report) + narrowed
    others = (
        f"{t.preexisting} preexisting{_unlisted(report, Status.PREEXISTING)}, "
        f"{t.baselined} recorded, {t.suppressed} suppressed"
    )
    return f"{colour}{pal.bold}{new}{pal.reset}, {others}{fixed} ({scanned}){narrowed}"


def _in_tests(report: Report) -> str:
    """` (2 in test files)`: how many of the new findings are in the consumer's test files
    (model.is_test_path); "" when none is."""
    new = [f for f in (*report.findings, *report.hidden) if f.status is Status.NEW]
    count = sum(1 for f in new if f.in_test_file)
    return f" ({count} in test files)" if count else ""


def _fixable_note(report: Report) -> str:
    """`; 2 fixable with --fix (1 more with --unsafe-fixes)`, counting the findings listed
    and those only counted; "" when no finding has a fix (or fixes were not proposed)."""
    fixes = [f.fix for f in (*report.findings, *report.hidden) if f.status is not Status.SUPPRESSED]
    safe = sum(1 for fix in fixes if fix is not None and fix.safe)
    unsafe = sum(1 for fix in fixes if fix is not None and not fix.safe)
    if not safe and not unsafe:
        return ""
    if not safe:
        return f"; {unsafe} fixable with --fix --unsafe-fixes"
    more = f" ({unsafe} more with --unsafe-fixes)" if unsafe else ""
    return f"; {safe} fixable with --fix{more}"


def _unlisted(report: Report, status: Status) -> str:
    """` (listed with --show-preexisting)` when the reader's view counts such findings
    without listing them."""
    if any(f.status is status for f in report.hidden):
        return f" (listed with --show-{status.value})"
    return ""


def modules_read(report: Report) -> list[str]:
    """How the provider was read: modules parsed, and those the lookup memo answered."""
    phrase = modules_phrase(report)
    return [phrase] if phrase else []
