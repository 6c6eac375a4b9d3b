# Maintainers: the JUnit XML report (`--format junit`), for CI systems that read only JUnit.
#
# Owns: the document. One <testsuite> per consumer file with findings (name = the path), one
# <testcase> per finding in it (name = `severity[slug] at line:col`, classname = the
# enclosing scope, file and line attributes); a new error is a <failure> (type = the slug,
# message = the finding's message, body = the headline and the old and new signatures, cut
# to the parameters that matter: signatures.py); a
# new warning or info passes with the same text in <system-out> (it is not a failure at the
# default --fail-on); a preexisting, baselined or suppressed one is <skipped> with its status,
# and so is a new one the settings let past the gate (gate-tests off: `not gated: test
# file`, naming the setting; the text in <system-out>), so no <failure> is one the exit status
# passed. What the settings narrowed (kinds left out, files excluded, findings let past the
# gate) comes first, a suite `drift-audit: settings` of one skipped testcase each, its
# message saying what and where it was set.
# A report with no finding gives one passing testcase, `no drift found`, as ruff's junit does,
# so a CI that wants a test at all sees one. Every value is untrusted and goes through
# escape.xml_text / escape.xml_attr (the one escaper for this sink); the document is built as
# text in one order, deterministic byte for byte (no timestamps, no durations). Takes a
# Report in its given order; never filters or sorts.
"""JUnit XML reporter: one testcase per finding, failures for new errors."""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from auditor.escape import xml_attr, xml_text
from auditor.kinds import Severity
from auditor.model import Status
from auditor.reporters.common import (
    TOOL_NAME,
    UNGATED_MARK,
    excluded_note,
    left_out_note,
    ungated_note,
)
from auditor.reporters.signatures import cut_signatures

if TYPE_CHECKING:
    from auditor.model import Finding, Report

NAME = "junit"


def render(report: Report, *, color: bool = False) -> str:
    """The whole JUnit XML document."""
    suites = [
        _suite(path, list(group), report)
        for path, group in groupby(report.findings, key=lambda f: f.location.path)
    ]
    if not suites:
        suites = [_clean_suite()]
    notes = _notes(report)
    if notes:
        suites.insert(0, _settings_suite(notes))
    failures = sum(1 for f in report.findings if _fails(f, report))
    tests = max(len(report.findings), 1) + len(notes)
    head = f'<testsuites name="{TOOL_NAME}" tests="{tests}" failures="{failures}" errors="0">'
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', head, *suites, "</testsuites>"]
    return "\n".join(lines) + "\n"


def _fails(finding: Finding, report: Report) -> bool:
    """A new error the settings do not let past the gate."""
    new_error = finding.status is Status.NEW and finding.severity is Severity.ERROR
    return new_error and report.gated(finding)


def _skipped(finding: Finding, report: Report) -> bool:
    return finding.status is not Status.NEW or not report.gated(finding)


def _notes(report: Report) -> list[tuple[str, str]]:
    """(testcase name, sentence) for each thing the settings narrowed."""
    notes = [
        ("kinds left out", left_out_note(report)),
        ("files excluded", excluded_note(report)),
        ("test files not gated", ungated_note(report)),
    ]
    return [(name, note) for name, note in notes if note is not None]


def _settings_suite(notes: list[tuple[str, str]]) -> str:
    """What the settings narrowed, one skipped testcase each: seen in a CI's test report,
    never a failure."""
    head = (
        f'  <testsuite name="{TOOL_NAME}: settings" tests="{len(notes)}" '
        f'failures="0" errors="0" skipped="{len(notes)}">'
    )
    cases = [
        f'    <testcase name="{xml_attr(name)}" classname="{TOOL_NAME}">\n'
        f'      <skipped message="{xml_attr(note)}"/>\n'
        "    </testcase>"
        for name, note in notes
    ]
    return "\n".join([head, *cases, "  </testsuite>"])


def _suite(path: str, findings: list[Finding], report: Report) -> str:
    failures = sum(1 for f in findings if _fails(f, report))
    skipped = sum(1 for f in findings if _skipped(f, report))
    head = (
        f'  <testsuite name="{xml_attr(path)}" tests="{len(findings)}" '
        f'failures="{failures}" errors="0" skipped="{skipped}">'
    )
    return "\n".join([head, *(_case(f, report) for f in findings), "  </testsuite>"])


def _case(finding: Finding, report: Report) -> str:
    loc = finding.location
    name = f"{finding.severity.value}[{finding.kind.slug}] at {loc.line}:{loc.column}"
    head = (
        f'    <testcase name="{xml_attr(name)}" classname="{xml_attr(finding.scope)}" '
        f'file="{xml_attr(loc.path)}" line="{loc.line}">'
    )
    body = xml_text(_details(finding))
    ungated = report.let_pass_by(finding)
    if finding.status is not Status.NEW:
        inner = f'      <skipped message="{xml_attr(finding.status.label)}"/>'
    elif ungated is not None:
        why = f"{UNGATED_MARK} (left out of the gate by {ungated.by})"
        inner = f'      <skipped message="{xml_attr(why)}"/>\n      <system-out>{body}</system-out>'
    elif _fails(finding, report):
        inner = (
            f'      <failure type="{xml_attr(finding.kind.slug)}" '
            f'message="{xml_attr(finding.message)}">{body}</failure>'
        )
    else:
        inner = f"      <system-out>{body}</system-out>"
    return "\n".join([head, inner, "    </testcase>"])


def _details(finding: Finding) -> str:
    """The headline and what a reader checks it against, one fact a line."""
    loc = finding.location
    lines = [f"{loc.path}:{loc.line}:{loc.column}: {finding.message}"]
    old, new = cut_signatures(
        finding.baseline_signature, finding.target_signature, finding.parameter
    )
    if old is not None:
        lines.append(f"baseline: {old}")
    if new is not None:
        lines.append(f"target:   {new}")
    if finding.suggestion:
        lines.append(f"suggestion: {finding.suggestion}")
    return "\n".join(lines)


def _clean_suite() -> str:
    return "\n".join(
        [
            f'  <testsuite name="{TOOL_NAME}" tests="1" failures="0" errors="0" skipped="0">',
            f'    <testcase name="no drift found" classname="{TOOL_NAME}"/>',
            "  </testsuite>",
        ]
    )
