"""The GitLab Code Quality reporter on literal Reports.

The output validates against a JSON Schema of GitLab's Code Quality format (written here from
GitLab's documentation: an array of issues with description, check_name, fingerprint, a severity
of info/minor/major/critical/blocker and location.path plus location.lines.begin); every entry
has its own fingerprint, even when findings share Finding.fingerprint; baselined and suppressed
findings are absent; hostile strings come out escaped and read back unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import jsonschema
import pytest

from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Status
from auditor.reporters import REPORTERS, gitlab

PATH = "widget/jobs.py"
CODE_QUALITY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
}
VALIDATOR = jsonschema.Draft202012Validator(CODE_QUALITY_SCHEMA)
UNSAFE = re.compile(  # raw controls, bidi and format characters, lone surrogates
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def finding(kind: Kind, line: int, status: Status = Status.NEW, **fields: Any) -> Finding:
    values: dict[str, Any] = {
        "kind": kind,
        "location": Location(PATH, line, 5, line, 20),
        "scope": f"widget.jobs.f{line}",
        "symbol": "acme.jobs.submit",
        "parameter": "retries",
        "broken_in": ("0.2",),
        "baseline_signature": "(name, retries=1)",
        "target_signature": "(name)",
        "status": status,
    }
    return Finding(**(values | fields))


def report(*findings: Finding) -> Report:
    return Report(
        consumer=ConsumerInfo("widget", None, "folder /src/widget"),
        provider=ProviderInfo("acme", "0.1", ("0.2",)),
        findings=findings,
    )


KEYWORD = finding(Kind.UNEXPECTED_KEYWORD, 3)
SHIFT = finding(Kind.POSITIONAL_SHIFT, 5, Status.PREEXISTING)
DEFAULT = finding(Kind.CHANGED_DEFAULT, 7)
BASELINED = finding(Kind.MISSING_ARGUMENT, 9, Status.BASELINED)
SUPPRESSED = finding(Kind.DEPRECATED, 11, Status.SUPPRESSED)
MIXED = report(KEYWORD, SHIFT, DEFAULT, BASELINED, SUPPRESSED)


def issues(rep: Report) -> list[dict[str, Any]]:
    document: list[dict[str, Any]] = json.loads(gitlab.render(rep))
    return document


def test_gitlab_is_a_registered_format() -> None:
    assert gitlab.NAME == "gitlab"
    assert "gitlab" in REPORTERS
    assert REPORTERS["gitlab"] is gitlab.render


def test_the_report_validates_against_the_code_quality_schema() -> None:
    document = issues(MIXED)
    errors = [f"{e.json_path}: {e.message}" for e in VALIDATOR.iter_errors(document)]
    assert errors == []
    assert len(document) == 3


def test_an_empty_report_is_an_empty_array() -> None:
    assert gitlab.render(report()) == "[]\n"
    assert gitlab.render(report(BASELINED, SUPPRESSED)) == "[]\n"


def test_each_issue_carries_the_findings_facts() -> None:
    first = issues(report(KEYWORD))[0]
    assert first == {
        "description": KEYWORD.message,
        "check_name": "unexpected-keyword",
        "fingerprint": KEYWORD.fingerprint,
        "severity": "critical",
        "location": {"path": PATH, "lines": {"begin": 3}},
    }


def test_severity_maps_error_warning_info_to_critical_major_info() -> None:
    by_check = {i["check_name"]: i["severity"] for i in issues(MIXED)}
    assert by_check == {
        "unexpected-keyword": "critical",
        "positional-shift": "major",
        "changed-default": "info",
    }


def test_baselined_and_suppressed_findings_are_left_out() -> None:
    document = issues(MIXED)
    assert [i["location"]["lines"]["begin"] for i in document] == [3, 5, 7]  # report order
    assert {i["check_name"] for i in document}.isdisjoint({"missing-argument", "deprecated"})
    fingerprints = {i["fingerprint"] for i in document}
    assert BASELINED.fingerprint not in fingerprints
    assert SUPPRESSED.fingerprint not in fingerprints


def test_a_preexisting_finding_says_so_and_a_new_one_is_just_its_message() -> None:
    by_line = {i["location"]["lines"]["begin"]: i["description"] for i in issues(MIXED)}
    assert by_line[3] == KEYWORD.message
    assert by_line[5].startswith(SHIFT.message)
    assert "[preexisting" in by_line[5]


def _twins() -> tuple[Finding, Finding]:
    """Two findings with one Finding.fingerprint: same kind, file, scope, symbol, parameter."""
    a = finding(Kind.UNEXPECTED_KEYWORD, 20, scope="widget.jobs.run")
    b = finding(Kind.UNEXPECTED_KEYWORD, 24, scope="widget.jobs.run")
    assert a.fingerprint == b.fingerprint
    return a, b


def test_fingerprints_are_unique_when_findings_share_one() -> None:
    a, b = _twins()
    document = issues(report(KEYWORD, a, b))
    fingerprints = [i["fingerprint"] for i in document]
    assert len(set(fingerprints)) == 3
    assert fingerprints[0] == KEYWORD.fingerprint  # a lone finding keeps the JSON/SARIF one
    for twin, got in zip((a, b), fingerprints[1:], strict=True):
        text = f"{twin.fingerprint}\x1f{twin.location.line}\x1f{twin.location.column}"
        assert got == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert gitlab.render(report(KEYWORD, a, b)) == gitlab.render(report(KEYWORD, a, b))


def test_fingerprints_stay_unique_for_twins_at_the_same_position() -> None:
    a, _ = _twins()
    document = issues(report(a, a, a))
    fingerprints = [i["fingerprint"] for i in document]
    assert len(set(fingerprints)) == 3
    assert all(re.fullmatch(r"[0-9a-f]{32}", fp) for fp in fingerprints)


HOSTILE = [
    "x\n::error file=pwned.py::injected\n",
    "\x1b[31mred\x1b[0m",
    "::warning::",
    'say "hi" and \\ back',
    "\r\nCRLF",
    "\u202eevil",
    "\udcff",
    "\x00\x07\x7f\x9b",
]


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_strings_are_escaped_and_read_back_unchanged(hostile: str) -> None:
    path = f"widget/{hostile}.py"
    rep = report(
        finding(
            Kind.UNEXPECTED_KEYWORD,
            3,
            location=Location(path, 3, 1, 3, 9),
            symbol=f"acme.{hostile}",
            parameter=hostile,
        )
    )
    out = gitlab.render(rep)
    assert not UNSAFE.search(out.replace("\n", ""))
    assert not any(line.lstrip().startswith("::") for line in out.split("\n"))
    assert out.count("\n") == len(out.splitlines())  # no line break but the layout's own
    (issue,) = json.loads(out)
    assert issue["location"]["path"] == path
    assert issue["description"] == rep.findings[0].message
    assert not list(VALIDATOR.iter_errors([issue]))


def test_colour_is_ignored_and_output_is_deterministic() -> None:
    assert gitlab.render(MIXED, color=True) == gitlab.render(MIXED) == gitlab.render(MIXED)
    assert gitlab.render(MIXED).endswith("]\n")
