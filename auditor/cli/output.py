# Maintainers: where a report goes: files, standard output, and the exit status.
#
# Owns: rendering every output before any is written, writing the files all or nothing
#       (files.write_outputs; an OSError becomes an AuditError with a hint), standard output
#       (the report, --statistics' table or --diff, as UTF-8 with lone surrogates escaped; a
#       full disk is one error line), the reader's view (baselined, suppressed and
#       preexisting findings counted, not listed), the summary line on stderr when the report
#       went to a file, and the exit status for --fail-on.
# Takes: a Report, the Plan and the Options. Gives: bytes written; an exit status.
"""Output routing: report files, standard output, statistics and the exit status."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from auditor.causes import OTHER
from auditor.cli.options import LOGGER, PROG, Options, Plan, shown_path
from auditor.cli.terminal import NOTE, use_color
from auditor.errors import AuditError, ExitCode
from auditor.escape import terminal
from auditor.files import Output, Refused, write_outputs
from auditor.kinds import Kind, Severity
from auditor.model import Status
from auditor.reporters import REPORTERS, baseline_file
from auditor.reporters.common import count_by_kind, not_checked_note, plural, ungated_note

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.model import Finding, Report

# list baselined findings only if asked
READER_FORMATS = ("text", "concise", "markdown", "github", "html")


def write_report(report: Report, plan: Plan, opts: Options) -> None:
    """Render every output before touching any file, then write the files all or nothing
    (files.write_outputs), then standard output: the report, or with --statistics the
    counts per kind; and when the report went to a file, its summary line on stderr."""
    color = use_color(
        opts.color,
        fmt=plan.format,
        to_file=plan.output is not None,
        env=os.environ,
        isatty=sys.stdout.isatty(),
    )
    shown = report
    if plan.format in READER_FORMATS:
        shown = reader_view(
            report,
            baselined=opts.show_baselined,
            preexisting=opts.show_preexisting or plan.format == "html",
        )
    if opts.show_unknown:
        shown = replace(shown, list_undecided=True)
    text = REPORTERS[plan.format](shown, color=color)
    outputs = []
    if opts.write_baseline:
        outputs.append(Output(Path(opts.write_baseline), encode(baseline_file.render(report))))
    if plan.output is not None:
        outputs.append(Output(Path(plan.output), encode(text), root=plan.output_root))
    diff = None
    if opts.diff:
        from auditor.fixfiles import diff_of, fixed_files

        changes = fixed_files(report, unsafe=opts.unsafe_fixes, option="--diff")
        diff = diff_of(changes)
    write_files(outputs)
    if opts.write_baseline and not opts.quiet:
        say_baseline_written(report, plan, opts.write_baseline)
    if diff is not None:
        write_stdout(diff)
        if not opts.quiet:
            would = sum(len(c.fixed) for c in changes)
            more = unsafe_left(report, opts)
            click.echo(f"Would fix {plural(would, 'finding')}{more}", err=True)
    elif opts.statistics:
        write_stdout(statistics_table(report))
    elif plan.output is None:
        write_stdout(text)
    if plan.output is not None and not opts.quiet:
        from auditor.reporters.text import summary_line

        where = terminal(plan.output)
        click.echo(f"{PROG}: {terminal(summary_line(report))}; report in {where}", err=True)


def say_baseline_written(report: Report, plan: Plan, path: str) -> None:
    """`wrote 3 findings to FILE`, and how a later run reads it when it would not by itself
    (neither the `baseline-file` setting nor the project's .drift-baseline.json)."""
    count = sum(1 for f in report.findings if f.status is not Status.SUPPRESSED)
    line = f"{PROG}: wrote {plural(count, 'finding')} to {terminal(path)}"
    read_next = plan.next_baseline_file
    if read_next is not None and Path(path).resolve() == read_next.resolve():
        line += "; later runs accept them"
    else:
        line += f"; later runs accept them only with --baseline-file {terminal(path)}"
        if read_next is not None:
            line += f" (they read {terminal(shown_path(read_next))} by themselves)"
    click.echo(line, err=True)


def unsafe_left(report: Report, opts: Options, verb: str = "") -> str:
    """The unsafe fixes not chosen: ` (1 more with --unsafe-fixes)`, or with `verb`
    `; 1 unsafe fix not applied (--unsafe-fixes)`; "" when none."""
    left = 0 if opts.unsafe_fixes else sum(1 for f in report.findings if _fixable(f, safe=False))
    if not left:
        return ""
    if verb:
        return f"; {plural(left, 'unsafe fix', 'unsafe fixes')}{verb} (--unsafe-fixes)"
    return f" ({left} more with --unsafe-fixes)"


def _fixable(finding: Finding, *, safe: bool) -> bool:
    fix = finding.fix
    return fix is not None and fix.safe is safe and finding.status is not Status.SUPPRESSED


def reader_view(report: Report, *, baselined: bool = False, preexisting: bool = False) -> Report:
    """The report as a reader sees it: baselined and suppressed findings (unless
    `baselined`, --show-baselined) and preexisting ones (unless `preexisting`,
    --show-preexisting) counted (Report.hidden) but not listed; the matrix rows follow the
    findings kept. (A 3,000-finding torch baseline must not bury the one new finding.)"""
    quiet = {Status.BASELINED, Status.SUPPRESSED} if not baselined else set()
    if not preexisting:
        quiet.add(Status.PREEXISTING)
    keep = [i for i, f in enumerate(report.findings) if f.status not in quiet]
    if len(keep) == len(report.findings):
        return report
    hidden = tuple(f for f in report.findings if f.status in quiet)
    return report.narrowed(keep, hidden=hidden)


def statistics_table(report: Report) -> str:
    """`--statistics`: per kind present, how many findings, by status (like ruff's); then
    the undecided sites by cause, and what the settings left out and let past the gate, if
    anything."""
    notes = [("not checked", not_checked_note(report)), ("not gated", ungated_note(report))]
    said = "".join(f"{what}: {terminal(note)}\n" for what, note in notes if note is not None)
    tail = undecided_table(report) + said
    rows = count_by_kind(report.findings)
    severity = {f.kind: f.severity.value for f in report.findings}
    if not rows:
        return "no findings\n" + tail
    width = max(len(k.slug) for k in rows)
    head = f"{'count':>5}  {'kind':<{width}}  {'severity':<8}  " + "  ".join(
        f"{s.label:>11}" for s in Status
    )
    lines = [head.rstrip()]
    for kind in sorted(rows, key=lambda k: (-sum(rows[k].values()), list(Kind).index(k))):
        counts = rows[kind]
        cells = "  ".join(f"{counts[s]:>11}" for s in Status)
        lines.append(
            f"{sum(counts.values()):>5}  {kind.slug:<{width}}  {severity[kind]:<8}  {cells}"
        )
    lines.append(f"{len(report.findings):>5}  total")
    return "\n".join(lines) + "\n" + tail


def undecided_table(report: Report) -> str:
    """The undecided sites by cause (auditor/causes.py), each with its share of the sites
    checked; nothing when every site was decided."""
    causes = Counter(u.cause or OTHER for u in report.undecided)
    same = report.stats.unchanged
    settled = f"decided by difference: {plural(same, 'site')} (the same in both releases)\n"
    if not causes:
        return settled if same else ""
    sites = report.stats.sites
    total = sum(causes.values())
    share = f" of {plural(sites, 'site')} ({total / sites:.0%})" if sites else ""
    width = max(len(c) for c in causes)
    lines = [f"undecided: {total}{share}, by cause (--show-unknown lists them)"]
    for cause, count in sorted(causes.items(), key=lambda item: (-item[1], item[0])):
        part = f"  {count / sites:>4.0%}" if sites else ""
        lines.append(f"{count:>5}  {cause:<{width}}{part}")
    return "\n".join(lines) + "\n" + (settled if same else "")


def encode(text: str) -> bytes:
    """UTF-8; a lone surrogate (a name that was not UTF-8) as its backslash escape, which in
    JSON is a valid escape, so no report ever fails to encode."""
    return text.encode("utf-8", "backslashreplace")


def write_files(outputs: Sequence[Output]) -> None:
    """AuditError (nothing written) when any output cannot be written as a regular file."""
    try:
        write_outputs(outputs)
    except OSError as exc:
        where = exc.filename or "the report"
        raise AuditError(
            f"cannot write {where}: {exc.strerror or exc}", hint=_write_hint(exc)
        ) from exc


def _write_hint(exc: OSError) -> str:
    if isinstance(exc, Refused):
        return (
            "name a regular file (or - for standard output); a path set in "
            "[tool.drift-audit] must stay inside the project"
        )
    return "check that the folder exists and is writable"


def write_stdout(text: str) -> None:
    """The report on standard output; AuditError when it cannot be written (a full disk)."""
    try:
        sys.stdout.flush()  # anything written as text before goes first
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:  # a text stream with no bytes beneath (an embedding program's)
            sys.stdout.write(encode(text).decode("utf-8"))
            sys.stdout.flush()
        else:
            stream.write(encode(text))
            stream.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _silence_stdout()
        raise AuditError(
            f"cannot write the report to standard output: {exc.strerror or exc}",
            hint="free some space, or write the report to a file with -o FILE",
        ) from exc


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush of what could not be
    written does not print a second error."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def exit_status(report: Report, fail_on: str) -> int:
    """1 when a new finding is at or above `fail_on` (never: always 0), else 0; a finding
    the report's `ungated` settings let pass (gate-tests off: one in a test file) does not
    count, so the exit status is what every format says of each finding."""
    gated = (f for f in report.findings if report.gated(f))
    failing = any(_gating(f, fail_on) for f in gated)
    return ExitCode.FINDINGS if failing else ExitCode.CLEAN


def _gating(finding: Finding, fail_on: str) -> bool:
    """A new finding at or above `fail_on` (nothing is, for `never`)."""
    if fail_on == "never" or finding.status is not Status.NEW:
        return False
    return finding.severity.rank >= Severity(fail_on).rank


def say_tests_not_gated(report: Report, plan: Plan) -> None:
    """With gate-tests off, a note on stderr of the failing findings it kept out of the gate."""
    if not report.ungated:
        return
    kept_out = sum(1 for f in report.findings if not report.gated(f) and _gating(f, plan.fail_on))
    if kept_out:
        logging.getLogger(LOGGER).log(
            NOTE,
            "%s in test files left out of the exit status (gate-tests off)",
            plural(kept_out, "new finding"),
        )
