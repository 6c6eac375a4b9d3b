"""docs/report.schema.json: the published JSON Schema of the JSON report (schema version 1).

The documents drift-audit wrote (the golden report, the published speculators report) and a
rendered report with every optional key validate; documents with a wrong kind, a missing key
or an extra key do not, so the schema has teeth. tests/conftest.py holds the compiled schema
(`report_validator`) and validates every JSON report any test renders in process.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest

from auditor.kinds import Kind, Severity
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Stats, Status
from auditor.reporters import json_report

if TYPE_CHECKING:
    from collections.abc import Callable

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO_ROOT / "docs" / "report.schema.json"
GOLDEN = REPO_ROOT / "tests" / "golden" / "widget-vs-acme.json"
PUBLISHED = REPO_ROOT / "reports" / "speculators-0.3.0-vs-vllm.json"
PATH = "widget/jobs.py"

Validator = jsonschema.Draft202012Validator


def _finding(kind: Kind, line: int, **fields: Any) -> Finding:
    values: dict[str, Any] = {
        "kind": kind,
        "location": Location(PATH, line, 5, line + 2, 9),
        "scope": "widget.jobs.run",
        "symbol": "acme.jobs.submit",
        "parameter": None,
        "broken_in": ("0.2",),
        "baseline_signature": None,
        "target_signature": None,
    }
    return Finding(**(values | fields))


RICH_FINDING = _finding(
    Kind.UNEXPECTED_KEYWORD,
    4,
    parameter="retries",
    broken_in=("0.2", "0.3"),
    baseline_signature="(name: str, retries: int = 1) -> str",
    target_signature="(name: str) -> str",
    reached_from=(("widget.cli.main", "widget.jobs.run"), ("widget.jobs",)),
    suggestion="drop retries=",
    status=Status.NEW,
    source=((3, "def run():"), (4, '    submit("x", retries=3)'), (5, "")),
    also_at=(9, 12),
)
REMOVED = _finding(Kind.REMOVED_SYMBOL, 20, symbol="acme.jobs.gone", status=Status.SUPPRESSED)
FIXED = _finding(Kind.MISSING_ARGUMENT, 30, parameter="queue")
ACME = ProviderInfo("acme", "0.1", ("0.2", "0.3"))
OTHER = ProviderInfo("other", None, ("2.0",))
RICH = Report(
    consumer=ConsumerInfo("widget", "1.0", "folder /src/widget"),
    provider=ACME,
    findings=(RICH_FINDING, REMOVED),
    stats=Stats(
        files_scanned=3,
        call_sites=7,
        provider_modules_loaded=2,
        bytes_fetched=1024,
        seconds=0.25,
        requests=4,
    ),
    providers=(ACME, OTHER),
    matrix=((True, True, None), (False, True, None)),
    fixed=(FIXED,),
    unused_suppressions=((PATH, 40, ("deprecated",)), (PATH, 41, ())),
)
HAND_BUILT = Report(  # no `providers`: none of the keys an audit run adds
    consumer=ConsumerInfo("widget", None, "installed"),
    provider=ProviderInfo("acme", None, ("0.2",)),
    findings=(),
)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return data


def _errors(validator: Validator, document: object) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(document)]


def _rich_document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json_report.render(RICH))
    return data


# --------------------------------------------------------------------------- the schema


def test_the_schema_is_draft_2020_12_with_a_urn_id(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Validator.check_schema(schema)
    assert schema["$id"] == "urn:drift-audit:report:1"
    assert schema["properties"]["schema_version"] == {"const": json_report.SCHEMA_VERSION}


def test_the_enums_are_the_catalogue_and_the_model(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    assert defs["kind"]["enum"] == [k.slug for k in Kind]
    assert defs["severity"]["enum"] == [s.value for s in Severity]
    assert defs["status"]["enum"] == [s.value for s in Status]


# --------------------------------------------------------------------------- valid documents


def test_the_golden_json_report_validates(report_validator: Validator) -> None:
    text = GOLDEN.read_text(encoding="utf-8")
    document = json.loads(text.replace('"seconds": "[SECONDS]"', '"seconds": 0.5'))
    assert _errors(report_validator, document) == []


def test_the_published_speculators_report_validates(report_validator: Validator) -> None:
    document = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert document["findings"], "the published report is expected to have findings"
    assert _errors(report_validator, document) == []


def test_a_report_with_every_optional_key_validates(report_validator: Validator) -> None:
    document = _rich_document()
    assert {"providers", "matrix", "fixed", "unused_suppressions"} <= set(document)
    assert "also_used_at" in document["findings"][0]
    assert None in document["matrix"]["rows"][0]["broken"]
    assert document["fixed"] and document["unused_suppressions"][1]["kinds"] == []
    assert _errors(report_validator, document) == []


def test_a_hand_built_report_without_the_audit_keys_validates(
    report_validator: Validator,
) -> None:
    document = json.loads(json_report.render(HAND_BUILT))
    assert not {"providers", "matrix", "fixed", "unused_suppressions"} & set(document)
    assert _errors(report_validator, document) == []


def test_a_finding_may_carry_a_module_path_string(report_validator: Validator) -> None:
    document = _rich_document()
    document["findings"][0]["module_path"] = "jobs.py"
    assert _errors(report_validator, document) == []
    document["findings"][0]["module_path"] = 3
    assert _errors(report_validator, document)


# --------------------------------------------------------------------------- invalid documents


def _set(*keys: str | int, value: object) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        target: Any = document
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return edit


def _drop(*keys: str | int) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        target: Any = document
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return edit


BROKEN = {
    "unknown kind": _set("findings", 0, "kind", value="removed-everything"),
    "unknown severity": _set("findings", 0, "severity", value="fatal"),
    "unknown status": _set("findings", 0, "status", value="ignored"),
    "unknown kind in fixed": _set("fixed", 0, "kind", value="Unexpected-Keyword"),
    "schema version 2": _set("schema_version", value=2),
    "line as a string": _set("findings", 0, "line", value="4"),
    "line 0": _set("findings", 0, "line", value=0),
    "short fingerprint": _set("findings", 0, "fingerprint", value="abc"),
    "null symbol": _set("findings", 0, "symbol", value=None),
    "source triple": _set("findings", 0, "source", value=[[1, "a", "b"]]),
    "negative seconds": _set("stats", "seconds", value=-1),
    "missing findings": _drop("findings"),
    "missing stats": _drop("stats"),
    "missing finding status": _drop("findings", 0, "status"),
    "missing finding parameter": _drop("findings", 0, "parameter"),
    "missing consumer version": _drop("consumer", "version"),
    "missing stats requests": _drop("stats", "requests"),
    "missing matrix rows": _drop("matrix", "rows"),
    "extra top-level key": _set("generated_at", value="2024-01-01"),
    "extra finding key": _set("findings", 0, "confidence", value=0.9),
    "extra tool key": _set("tool", "url", value="x"),
    "extra stats key": _set("stats", "cache_hits", value=1),
    "extra matrix row key": _set("matrix", "rows", 0, "note", value="x"),
    "extra unused-suppression key": _set("unused_suppressions", 0, "column", value=1),
}


@pytest.mark.parametrize("edit", BROKEN.values(), ids=BROKEN.keys())
def test_a_document_that_breaks_the_shape_does_not_validate(
    edit: Callable[[dict[str, Any]], None], report_validator: Validator
) -> None:
    document = _rich_document()
    assert _errors(report_validator, document) == []
    broken = copy.deepcopy(document)
    edit(broken)
    assert _errors(report_validator, broken), "the schema accepted a broken document"


# --------------------------------------------------------------------------- the session gate


def test_every_json_report_rendered_in_a_test_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tests/conftest.py wraps json_report.render: a document off the schema fails the test."""
    real = json_report.to_dict
    monkeypatch.setattr(json_report, "to_dict", lambda report: real(report) | {"extra": 1})
    with pytest.raises(AssertionError, match=r"report\.schema\.json"):
        json_report.render(RICH)
