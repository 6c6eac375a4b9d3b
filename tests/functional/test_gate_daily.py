"""Issue 24, the gate and the text output, end to end through the CLI.

A scratch project (tmp_path/proj) with `[tool.drift-audit]`, the package `widget` and the
provider `acme` as two local folders (0.1, the baseline, and 0.2), so nothing touches the
network. Each test edits `widget/jobs.py` and asserts what a user sees.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

import pytest

from tests.scratch import Project, make_project

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

ACME_01 = (
    "def run(model, old=None, verbose=False):\n    return model\n\n\n"
    "def stop(job):\n    return job\n\n\n"
    "def tune(model, rate=1):\n    return model\n\n\n"
    "def build(model, a1=1, a2=2, a3=3, a4=4, a5=5, a6=6, a7=7, a8=8, a9=9, a10=10,\n"
    "          a11=11, a12=12, a13=13, a14=14, kv_cache_specs=None):\n    return model\n"
)
ACME_02 = (
    "def run(model):\n    return model\n\n\n"
    "def stop(job):\n    return job\n\n\n"
    "def tune(model, speed=1):\n    return model\n\n\n"
    "def build(model, a1=1, a2=2, a3=3, a4=4, a5=5, a6=6, a7=7, a8=8, a9=9, a10=10,\n"
    "          a11=11, a12=12, a13=13, a14=14, available_memory=0):\n    return model\n"
)


@pytest.fixture
def project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Project:
    made = make_project(
        tmp_path, make_tree, monkeypatch,
        folder="proj", name="widget", files={"widget/__init__.py": ""},
        provider=(ACME_01, ACME_02), replays=False,
    )  # fmt: skip
    jobs(made, "def work(model):\n    return acme.stop(model)\n")
    return made


def jobs(project: Project, text: str) -> None:
    project.write("widget/jobs.py", "import acme\n\n\n" + text)


def statuses(data: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(f["line"], f["kind"], f["status"]) for f in data["findings"]]


# --------------------------------------------------------------------------- the gate


def test_baseline_counts_occurrences_so_a_second_same_shape_break_is_new(project: Project) -> None:
    jobs(project, "def work(m):\n    acme.run(1, old=5)\n")
    assert project.run("--write-baseline", "base.json").exit_code == 1
    first = (project.root / "base.json").read_text(encoding="utf-8")
    assert '"count"' not in first  # one occurrence: the file as before counts existed
    assert project.run("--baseline-file", "base.json").exit_code == 0

    jobs(project, "def work(m):\n    acme.run(1, old=5)\n    acme.run(2, old=6)\n")
    result = project.run("--baseline-file", "base.json")
    assert result.exit_code == 1, result.output
    data = project.json("--baseline-file", "base.json")
    assert statuses(data) == [
        (5, "unexpected-keyword", "baselined"),
        (6, "unexpected-keyword", "new"),  # exactly the extra one
    ]
    assert "1 new error" in result.stdout and "1 recorded" in result.stdout

    assert project.run("--write-baseline", "base.json").exit_code == 1
    counted = (project.root / "base.json").read_bytes()
    assert json.loads(counted)["findings"][0]["count"] == 2
    project.run("--write-baseline", "base.json")
    assert (project.root / "base.json").read_bytes() == counted  # byte-stable
    assert project.run("--baseline-file", "base.json").exit_code == 0

    (project.root / "old.json").write_text(first, encoding="utf-8")  # no counts: count 1
    assert [s for _, _, s in statuses(project.json("--baseline-file", "old.json"))] == [
        "baselined",
        "new",
    ]


def test_a_file_that_does_not_parse_fails_the_gate_and_is_configurable(project: Project) -> None:
    project.write("widget/broken.py", "def f(:\n    pass\n")
    result = project.run()
    assert result.exit_code == 1, result.output
    assert "widget/broken.py:1:7: error[unparsable]" in result.stdout
    assert project.run("--ignore", "unparsable").exit_code == 0
    text = (project.root / "pyproject.toml").read_text(encoding="utf-8")
    project.write("pyproject.toml", text + '\n[tool.drift-audit.severity]\nunparsable = "info"\n')
    result = project.run()
    assert result.exit_code == 0, result.output
    assert "info[unparsable]" in result.stdout


def test_unused_suppressions_are_a_kind_off_by_default_and_selectable(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n    return acme.stop(m)  # drift-audit: ignore[unexpected-keyword]\n",
    )
    result = project.run()
    assert result.exit_code == 0, result.output
    assert "unused-suppression" not in result.stdout
    assert "unused suppression" in result.stderr  # still logged

    data = project.json("--select", "unused-suppression")
    [finding] = data["findings"]
    assert (finding["kind"], finding["severity"], finding["line"]) == (
        "unused-suppression",
        "warning",
        5,
    )
    assert finding["column"] == len("    return acme.stop(m)  ") + 1  # at the comment
    assert project.run("--select", "unused-suppression", "--fail-on", "warning").exit_code == 1
    assert project.json("--select", "ALL")["findings"][0]["kind"] == "unused-suppression"


def test_a_suppression_on_any_line_of_a_multi_line_call_works(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n"
        "    return acme.run(\n"
        "        m,\n"
        "        old=5,  # drift-audit: ignore[unexpected-keyword]\n"
        "    )\n",
    )
    result = project.run()
    assert result.exit_code == 0, result.output
    data = project.json("--select", "ALL")
    assert statuses(data) == [(5, "unexpected-keyword", "suppressed")]  # and none unused


# --------------------------------------------------------------------------- the text output


def test_each_finding_line_carries_its_severity_word(project: Project) -> None:
    jobs(project, "def work(m):\n    return acme.run(m, old=5)\n")
    result = project.run()
    assert "widget/jobs.py:5:12: error[unexpected-keyword] acme.run()" in result.stdout


def test_concise_is_one_line_per_finding_and_long_signatures_are_cut(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n    acme.run(m, old=5)\n    return acme.build(m, kv_cache_specs={})\n",
    )
    result = project.run("--format", "concise")
    lines = result.stdout.splitlines()
    assert [line.split(": ")[1].split(" ")[0] for line in lines[:2]] == [
        "error[unexpected-keyword]",
        "error[unexpected-keyword]",
    ]
    assert len(lines) == 3 and lines[2].startswith("2 new errors")
    assert "baseline:" not in result.stdout

    full = project.run().stdout
    assert "baseline: (model, old=None, verbose=False)\n" in full  # short: shown whole
    assert "baseline: (... 15 unchanged, kv_cache_specs=None)\n" in full
    assert "target:   (... 15 unchanged, available_memory=0)\n" in full


def test_preexisting_findings_are_counted_and_listed_only_when_asked(project: Project) -> None:
    jobs(project, "def work(m):\n    acme.stop(m, nope=1)\n    return acme.run(m, old=5)\n")
    result = project.run()
    assert "nope" not in result.stdout
    assert "1 preexisting (listed with --show-preexisting)" in result.stdout
    shown = project.run("--show-preexisting").stdout
    assert "acme.stop() no longer accepts keyword 'nope'" in shown
    assert "[preexisting]" in shown


def test_fix_hints_in_the_report_the_diff_and_the_fix_count(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n    acme.run(m, verbose=False)\n    acme.tune(m, rate=2)\n"
        "    return acme.run(m, verbose=True)\n",
    )
    result = project.run()
    assert "1 fixable with --fix (1 more with --unsafe-fixes)" in result.stdout
    assert "error[unexpected-keyword] [*] acme.run()" in result.stdout
    assert "(safe: --fix)" in result.stdout and "(unsafe: --fix --unsafe-fixes)" in result.stdout
    assert "fix: pass speed= instead of rate= (unsafe" in result.stdout  # a rename in its slot
    # verbose=True is not the old default: no fix would keep what the call does, a suggestion
    assert result.stdout.count("fix: drop verbose=") == 1
    assert (
        "suggestion: 'verbose' is gone: dropping it keeps what the call does only if its value "
        "is the baseline's default, False"
    ) in result.stdout

    diff = project.run("--diff")
    assert diff.stdout.startswith("--- a/widget/jobs.py")
    assert diff.stderr.rstrip().endswith("Would fix 1 finding (1 more with --unsafe-fixes)")

    before = len(project.json()["findings"])
    fixed = project.run("--fix", "--unsafe-fixes")
    after = len(project.json()["findings"])
    assert f"fixed {before - after} findings" in fixed.stderr, fixed.stderr
    assert "return acme.run(m, verbose=True)" in project.read("widget/jobs.py")


def test_the_code_frame_gutter_fits_the_widest_line_number(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n"  # line 4
        + "    pass\n" * 3
        + "    return acme.run(\n"  # line 8
        + "        m,\n"
        + "        old=5,\n"  # line 10
        + "    )\n",
    )
    out = project.run().stdout
    assert "\n     8 |     return acme.run(\n" in out
    assert "\n    10 |         old=5,\n" in out
    assert "\n    .. |\n" in out


def test_a_single_release_run_does_not_claim_where_the_break_started(project: Project) -> None:
    jobs(project, "def work(m):\n    return acme.run(m, old=5)\n")
    out = project.run().stdout
    assert "broken at 0.2 (the only release audited)" in out
    assert "first audited" not in out and "first broken" not in out
    [finding] = project.json()["findings"]
    assert finding["first_broken"] is None and finding["broken_in"] == ["0.2"]


# --------------------------------------------------------------------------- formats


def test_junit_has_a_testcase_per_finding_and_failures_for_new_errors(project: Project) -> None:
    jobs(project, "def work(m):\n    acme.stop(m, nope=1)\n    return acme.run(m, old=5)\n")
    result = project.run("--format", "junit", "-o", "junit.xml")
    assert result.exit_code == 1
    tree = ET.parse(project.root / "junit.xml")
    top = tree.getroot()
    assert (top.tag, top.get("tests"), top.get("failures")) == ("testsuites", "2", "1")
    cases = top.findall("./testsuite/testcase")
    assert [c.get("line") for c in cases] == ["5", "6"]
    assert cases[0].find("skipped") is not None  # preexisting
    failure = cases[1].find("failure")
    assert failure is not None and failure.get("type") == "unexpected-keyword"
    assert "old" in (failure.get("message") or "")

    jobs(project, "def work(m):\n    return acme.stop(m)\n")
    assert project.run("--format", "junit", "-o", "clean.xml").exit_code == 0
    clean = ET.parse(project.root / "clean.xml").getroot()
    assert [c.get("name") for c in clean.iter("testcase")] == ["no drift found"]


def test_sarif_and_json_fixes_carry_exactly_the_text_diff_writes(project: Project) -> None:
    jobs(
        project,
        "def work(m):\n"
        "    if m:\n"
        "        return acme.run(\n"
        "            m,\n"
        "            verbose=False,\n"
        "        )\n"
        "    return None\n",
    )
    original = (project.root / "widget/jobs.py").read_text(encoding="utf-8")
    sarif = json.loads(project.run("--format", "sarif").stdout)
    [fix] = sarif["runs"][0]["results"][0]["fixes"]
    [change] = fix["artifactChanges"][0]["replacements"]
    region = change["deletedRegion"]
    lines = original.splitlines(keepends=True)
    start = sum(map(len, lines[: region["startLine"] - 1])) + region["startColumn"] - 1
    end = sum(map(len, lines[: region["endLine"] - 1])) + region["endColumn"] - 1
    from_sarif = original[:start] + change["insertedContent"]["text"] + original[end:]

    [finding] = project.json()["findings"]
    [edit] = finding["fix"]["edits"]
    assert edit["text"] == change["insertedContent"]["text"]

    assert project.run("--fix").exit_code == 0
    assert (project.root / "widget/jobs.py").read_text(encoding="utf-8") == from_sarif
    assert "        return acme.run(\n            m,\n        )\n" in from_sarif


def test_json_fixed_entries_leave_out_a_line_the_baseline_file_does_not_know(
    project: Project,
) -> None:
    jobs(project, "def work(m):\n    return acme.run(m, old=5)\n")
    project.run("--write-baseline", "base.json")
    jobs(project, "def work(m):\n    return acme.stop(m)\n")
    [entry] = project.json("--baseline-file", "base.json")["fixed"]
    assert "line" not in entry and entry["kind"] == "unexpected-keyword"
