"""What the settings left out of a report (Report.left_out, .excluded, .ungated), in every format.

The JSON form reads back unchanged (load_report) and fits docs/report.schema.json (the session
fixture checks every JSON report rendered); the SARIF form validates against SARIF 2.1.0 when
its schema is at hand; and a config file name holding hostile text (it comes with the pull
request) is escaped in every sink. The CLI end of it is tests/functional/test_trust_gate.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from auditor.config import left_out
from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Excluded, LeftOut, ProviderInfo, Report, Stats, Ungated
from auditor.reporters import REPORTERS, json_report
from auditor.reporters.common import excluded_note, left_out_note, ungated_note
from tests import sarif_schema

REPO_ROOT = Path(__file__).resolve().parents[2]
HOSTILE_FILE = "x\x1b]52;c;SGVsbG8=\x07\n::error file=a::pwned\n<script>`|@team\u202e.toml"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def report(*entries: LeftOut) -> Report:
    provider = ProviderInfo("acme", "0.1", ("0.2",))
    return Report(
        consumer=ConsumerInfo("widget", "1", "folder /src/widget"),
        provider=provider,
        findings=(),
        stats=Stats(files_scanned=1, call_sites=1),
        providers=(provider,),
        left_out=entries,
    )


IGNORED = LeftOut("ignore", "command-line", None, (Kind.DEPRECATED,))
SELECTED = left_out("select", ("unparsable",), "config", "pyproject.toml")


def test_a_select_leaves_out_what_it_does_not_name_and_an_ignore_what_it_names() -> None:
    assert SELECTED is not None
    assert SELECTED.kinds == tuple(k for k in Kind if k is not Kind.UNPARSABLE)
    everything = left_out("ignore", ("ALL",), "config", "pyproject.toml")
    assert everything is not None and everything.kinds == tuple(Kind)
    assert left_out("select", ("ALL",), "config", "pyproject.toml") is None
    assert left_out("ignore", (), "command-line", None) is None


def test_the_note_names_the_setting_where_it_was_set_and_the_kinds() -> None:
    assert SELECTED is not None
    note = left_out_note(report(SELECTED, IGNORED))
    assert note == (
        f"{len(Kind) - 1} of {len(Kind)} kinds left out by select in [tool.drift-audit] of "
        "pyproject.toml: every kind but unparsable; "
        f"1 of {len(Kind)} kinds left out by --ignore on the command line: deprecated"
    )
    assert left_out_note(report()) is None


def test_the_excluded_note_names_five_files_and_counts_the_rest() -> None:
    paths = (*(f"widget/legacy/m{i}.py" for i in range(7)), "widget/locked/")
    entry = Excluded("config", "pyproject.toml", ("widget/legacy/**", "widget/locked"), paths)
    note = excluded_note(replace(report(), excluded=(entry,)))
    assert note == (
        "7 files and 1 unreadable folder left out of the scan by exclude in [tool.drift-audit] "
        "of pyproject.toml: widget/legacy/m0.py, widget/legacy/m1.py, widget/legacy/m2.py, "
        "widget/legacy/m3.py, widget/legacy/m4.py and 3 more"
    )
    command_line = Excluded("command-line", None, ("x.py",), ("x.py",))
    assert excluded_note(replace(report(), excluded=(command_line,))) == (
        "1 file left out of the scan by --exclude on the command line: x.py"
    )
    assert excluded_note(report()) is None


@pytest.mark.parametrize(
    ("source", "file", "by"),
    [
        ("config", "pyproject.toml", "gate-tests = false in [tool.drift-audit] of pyproject.toml"),
        ("command-line", "ci.toml", "gate-tests = false in ci.toml (--config on the command line)"),
        ("command-line", None, "--no-gate-tests on the command line"),
        ("api", None, "gate_tests=False of audit()"),
    ],
)
def test_the_ungated_note_names_the_setting_where_it_was_set(
    source: str, file: str | None, by: str
) -> None:
    entry = Ungated("gate-tests", source, file)
    assert ungated_note(replace(report(), ungated=(entry,))) == (
        f"0 new findings in test files left out of the gate by {by}"
    )
    assert ungated_note(report()) is None


def test_excluded_and_ungated_read_back_from_the_json_report() -> None:
    original = replace(
        report(),
        excluded=(Excluded("config", "pyproject.toml", ("a/**",), ("a/b.py", "a/c/")),),
        ungated=(Ungated("gate-tests", "command-line", None),),
    )
    document = json.loads(REPORTERS["json"](original))
    assert document["ungated"] == [
        {"setting": "gate-tests", "source": "command-line", "file": None, "passed": 0}
    ]
    back = json_report.from_dict(document)
    assert (back.excluded, back.ungated) == (original.excluded, original.ungated)
    del document["excluded"], document["ungated"]  # a report written before the keys existed
    assert json_report.from_dict(document).excluded == ()


def test_left_out_reads_back_from_the_json_report() -> None:
    assert SELECTED is not None
    original = report(SELECTED, IGNORED)
    back = json_report.load_report(REPORTERS["json"](original))
    assert back.left_out == original.left_out


def test_a_report_without_left_out_reads_as_none_left_out() -> None:
    document = json.loads(REPORTERS["json"](report()))
    assert document["left_out"] == []
    del document["left_out"]  # a report written before the key existed
    assert json_report.from_dict(document).left_out == ()


def test_the_sarif_notification_validates_against_sarif_2_1_0() -> None:
    path = sarif_schema.local_schema()
    if path is None:
        pytest.skip(sarif_schema.SKIP_REASON)
    document = json.loads(REPORTERS["sarif"](report(IGNORED)))
    assert sarif_schema.errors(path, document) == []
    notes = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["descriptor"]["id"] for n in notes] == ["left-out-kinds"]


@pytest.mark.parametrize("fmt", ["text", "github", "markdown", "html", "json", "sarif", "gitlab"])
def test_a_hostile_config_file_name_is_escaped_in_every_sink(fmt: str) -> None:
    """A pyproject.toml found above the project is named as found; its name is untrusted."""
    entry = LeftOut("ignore", "config", HOSTILE_FILE, tuple(Kind))
    out = REPORTERS[fmt](report(entry))
    assert not UNSAFE.search(out.replace("\n", "")), repr(UNSAFE.search(out.replace("\n", "")))
    assert not any(line.startswith("::error") for line in out.splitlines())
    if fmt == "markdown":  # inside a code span (the word holds `@`) `<script>` is text
        assert "<script>" not in re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", out)
    if fmt == "html":
        assert out.count("<script") == 1  # its own
    if fmt == "github":
        assert len(out.splitlines()) == 1
    if fmt == "json":
        assert json_report.load_report(out).left_out == (entry,)
    if fmt == "sarif":
        assert json.loads(out)["runs"][0]["properties"]["leftOut"][0]["file"] == HOSTILE_FILE
    if fmt == "gitlab":
        assert json.loads(out)[0]["location"]["path"] == HOSTILE_FILE
