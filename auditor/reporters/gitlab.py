# Maintainers: a GitLab Code Quality report (the `codequality` artifact of a CI job), which the
# merge request widget and changes view show.
#
# Owns: the document shape, GitLab's subset of the Code Climate issue format: a JSON array with
# one object per finding, exactly the keys `description`, `check_name` (the kind's slug),
# `fingerprint`, `severity` and `location: {path, lines: {begin}}`, in report order.
# Severity: error -> critical, warning -> major, info -> info (GitLab's scale is info, minor,
# major, critical, blocker). `path` is the finding's location.path as every reporter shows it.
# GitLab has no notion of a suppressed or accepted issue, so baselined and suppressed
# findings cannot be expressed in this format and are left out (as the markdown reporter only
# counts them); new and preexisting ones are issues, a preexisting one says so in its
# description. That is the format's limit, not a filter: the report itself is not changed.
# Fingerprints: GitLab keys an issue by its fingerprint (it diffs the target branch's report
# against the merge request's by it, and shows one issue per fingerprint), so each entry
# must have its own. A finding keeps Finding.fingerprint (the JSON and SARIF one, stable when
# lines move) when no other finding in the document has it; every finding that shares it
# gets sha256(fingerprint, line, column) instead, truncated to 32 hex digits like ours, and,
# should two of those still collide (same fingerprint at the same position), the occurrence
# number in report order is hashed in too. Deterministic: same report, same fingerprints.
# Kinds the settings left out of the report (`select`/`ignore`) are one issue per setting,
# first, at the config file that set it (`.` for the command line), check name
# `left-out-kinds`: a gate a merge request's own pyproject.toml narrowed shows in its widget.
# So are the files `exclude` kept out of the scan (`excluded-files`, every path named) and a
# setting that lets new findings past the gate (`ungated-test-files`: gate-tests off); an
# issue such a setting lets pass keeps its severity and says `[not gated: test file]`.
# Strings go through json.dumps and escape.json_text, as in json_report.py.
"""GitLab Code Quality reporter: a JSON array of Code Climate issues."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from auditor.escape import json_text
from auditor.kinds import Kind, Severity
from auditor.model import Status
from auditor.reporters.common import UNGATED_MARK, excluded_sentence, ungated_sentence

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.model import Finding, LeftOut, Report

NAME = "gitlab"

SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "info"}
SHOWN = frozenset({Status.NEW, Status.PREEXISTING})  # GitLab cannot express the others
FINGERPRINT_CHARS = 32  # as Finding.fingerprint
LEFT_OUT = "left-out-kinds"  # the check name of an issue saying what the settings left out
EXCLUDED = "excluded-files"  # ... of one naming the files `exclude` kept out of the scan
UNGATED = "ungated-test-files"  # ... of one naming a setting that lets findings pass the gate


def render(report: Report, *, color: bool = False) -> str:
    """The Code Quality report as a JSON array, with a trailing newline ("[]" when empty)."""
    shown = [f for f in report.findings if f.status in SHOWN]
    issues = [left_out_issue(e) for e in report.left_out]
    issues += [
        _note_issue(EXCLUDED, excluded_sentence(e, every_path=True), e.file, "major", e.paths)
        for e in report.excluded
    ]
    issues += [
        _note_issue(UNGATED, ungated_sentence(u, report), u.file, "minor", (u.setting, u.source))
        for u in report.ungated
    ]
    marks = [report.gated(f) for f in shown]
    issues += [
        issue(f, fp, gated=gated)
        for f, fp, gated in zip(shown, fingerprints(shown), marks, strict=True)
    ]
    return json_text(json.dumps(issues, indent=2, ensure_ascii=False)) + "\n"


def left_out_issue(entry: LeftOut) -> dict[str, Any]:
    """An issue saying which kinds one setting left out of the report, at the config file
    that set it (`.` for the command line): a narrowed gate shows in the merge request."""
    note = f"{len(entry.kinds)} of {len(Kind)} kinds left out by {entry.by}: "
    note += ", ".join(k.slug for k in entry.kinds)
    key = "\x1f".join([LEFT_OUT, entry.setting, entry.source, entry.file or "", note])
    errors = any(k.severity is Severity.ERROR for k in entry.kinds)
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return {
        "description": note,
        "check_name": LEFT_OUT,
        "fingerprint": digest[:FINGERPRINT_CHARS],
        "severity": "major" if errors else "minor",
        "location": {"path": entry.file or ".", "lines": {"begin": 1}},
    }


def _note_issue(
    check: str, note: str, file: str | None, severity: str, key: Sequence[str]
) -> dict[str, Any]:
    """An issue saying what a setting narrowed, at the config file that set it (`.` for the
    command line), its fingerprint from `key` (what it is about: the files excluded, the
    setting), so the issue stays the same one while that does."""
    parts = [check, file or "", *key]
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return {
        "description": note,
        "check_name": check,
        "fingerprint": digest.hexdigest()[:FINGERPRINT_CHARS],
        "severity": severity,
        "location": {"path": file or ".", "lines": {"begin": 1}},
    }


def issue(finding: Finding, fingerprint: str, *, gated: bool = True) -> dict[str, Any]:
    """One Code Quality issue for a finding, under the given (unique) fingerprint; one the
    settings let past the gate (not `gated`) says so in its description."""
    mark = "" if gated else f" [{UNGATED_MARK}]"
    return {
        "description": _description(finding) + mark,
        "check_name": finding.kind.slug,
        "fingerprint": fingerprint,
        "severity": SEVERITIES[finding.severity],
        "location": {"path": finding.location.path, "lines": {"begin": finding.location.line}},
    }


def _description(finding: Finding) -> str:
    if finding.status is Status.NEW:
        return finding.message
    return f"{finding.message} [{finding.status.value}: broken against the baseline too]"


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """One fingerprint per finding, in order, no two alike (see the header for the rule)."""
    shared = Counter(f.fingerprint for f in findings)
    used: set[str] = set()
    out: list[str] = []
    for finding in findings:
        own = finding.fingerprint
        unique = shared[own] == 1 and own not in used
        fingerprint = own if unique else _derived(finding, used)
        used.add(fingerprint)
        out.append(fingerprint)
    return out


def _derived(finding: Finding, used: set[str]) -> str:
    """sha256 of the fingerprint, line and column; the occurrence number added on a tie."""
    loc = finding.location
    parts = [finding.fingerprint, str(loc.line), str(loc.column)]
    occurrence = 0
    while True:
        text = "\x1f".join(parts if occurrence == 0 else [*parts, str(occurrence)])
        fingerprint = hashlib.sha256(text.encode("ascii")).hexdigest()[:FINGERPRINT_CHARS]
        if fingerprint not in used:
            return fingerprint
        occurrence += 1
