"""Reporters: each format on a literal Report with findings of several kinds and statuses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from auditor import kinddocs
from auditor.errors import AuditError
from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Stats, Status
from auditor.reporters import REPORTERS, github, json_report, markdown, sarif, text
from tests import sarif_schema

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
GEN = "speculators/data_generation/vllm_hidden_states_generator.py"
SCOPE = f"{GEN[:-3].replace('/', '.')}.VllmHiddenStatesGenerator._setup"


def make_finding(kind: Kind, path: str, line: int, **overrides: Any) -> Finding:
    fields: dict[str, Any] = {
        "kind": kind,
        "location": Location(path, line, 1, line, 10),
        "scope": "speculators.module",
        "symbol": "vllm.thing",
        "parameter": None,
        "broken_in": ("0.17.0",),
        "baseline_signature": None,
        "target_signature": None,
    }
    fields.update(overrides)
    return Finding(**fields)


KEYWORD = make_finding(
    Kind.UNEXPECTED_KEYWORD,
    GEN,
    120,
    location=Location(GEN, 120, 13, 120, 27),
    scope=SCOPE,
    symbol="vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups",
    parameter="kv_cache_specs",
    broken_in=("0.16.0", "0.17.0"),
    baseline_signature="(vllm_config, kv_cache_groups, kv_cache_specs, available_memory)",
    target_signature="(vllm_config, kv_cache_groups, available_memory)",
    reached_from=(("speculators.cli.main", "speculators.data_generation.generate", SCOPE),),
    suggestion="drop kv_cache_specs=; the specs now come from kv_cache_groups",
    source=(
        (119, "        config = get_kv_cache_config_from_groups("),
        (120, "            kv_cache_specs=specs,"),
        (121, "        )"),
    ),
)
MISSING = make_finding(
    Kind.MISSING_ARGUMENT,
    GEN,
    131,
    location=Location(GEN, 131, 14, 135, 10),
    scope=SCOPE,
    symbol="vllm.v1.core.sched.scheduler.Scheduler",
    parameter="block_size",
    broken_in=("0.16.0", "0.17.0"),
    baseline_signature="(vllm_config, kv_cache_config, structured_output_manager)",
    target_signature="(vllm_config, kv_cache_config, structured_output_manager, block_size)",
    source=((131, "\tscheduler = Scheduler("),),
)
SHIFT = make_finding(
    Kind.POSITIONAL_SHIFT,
    "speculators/models/eagle3.py",
    40,
    symbol="vllm.config.CacheConfig",
    parameter="a|b, c:d",
    status=Status.PREEXISTING,
)
DEPRECATED = make_finding(
    Kind.DEPRECATED, "speculators/models/eagle3.py", 50, status=Status.SUPPRESSED
)
UNRESOLVED = make_finding(
    Kind.UNRESOLVED,
    "speculators/utils, odd:name.py",
    3,
    broken_in=(),
    status=Status.BASELINED,
    suggestion="100% sure:\nsecond line\r\nthird",
)
INFO = make_finding(Kind.CHANGED_DEFAULT, "speculators/utils.py", 9, parameter="dtype")

REPORT = Report(
    consumer=ConsumerInfo("speculators", "0.3.0", "folder /src/speculators"),
    provider=ProviderInfo("vllm", "0.11.0", ("0.16.0", "0.17.0")),
    findings=(KEYWORD, MISSING, SHIFT, DEPRECATED, UNRESOLVED, INFO),
    stats=Stats(
        files_scanned=42,
        call_sites=317,
        provider_modules_loaded=12,
        bytes_fetched=9,
        seconds=0.4213,
    ),
)
EMPTY = Report(
    consumer=ConsumerInfo("widget", None, "folder /src/widget"),
    provider=ProviderInfo("acme", None, ("0.2",)),
    findings=(),
    stats=Stats(files_scanned=1, call_sites=1, seconds=0.5),
)


def test_registry_offers_every_format_by_name() -> None:
    assert list(REPORTERS) == [
        "text", "concise", "json", "sarif", "github", "markdown", "html", "gitlab", "junit",
    ]  # fmt: skip
    for name, render in REPORTERS.items():
        assert isinstance(render(REPORT, color=False), str), name


@pytest.mark.parametrize("name", ["text", "json", "sarif", "github", "markdown"])
def test_reporter_output_is_deterministic_and_ends_with_newline(name: str) -> None:
    first = REPORTERS[name](REPORT)
    assert first == REPORTERS[name](REPORT)
    assert first.endswith("\n")


@pytest.mark.parametrize("name", ["json", "sarif", "github", "markdown"])
def test_only_the_text_reporter_uses_colour(name: str) -> None:
    assert REPORTERS[name](REPORT, color=True) == REPORTERS[name](REPORT, color=False)


# --------------------------------------------------------------------------- text


def test_text_report_groups_findings_by_file_with_a_header_each() -> None:
    lines = text.render(REPORT).splitlines()
    assert lines[0] == "speculators 0.3.0 against vllm 0.16.0, 0.17.0 (baseline 0.11.0)"
    headers = [line for line in lines if line.startswith("--- ")]
    assert headers == [
        f"--- {GEN} (2 findings)",
        "--- speculators/models/eagle3.py (2 findings)",
        "--- speculators/utils, odd:name.py (1 finding)",
        "--- speculators/utils.py (1 finding)",
    ]


def test_text_finding_shows_location_slug_message_source_caret_and_details() -> None:
    out = text.render(REPORT)
    block = out.split(f"--- {GEN} (2 findings)\n")[1].split("\n\n")[0]
    assert block.splitlines() == [
        f"{GEN}:120:13: error[unexpected-keyword] vllm.v1.core.kv_cache_utils."
        "get_kv_cache_config_from_groups() no longer accepts keyword 'kv_cache_specs'"
        "; broken in 0.16.0",
        "    120 |             kv_cache_specs=specs,",
        "        |             ^^^^^^^^^^^^^^",
        "    baseline: (vllm_config, kv_cache_groups, kv_cache_specs, available_memory)",
        "    target:   (vllm_config, kv_cache_groups, available_memory)",
        "    suggestion: drop kv_cache_specs=; the specs now come from kv_cache_groups",
        "    reached from: speculators.cli.main -> speculators.data_generation.generate -> "
        + SCOPE,
    ]


def test_text_caret_keeps_tabs_and_runs_to_line_end_for_multiline_spans() -> None:
    lines = text.render(REPORT).splitlines()
    i = lines.index("    131 | \tscheduler = Scheduler(")
    assert lines[i + 1] == "        | \t            ^^^^^^^^^^"


def test_text_marks_status_when_not_new_and_indents_multiline_suggestions() -> None:
    out = text.render(REPORT)
    assert "speculators/models/eagle3.py:40:1: warning[positional-shift] " in out
    assert "; broken in 0.17.0 [preexisting]\n" in out
    assert "is deprecated; broken in 0.17.0 [suppressed]\n" in out
    assert "[recorded]\n    suggestion: 100% sure:\n      second line\n      third\n" in out
    info_line = next(line for line in out.splitlines() if ":9:1: info[changed-default]" in line)
    assert not info_line.endswith("]")


def test_text_summary_counts_new_by_severity_and_other_statuses() -> None:
    last = text.render(REPORT).splitlines()[-1]
    assert last == (
        "2 new errors, 0 new warnings, 1 new info, 1 preexisting, 1 recorded, 1 suppressed "
        "(42 files, 317 call sites, 12 provider modules parsed, in 0.42s)"
    )


def test_text_without_findings_says_no_drift_found_with_counts() -> None:
    assert text.render(EMPTY) == (
        "widget against acme 0.2 (no baseline)\n\nno drift found (1 file, 1 call site, in 0.50s)\n"
    )


def test_text_colour_only_when_asked_and_same_text_underneath() -> None:
    plain = text.render(REPORT, color=False)
    coloured = text.render(REPORT, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[31m" in coloured
    assert ANSI.sub("", coloured) == plain


# --------------------------------------------------------------------------- json


def test_json_report_has_every_schema_field_in_a_stable_order() -> None:
    data = json.loads(json_report.render(REPORT))
    assert list(data) == ["schema_version", "tool", "consumer", "provider", "findings", "stats"]
    assert data["schema_version"] == 1
    assert list(data["tool"]) == ["name", "version"]
    assert data["tool"]["name"] == "drift-audit"
    assert data["consumer"] == {
        "name": "speculators",
        "version": "0.3.0",
        "origin": "folder /src/speculators",
    }
    assert data["provider"] == {
        "name": "vllm",
        "baseline": "0.11.0",
        "targets": ["0.16.0", "0.17.0"],
    }
    assert list(data["stats"]) == [
        "files_scanned",
        "call_sites",
        "provider_modules_loaded",
        "provider_modules_cached",
        "provider_modules_earlier",
        "undecided",
        "sites",
        "unchanged",
        "bytes_fetched",
        "requests",
        "seconds",
        "replayed",
    ]
    first = data["findings"][0]
    assert list(first) == [
        "fingerprint", "kind", "severity", "message", "path", "module_path", "test", "line",
        "column", "end_line",
        "end_column", "symbol", "parameter", "broken_in", "first_broken", "first_audited",
        "baseline_signature",
        "target_signature", "reached_from", "suggestion", "status", "scope", "source",
    ]  # fmt: skip
    assert first["kind"] == "unexpected-keyword"
    assert first["severity"] == "error"
    assert first["fingerprint"] == KEYWORD.fingerprint
    assert first["first_broken"] == "0.16.0"
    assert first["reached_from"] == [
        ["speculators.cli.main", "speculators.data_generation.generate", SCOPE]
    ]
    assert first["source"][1] == [120, "            kv_cache_specs=specs,"]
    assert [f["status"] for f in data["findings"]] == [
        "new", "new", "preexisting", "suppressed", "baselined", "new",
    ]  # fmt: skip


def test_json_round_trip_is_exact() -> None:
    rendered = json_report.render(REPORT)
    loaded = json_report.load_report(rendered)
    assert json_report.render(loaded) == rendered
    assert loaded.findings == REPORT.findings
    assert loaded.consumer == REPORT.consumer
    assert loaded.provider == REPORT.provider


def test_json_load_report_reads_a_file_path(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(json_report.render(EMPTY), encoding="utf-8")
    assert json_report.load_report(path) == json_report.load_report(str(path))
    assert json_report.load_report(path).stats == Stats(1, 1, 0, 0, 0.5)


def _edited(**changes: Any) -> str:
    data = json.loads(json_report.render(REPORT))
    for key, value in changes.items():
        if key.startswith("finding_"):
            data["findings"][0][key.removeprefix("finding_")] = value
        else:
            data[key] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_edited(schema_version=2), "schema_version 2"),
        (_edited(schema_version=None), "schema_version None"),
        ("{not json", "not valid JSON"),
        (_edited(finding_kind="gone-kind"), "unknown kind 'gone-kind'"),
        (_edited(finding_status="maybe"), "unknown status 'maybe'"),
        (_edited(finding_line="12"), "'line' has the wrong type"),
        (_edited(finding_line=True), "'line' has the wrong type"),
        (_edited(finding_broken_in=[1]), "expected a list of strings"),
        (_edited(finding_source=[[1]]), "[line, text] pairs"),
        (_edited(stats=[]), "'stats' has the wrong type"),
        (_edited(findings=[1]), "findings[0] is not a drift-audit report"),
        ('{"schema_version": 1}', "missing field 'findings'"),
    ],
)
def test_json_load_report_rejects_what_it_cannot_read(document: str, message: str) -> None:
    with pytest.raises(AuditError, match=re.escape(message)) as info:
        json_report.load_report(document)
    assert info.value.hint


def test_json_load_report_of_a_missing_file_is_an_audit_error(tmp_path: Path) -> None:
    with pytest.raises(AuditError, match="cannot read report"):
        json_report.load_report(tmp_path / "nope.json")


def test_json_extra_fields_are_optional_on_load() -> None:
    data = json.loads(json_report.render(REPORT))
    del data["findings"][0]["source"]
    del data["findings"][0]["scope"]
    loaded = json_report.load_report(json.dumps(data))
    assert loaded.findings[0].source == ()
    assert loaded.findings[0].scope == ""


# --------------------------------------------------------------------------- sarif


def test_sarif_report_validates_against_the_sarif_2_1_0_schema() -> None:
    schema_path = sarif_schema.local_schema()
    if schema_path is None:
        pytest.skip(sarif_schema.SKIP_REASON)
    for report in (REPORT, EMPTY):
        assert sarif_schema.errors(schema_path, json.loads(sarif.render(report))) == []


def test_sarif_rules_are_the_whole_catalogue() -> None:
    driver = json.loads(sarif.render(EMPTY))["runs"][0]["tool"]["driver"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [k.slug for k in Kind]
    by_id = {r["id"]: r for r in rules}
    keyword = by_id["unexpected-keyword"]
    assert keyword["name"] == "UnexpectedKeyword"
    assert keyword["shortDescription"]["text"] == Kind.UNEXPECTED_KEYWORD.summary
    assert "helpUri" not in keyword  # no [project.urls] Documentation: no link, the text
    assert keyword["help"]["markdown"].startswith("## unexpected-keyword\n")
    assert "informationUri" not in driver
    assert keyword["defaultConfiguration"]["level"] == "error"
    assert by_id["positional-shift"]["defaultConfiguration"]["level"] == "warning"
    assert by_id["unresolved"]["defaultConfiguration"]["level"] == "note"
    assert driver["name"] == "drift-audit"


def test_sarif_links_only_to_the_project_urls_the_package_declares(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    urls = {"homepage": "https://example.org/fork", "documentation": "https://example.org/k"}
    monkeypatch.setattr(kinddocs, "project_urls", lambda: urls)
    driver = json.loads(sarif.render(EMPTY))["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/fork"
    by_id = {r["id"]: r for r in driver["rules"]}
    assert by_id["deprecated"]["helpUri"] == "https://example.org/k#deprecated"


def test_sarif_results_point_at_rules_and_locations() -> None:
    doc = json.loads(sarif.render(REPORT))
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    results = run["results"]
    assert len(results) == len(REPORT.findings)
    for result in results:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    first = results[0]
    assert first["level"] == "error"
    assert first["message"]["text"] == KEYWORD.message
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": GEN, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 120, "startColumn": 13, "endLine": 120, "endColumn": 27},
    }
    assert first["partialFingerprints"] == {"driftAudit/v1": KEYWORD.fingerprint}
    assert first["properties"] == {
        "status": "new",
        "symbol": KEYWORD.symbol,
        "parameter": "kv_cache_specs",
        "broken_in": ["0.16.0", "0.17.0"],
        "first_broken": "0.16.0",
    }
    assert "suppressions" not in first


def test_sarif_levels_and_suppressions_follow_status() -> None:
    results = json.loads(sarif.render(REPORT))["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert by_rule["positional-shift"]["level"] == "note"  # preexisting
    assert "suppressions" not in by_rule["positional-shift"]
    assert by_rule["deprecated"]["suppressions"][0]["kind"] == "inSource"
    assert by_rule["deprecated"]["level"] == "warning"
    assert by_rule["unresolved"]["suppressions"][0]["kind"] == "external"
    assert by_rule["changed-default"]["level"] == "note"


# --------------------------------------------------------------------------- github


def test_github_emits_one_command_per_finding_with_levels() -> None:
    lines = github.render(REPORT).splitlines()
    assert len(lines) == len(REPORT.findings)
    assert lines[0].startswith(
        f"::error file={GEN},line=120,col=13,endLine=120,endColumn=27,title=unexpected-keyword::"
    )
    assert [line.split(" ", 1)[0] for line in lines] == [
        "::error", "::error", "::notice", "::notice", "::notice", "::notice",
    ]  # fmt: skip


def test_github_escapes_data_and_properties() -> None:
    line = github.render(REPORT).splitlines()[4]
    assert "file=speculators/utils%2C odd%3Aname.py," in line
    assert line.endswith("[recorded]%0Asuggestion: 100%25 sure:%0Asecond line%0D%0Athird")
    assert "\r" not in github.render(REPORT)


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("100%", "100%25", "100%25"),
        ("a\nb\r\n", "a%0Ab%0D%0A", "a%0Ab%0D%0A"),
        ("x,y:z", "x,y:z", "x%2Cy%3Az"),
        ("%0A", "%250A", "%250A"),
    ],
)
def test_github_escape_functions(raw: str, data: str, prop: str) -> None:
    assert github.escape_data(raw) == data
    assert github.escape_property(raw) == prop


def test_github_report_without_findings_is_empty() -> None:
    assert github.render(EMPTY) == ""


# --------------------------------------------------------------------------- markdown


def test_markdown_has_heading_counts_and_new_findings_tables() -> None:
    out = markdown.render(REPORT)
    assert out.startswith("## drift-audit\n\nspeculators 0.3.0 against vllm 0.16.0, 0.17.0")
    assert "**3 new** (2 errors, 0 warnings, 1 info), 1 preexisting" in out
    assert "| Kind | Severity | New | Preexisting | Recorded | Suppressed |" in out
    assert "| `unexpected-keyword` | error | 1 | 0 | 0 | 0 |" in out
    assert "| `positional-shift` | warning | 0 | 1 | 0 | 0 |" in out
    assert "| `unresolved` | info | 0 | 0 | 1 | 0 |" in out
    assert "### New findings" in out
    new_table = out.split("### New findings")[1].split("<details>")[0]
    assert (
        f"| `{GEN}:120` | unexpected-keyword | `{KEYWORD.symbol}` | `kv_cache_specs` | 0.16.0 |"
        in new_table
    )
    assert "positional-shift" not in new_table


def test_markdown_folds_preexisting_findings_and_escapes_pipes() -> None:
    out = markdown.render(REPORT)
    details = out.split("<details>")[-1]  # after the new findings' details
    assert details.startswith("\n<summary>1 preexisting finding</summary>")
    assert "`a\\|b, c:d`" in details
    assert details.rstrip().endswith("</details>")


def test_markdown_cells_escape_pipes_and_flatten_newlines() -> None:
    assert markdown.cell("a|b\nc") == "a\\|b c"


def test_markdown_without_findings_says_so() -> None:
    out = markdown.render(EMPTY)
    assert "**No drift found** in 1 file." in out
    assert "|" not in out


# --------------------------------------------------------------------------- completeness


def _docs_sections() -> dict[str, str]:
    text_ = (REPO_ROOT / "auditor" / "kinds.md").read_text(encoding="utf-8")
    parts = re.split(r"^## (\S+)\n", text_, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("kind", list(Kind), ids=lambda k: k.slug)
def test_every_kind_has_a_docs_section_and_a_sarif_rule_for_reporting(kind: Kind) -> None:
    section = _docs_sections().get(kind.slug)
    assert section is not None, f"auditor/kinds.md has no section '## {kind.slug}'"
    for heading in ("What it finds", "Why it breaks at run time", "Example", "Fix"):
        assert f"### {heading}\n" in section, f"{kind.slug}: missing '{heading}'"
    assert f"Severity: {kind.severity.value}." in section
    rule_ids = [
        r["id"] for r in json.loads(sarif.render(EMPTY))["runs"][0]["tool"]["driver"]["rules"]
    ]
    assert kind.slug in rule_ids
    rules = json.loads(sarif.render(EMPTY))["runs"][0]["tool"]["driver"]["rules"]
    help_ = next(r["help"] for r in rules if r["id"] == kind.slug)
    assert help_["markdown"].startswith(f"## {kind.slug}\n")
    assert "What it finds" in help_["text"] and "```" not in help_["text"]
    assert kinddocs.markdown(kind) == help_["markdown"]
