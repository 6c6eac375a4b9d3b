# Maintainers: GitHub Actions workflow commands, one per finding, for inline annotations.
#
# Owns: the command line shape and its escaping (the same rules as the Actions toolkit:
# data escapes %, CR, LF; property values also escape `:` and `,`). Reporters do not filter,
# so every finding is emitted: a new one at the level of its severity (error/warning/notice);
# a preexisting, baselined or suppressed one as a `notice`, its status in the message, so the
# annotation is still visible but never looks like a failure; so is a new one the settings let
# past the gate (gate-tests off: `[not gated: test file]`). Long signatures are cut to the
# parameters that matter (signatures.py), as the text report cuts them. When the settings
# left kinds out of the report, excluded files from the scan, or let findings past the gate, a first
# `::warning` (no file) for each says which and where they were set, so a gate a pull
# request's own config narrowed shows on the run. Exit codes are the CLI's job.
"""GitHub Actions reporter: `::error file=...,line=...::message` lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.escape import workflow_data, workflow_property
from auditor.kinds import Severity
from auditor.model import Status
from auditor.reporters.common import UNGATED_MARK, excluded_note, left_out_note, ungated_note
from auditor.reporters.signatures import cut_signatures

if TYPE_CHECKING:
    from auditor.model import Finding, Report

NAME = "github"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
TITLE = "drift-audit: kinds left out"
EXCLUDED_TITLE = "drift-audit: files excluded"
UNGATED_TITLE = "drift-audit: test files not gated"


def render(report: Report, *, color: bool = False) -> str:
    """One workflow command per finding, in report order, after a warning for each thing
    the settings narrowed (kinds left out, files excluded, findings let past the gate);
    "" when there is nothing to say."""
    notes = [
        (TITLE, left_out_note(report)),
        (EXCLUDED_TITLE, excluded_note(report)),
        (UNGATED_TITLE, ungated_note(report)),
    ]
    head = "".join(
        f"::warning title={escape_property(title)}::{escape_data(note)}\n"
        for title, note in notes
        if note is not None
    )
    return head + "".join(command(f, gated=report.gated(f)) + "\n" for f in report.findings)


def command(finding: Finding, *, gated: bool = True) -> str:
    """The workflow command for one finding; a notice when the settings let it past the
    gate (not `gated`), as for any finding that does not fail the run."""
    loc = finding.location
    props = {
        "file": loc.path,
        "line": str(loc.line),
        "col": str(loc.column),
        "endLine": str(loc.end_line),
        "endColumn": str(loc.end_column),
        "title": finding.kind.slug,
    }
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in props.items())
    if not gated:
        return f"::notice {joined}::{escape_data(message(finding, f' [{UNGATED_MARK}]'))}"
    return f"::{level(finding)} {joined}::{escape_data(message(finding))}"


def level(finding: Finding) -> str:
    """error/warning/notice from the severity for a new finding; notice otherwise."""
    if finding.status is not Status.NEW:
        return "notice"
    return LEVELS[finding.severity]


def message(finding: Finding, mark: str = "") -> str:
    """The message, the status when not new (or `mark`), then the signatures (cut to the
    parameters that matter: signatures.py) and suggestion on more lines."""
    lines = [finding.message + mark]
    if finding.status is not Status.NEW:
        lines[0] += f" [{finding.status.label}]"
    old, new = cut_signatures(
        finding.baseline_signature, finding.target_signature, finding.parameter
    )
    if old is not None:
        lines.append(f"baseline: {old}")
    if new is not None:
        lines.append(f"target: {new}")
    if finding.suggestion:
        lines.append(f"suggestion: {finding.suggestion}")
    return "\n".join(lines)


def escape_data(value: str) -> str:
    """Escape a command's message: controls made visible, then `%`, CR and LF."""
    return workflow_data(value)


def escape_property(value: str) -> str:
    """Escape a property value: as data, plus `:` and `,`."""
    return workflow_property(value)
