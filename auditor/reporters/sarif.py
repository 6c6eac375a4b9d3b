# Maintainers: SARIF 2.1.0 for code-scanning services and IDEs.
#
# Owns: the SARIF document shape. One run; `tool.driver.rules` is the whole Kind catalogue in
# catalogue order (so a rule's index never depends on which findings a run has); each result
# points at its rule by id and index, carries our fingerprint in `partialFingerprints` and the
# finding's facts in `properties`. Levels: a new finding's level follows its severity
# (error/warning/note); a preexisting one is a `note` (it is broken against the baseline too,
# so it is not drift); baselined and suppressed ones keep their level and carry `suppressions`
# (external: the baseline file; inSource: a `# drift-audit: ignore` comment), which SARIF
# viewers hide by default. No timestamps: the output is deterministic. When the settings left
# kinds out of the report (`select`/`ignore`, the project's config or the command line), one
# invocation carries that as a warning `toolExecutionNotification` (id `left-out-kinds`), and
# the run's properties list them (`leftOut`): a gate they narrowed never reads as clean.
# Files `exclude` kept out of the scan are a notification too (`excluded-files`; every path
# in the run's `excluded` property), and so are settings that let new findings past the gate
# (`ungated-test-files`: gate-tests off; the run's `ungated`). A result such a setting lets
# pass keeps its level (the break is as real) and carries an accepted `external` suppression
# whose justification names the setting, as a baselined one does: SARIF's word for "found,
# and deliberately not failing", which code scanning honours, so the SARIF, the JUnit
# (`skipped`) and the exit status agree on every finding.
# Each rule embeds its kind's documentation (`help.text`, `help.markdown`, from the shipped
# kinds.md); `helpUri` and the driver's `informationUri` appear only when drift-audit's own
# `[project.urls]` names a page (kinddocs), so a report never links to a page that is not there.
# Artifact URIs are relative to the project root (`src/acme/x.py`), as code scanning expects.
"""SARIF 2.1.0 reporter."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from auditor import kinddocs
from auditor.escape import json_text, sarif_uri
from auditor.kinds import Kind, Severity
from auditor.model import Status
from auditor.reporters.common import (
    TOOL_NAME,
    excluded_note,
    left_out_note,
    tool_version,
    ungated_note,
)

if TYPE_CHECKING:
    from auditor.model import Finding, Fix, Report, Ungated

NAME = "sarif"
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "driftAudit/v1"
SRCROOT = "%SRCROOT%"
LEFT_OUT = "left-out-kinds"  # the notifications' descriptor ids
EXCLUDED = "excluded-files"
UNGATED = "ungated-test-files"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_CONSEQUENCE = {
    Severity.ERROR: "Against the target release the call fails at run time.",
    Severity.WARNING: "Against the target release the code may run but behave differently.",
    Severity.INFO: "Not a failure by itself; worth a look before upgrading.",
}
_UNCHECKED = "What it holds was not checked, so it fails the gate unless the kind is ignored."
_STALE = "Nothing breaks; a later break on that line would be hidden without anyone deciding so."
_PROBABLE = "If the value is of the provider's type, the call fails at run time; that is not known."
_SUPPRESSIONS = {
    Status.SUPPRESSED: {"kind": "inSource", "justification": "# drift-audit: ignore comment"},
    Status.BASELINED: {"kind": "external", "justification": "recorded in the baseline file"},
}


def _consequence(kind: Kind) -> str:
    if kind in (Kind.UNPARSABLE, Kind.UNPARSABLE_PROVIDER):
        return _UNCHECKED
    if kind is Kind.UNUSED_SUPPRESSION:
        return _STALE
    if kind is Kind.PROBABLE:
        return _PROBABLE
    return _CONSEQUENCE[kind.severity]


def render(report: Report, *, color: bool = False) -> str:
    """The whole report as a SARIF 2.1.0 document, with a trailing newline."""
    return json_text(json.dumps(to_sarif(report), indent=2, ensure_ascii=False)) + "\n"


def to_sarif(report: Report) -> dict[str, Any]:
    """The SARIF log as plain JSON-ready data."""
    run = {
        "tool": {"driver": _driver()},
        "originalUriBaseIds": {
            SRCROOT: {"description": {"text": "The consumer's project root."}},
        },
        "results": [result(f, gated_by=report.let_pass_by(f)) for f in report.findings],
        "columnKind": "unicodeCodePoints",  # scan/ counts columns in code points, 1-based
        "properties": _run_properties(report),
    }
    notes = [
        (LEFT_OUT, left_out_note(report)),
        (EXCLUDED, excluded_note(report)),
        (UNGATED, ungated_note(report)),
    ]
    said = [(descriptor, note) for descriptor, note in notes if note is not None]
    if said:
        run["invocations"] = [_narrowed(said)]
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _narrowed(notes: list[tuple[str, str]]) -> dict[str, Any]:
    """The invocation that says what the settings narrowed (and where): one warning
    notification for each of kinds left out, files excluded, findings let past the gate."""
    notifications = [
        {"level": "warning", "message": {"text": note}, "descriptor": {"id": descriptor}}
        for descriptor, note in notes
    ]
    return {"executionSuccessful": True, "toolExecutionNotifications": notifications}


def _driver() -> dict[str, Any]:
    driver: dict[str, Any] = {"name": TOOL_NAME, "version": tool_version()}
    home = kinddocs.project_url("homepage", "repository", "source", "documentation")
    if home is not None:
        driver["informationUri"] = home
    return driver | {"rules": [rule(kind) for kind in Kind]}


def rule(kind: Kind) -> dict[str, Any]:
    """The reportingDescriptor for one kind, its documentation embedded."""
    out: dict[str, Any] = {
        "id": kind.slug,
        "name": camel_case(kind.slug),
        "shortDescription": {"text": kind.summary},
        "fullDescription": {"text": f"{kind.summary} {_consequence(kind)}"},
    }
    url = kinddocs.docs_url(kind)
    if url is not None:
        out["helpUri"] = url
    return out | {
        "help": {"text": kinddocs.plain(kind), "markdown": kinddocs.markdown(kind)},
        "defaultConfiguration": {"level": LEVELS[kind.severity]},
    }


def camel_case(slug: str) -> str:
    """`unexpected-keyword` -> `UnexpectedKeyword`."""
    return "".join(part.capitalize() for part in slug.split("-"))


def result(finding: Finding, *, gated_by: Ungated | None = None) -> dict[str, Any]:
    """The SARIF result for one finding; one a setting lets past the gate (`gated_by`)
    keeps its level and carries an accepted external suppression naming the setting."""
    out: dict[str, Any] = {
        "ruleId": finding.kind.slug,
        "ruleIndex": list(Kind).index(finding.kind),
        "level": level(finding),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": _physical_location(finding)}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "status": finding.status.value,
            "symbol": finding.symbol,
            "parameter": finding.parameter,
            "broken_in": list(finding.broken_in),
            "first_broken": finding.first_broken_known,
        },
    }
    if finding.status in _SUPPRESSIONS:
        out["suppressions"] = [dict(_SUPPRESSIONS[finding.status])]
    elif gated_by is not None:
        why = f"in a test file, left out of the gate by {gated_by.by}"
        out["suppressions"] = [{"kind": "external", "status": "accepted", "justification": why}]
    if finding.fix is not None:
        out["fixes"] = [_fix(finding.fix)]
    return out


def _fix(fix: Fix) -> dict[str, Any]:
    """A SARIF fix: one artifactChange per edit, its region replaced by the new text."""
    what = fix.description if fix.safe else f"unsafe (--unsafe-fixes): {fix.description}"
    return {
        "description": {"text": what},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": sarif_uri(e.path), "uriBaseId": SRCROOT},
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": e.line,
                            "startColumn": e.column,
                            "endLine": e.end_line,
                            "endColumn": e.end_column,
                        },
                        "insertedContent": {"text": e.text},
                    }
                ],
            }
            for e in fix.edits
        ],
    }


def level(finding: Finding) -> str:
    """error/warning/note from the severity; `note` for a preexisting finding."""
    if finding.status is Status.PREEXISTING:
        return "note"
    return LEVELS[finding.severity]


def _physical_location(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    return {
        "artifactLocation": {"uri": sarif_uri(loc.path), "uriBaseId": SRCROOT},
        "region": {
            "startLine": loc.line,
            "startColumn": loc.column,
            "endLine": loc.end_line,
            "endColumn": loc.end_column,
        },
    }


def _run_properties(report: Report) -> dict[str, Any]:
    consumer, provider = report.consumer, report.provider
    out: dict[str, Any] = {
        "consumer": {"name": consumer.name, "version": consumer.version, "origin": consumer.origin},
        "provider": {
            "name": provider.name,
            "baseline": provider.baseline,
            "targets": list(provider.targets),
        },
    }
    if report.excluded:
        out["excluded"] = [
            {
                "source": e.source,
                "file": e.file,
                "patterns": list(e.patterns),
                "paths": list(e.paths),
            }
            for e in report.excluded
        ]
    if report.ungated:
        out["ungated"] = [
            {"setting": u.setting, "source": u.source, "file": u.file} for u in report.ungated
        ]
    if report.left_out:
        out["leftOut"] = [
            {
                "setting": e.setting,
                "source": e.source,
                "file": e.file,
                "kinds": [k.slug for k in e.kinds],
            }
            for e in report.left_out
        ]
    return out
