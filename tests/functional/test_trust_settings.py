"""Trust, round four: the pull request's own settings and baseline file cannot read or hide.

Items 3, 4, 5 and 8 of the fourth adversarial review (issue 34), on the common fixture of
tests/trust/acme.py (provider acme 0.1 `run(a, b=1, old=2)`, 0.2 `run(a, b=1, new=3)`,
consumer `acme.run(1, old=5)`), through the CLI. Each test of a hole fails on cf43118 (the
commit before the fixes) and passes now; the near misses (so named) check what must stay:

- 3: a baseline file's `count` is a number, never that many findings (a million-fold entry
  was a million Findings and a million sha256s), and it still counts occurrences.
- 4: the files `exclude` keeps out of the scan are named in every format.
- 5: a `file:` reference in `against`/`baseline` from the settings stays inside the project.
- 8: a module named like a test that library code imports is no test file; what
  `gate-tests = false` lets pass is marked so in every format (SARIF, JUnit: not a failure).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

from auditor.model import Finding
from auditor.reporters import json_report
from tests import sarif_schema
from tests.trust import acme, machine
from tests.trust.cli import error_line, invoke

if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit", "markdown", "html")
TABLE = '[project]\nname = "widget"\nversion = "1"\n\n[tool.drift-audit]\n'
IN_CONFIG = "in [tool.drift-audit] of pyproject.toml"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)
    monkeypatch.setenv("DRIFT_AUDIT_NO_REPLAY", "1")  # every run audits


def _project(tmp_path: Path, files: dict[str, str], table: str = "") -> Path:
    """tmp_path/project: pyproject.toml with `table` under [tool.drift-audit], and `files`
    (widget/__init__.py is the fixture's consumer unless `files` says otherwise)."""
    return acme.consumer(tmp_path / "project", extra={"pyproject.toml": TABLE + table, **files})


def _run(project: Path, tmp_path: Path, *args: str) -> Result:
    return invoke(
        str(project), *acme.folder_args(tmp_path), "--cache-dir", str(tmp_path / "cache"), *args
    )


def _plain(fmt: str, out: str) -> str:
    """The report's text as a reader sees it (Markdown's escapes undone)."""
    return out.replace("\\", "") if fmt == "markdown" else out


# --------------------------------------------------------------------------- 3: counts


def _baseline(tmp_path: Path, entries: list[dict[str, object]]) -> Path:
    path = tmp_path / "project" / "base.json"
    document = {"format": "drift-audit-baseline", "version": 1, "findings": entries}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _entry(path: str = "widget/__init__.py", count: int | None = None) -> dict[str, object]:
    """An entry for the fixture's break (in widget.go), or for one in another file."""
    entry: dict[str, object] = {"kind": "unexpected-keyword", "path": path, "scope": "widget.go"}
    entry |= {"symbol": "acme.run", "parameter": "old"}
    return entry | ({"count": count} if count is not None else {})


def test_a_baseline_count_is_a_number_never_that_many_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 3: each entry was expanded into `count` Findings, each fingerprinted: four
    200-byte entries at the largest count (1,000,000) were 4 million sha256s (10 s, 95 MB),
    linear in the counts a pull request's own file states. Now the work is per entry: the
    fingerprints taken stay a handful, and the counts still accept what they say."""
    project = _project(tmp_path, {})
    entries = [_entry(count=1_000_000)] + [
        _entry(f"widget/x{i}.py", count=1_000_000) for i in range(3)
    ]
    base = _baseline(tmp_path, entries)
    real = Finding.fingerprint
    taken = []

    def counted(finding: Finding) -> str:
        taken.append(1)
        return real.fget(finding)  # type: ignore[no-any-return, misc]

    monkeypatch.setattr(Finding, "fingerprint", property(counted))
    result = _run(project, tmp_path, "--baseline-file", str(base), "--format", "json")
    assert result.exit_code == 0, result.output  # the one break is accepted
    data = json.loads(result.stdout)
    assert [f["status"] for f in data["findings"]] == ["baselined"]
    assert sorted(f["path"] for f in data["fixed"]) == [f"widget/x{i}.py" for i in range(3)]
    assert len(taken) < 100, len(taken)


TWO_BREAKS = "import acme\n\n\ndef go():\n    acme.run(1, old=5)\n    return acme.run(2, old=6)\n"


@pytest.mark.parametrize(
    ("entries", "statuses", "code"),
    [
        ([_entry()], ["baselined", "new"], 1),  # a second break of the same shape is new
        ([_entry(count=2)], ["baselined", "baselined"], 0),
        ([_entry(), _entry()], ["baselined", "baselined"], 0),  # two entries: counts add up
        ([_entry(count=1_000_000)], ["baselined", "baselined"], 0),
    ],
    ids=["count 1", "count 2", "two entries", "count 1000000"],
)
def test_a_baseline_file_still_counts_occurrences_per_fingerprint(
    tmp_path: Path, entries: list[dict[str, object]], statuses: list[str], code: int
) -> None:
    """Item 3, the near miss (the contract kept): the file counts occurrences, so a second
    break of the same fingerprint is new unless the file records two."""
    project = _project(tmp_path, {"widget/__init__.py": TWO_BREAKS})
    base = _baseline(tmp_path, entries)
    result = _run(project, tmp_path, "--baseline-file", str(base), "--format", "json")
    assert result.exit_code == code, result.output
    assert [f["status"] for f in json.loads(result.stdout)["findings"]] == statuses


# --------------------------------------------------------------------------- 4: exclude


BROKEN = {
    "widget/__init__.py": "import acme\n\n\ndef ok():\n    return acme.run(1, b=2)\n",
    "widget/core.py": acme.CONSUMER,
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_files_the_projects_own_exclude_leaves_out_are_named_in_every_format(
    tmp_path: Path, fmt: str
) -> None:
    """Item 4: the pull request's `exclude = ["widget/core.py"]` dropped the file holding its
    break: "no drift found", exit 0, `files_scanned: 1`, `left_out: []`, and no format said
    so. The gate may still pass (the project's settings may narrow it), but visibly: every
    format names the file and the setting that left it out."""
    project = _project(tmp_path, BROKEN, 'exclude = ["widget/core.py"]\n')
    result = _run(project, tmp_path, "--format", fmt)
    assert result.exit_code == 0, result.output
    out = _plain(fmt, result.stdout)
    assert "widget/core.py" in out, out
    if fmt != "json":  # JSON says it in fields
        assert f"1 file left out of the scan by exclude {IN_CONFIG}" in out, out
    if fmt == "json":
        assert json.loads(result.stdout)["excluded"] == [
            {
                "source": "config",
                "file": "pyproject.toml",
                "patterns": ["widget/core.py"],
                "paths": ["widget/core.py"],
            }
        ]
        assert json_report.load_report(result.stdout).excluded[0].paths == ("widget/core.py",)
    if fmt == "sarif":
        run = json.loads(result.stdout)["runs"][0]
        notes = run["invocations"][0]["toolExecutionNotifications"]
        assert [(n["level"], n["descriptor"]["id"]) for n in notes] == [
            ("warning", "excluded-files")
        ]
        assert run["properties"]["excluded"][0]["paths"] == ["widget/core.py"]


def test_without_exclude_nothing_is_said_to_be_left_out(tmp_path: Path) -> None:
    """Item 4, the near miss: no exclude, the break is found, and nothing is named."""
    project = _project(tmp_path, BROKEN)
    result = _run(project, tmp_path, "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["excluded"] == [] and [f["path"] for f in data["findings"]] == ["widget/core.py"]
    assert "left out" not in _run(project, tmp_path).stdout


def test_files_excluded_on_the_command_line_are_named_as_such(tmp_path: Path) -> None:
    """Item 4: --exclude (the CI job's own) is named as the command line's; a folder of
    many files is counted, the first five named in a line, every one in JSON."""
    legacy = {f"widget/legacy/m{i}.py": acme.CONSUMER for i in range(7)}
    project = _project(tmp_path, {**BROKEN, "widget/legacy/__init__.py": "", **legacy})
    result = _run(project, tmp_path, "--exclude", "widget/legacy/**")
    assert result.exit_code == 1  # widget/core.py still breaks
    summary = result.stdout.splitlines()[-1]
    assert "8 files left out of the scan by --exclude on the command line: " in summary
    assert "widget/legacy/m3.py and 3 more" in summary, summary
    again = _run(project, tmp_path, "--exclude", "widget/legacy/**", "--format", "json")
    [entry] = json.loads(again.stdout)["excluded"]
    assert (entry["source"], entry["file"], len(entry["paths"])) == ("command-line", None, 8)


# --------------------------------------------------------------------------- 5: references


SECRET = "ghp_SECRETTOKEN1234567890"


def _elsewhere(tmp_path: Path) -> Path:
    """A provider-shaped folder outside the project, its default a secret."""
    folder = tmp_path / "elsewhere"
    (folder / "acme").mkdir(parents=True)
    (folder / "acme" / "__init__.py").write_text(f'def run(a, b=1, old=2, token="{SECRET}"): ...\n')
    return folder


OUTSIDE = {
    "absolute baseline": ("baseline", "acme @ {uri}"),
    "absolute against": ("against", "acme @ {uri}"),
    "relative, up": ("baseline", "acme @ file:../elsewhere"),
    "relative, through a folder": ("baseline", "acme @ file:widget/../../elsewhere"),
    "a link inside to outside": ("baseline", "acme @ file:vendor"),
    "localhost": ("against", "acme @ file://localhost{path}"),
}


@pytest.mark.parametrize("case", OUTSIDE.values(), ids=OUTSIDE.keys())
def test_a_reference_in_the_settings_never_reads_outside_the_project(
    tmp_path: Path, case: tuple[str, str]
) -> None:
    """Item 5: `baseline = ["acme @ file:///anywhere"]` in the pull request's pyproject.toml
    read that folder as the provider and printed its secret default in the report (and let
    the pull request choose a fake provider). A `file:` reference from the settings is
    resolved against the project (links and `..` followed) and must stay inside it, as
    `output` and `baseline-file` must: one line naming the setting, exit 2."""
    key, template = case
    folder = _elsewhere(tmp_path)
    spec = template.format(uri=folder.as_uri(), path=folder)
    project = _project(tmp_path, {}, f"{key} = [{json.dumps(spec)}]\n")
    (project / "vendor").symlink_to(folder, target_is_directory=True)
    args = [] if key == "against" else ["--against", acme.folder_args(tmp_path)[1]]
    result = invoke(str(project), *args, "--cache-dir", str(tmp_path / "cache"), "--format", "json")
    line = error_line(result)
    assert line.startswith(f"{key} in [tool.drift-audit] of {project / 'pyproject.toml'}: ")
    assert f"outside {project.resolve()}" in line, line
    assert SECRET not in result.stdout + result.stderr


def test_a_reference_outside_the_project_may_come_from_the_command_line(tmp_path: Path) -> None:
    """Item 5, the near miss: the command line is trusted; it names what it likes."""
    folder = _elsewhere(tmp_path)
    project = _project(tmp_path, {})
    target = acme.folder_args(tmp_path)[1]
    result = invoke(
        str(project), "--against", target, "--baseline", f"acme @ {folder.as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--show-preexisting",
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # the break, against the baseline named
    assert SECRET in result.stdout  # what that folder holds, as asked


def test_a_reference_inside_the_project_is_relative_to_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 5: a relative `file:` reference in the settings means the project's folder,
    wherever drift-audit runs from (it meant the current folder), and a link that stays
    inside the project is followed."""
    old, _ = acme.provider_folders(tmp_path / "project" / ".providers")
    table = 'against = ["acme @ file:.providers/acme-0.2"]\nbaseline = "acme @ file:current"\n'
    project = _project(tmp_path, {}, table)
    (project / "current").symlink_to(old, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    result = invoke(str(project), "--cache-dir", str(tmp_path / "cache"), "--format", "json")
    assert result.exit_code == 1, result.output
    assert [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [acme.BREAK]


# --------------------------------------------------------------------------- 8: gate-tests


IMPORTED = {
    "widget/__init__.py": "from widget.core_test import go\n",
    "widget/core_test.py": "from widget.helpers_test import run\n\n\ndef go():\n    return run()\n",
    "widget/helpers_test.py": "import acme\n\n\ndef run():\n    return acme.run(1, old=5)\n",
}


def test_a_module_named_like_a_test_that_the_package_imports_is_no_test_file(
    tmp_path: Path,
) -> None:
    """Item 8: the package imports widget.core_test, which imports widget.helpers_test (the
    break): production code runs both, as Python shows, yet `gate-tests = false` from the
    pull request passed the gate. A file library code imports, or one it imports in turn,
    is no test file: the finding is `test: false` and fails the run."""
    _, new = acme.provider_folders(tmp_path)  # as folder_args makes them
    project = _project(tmp_path, IMPORTED, "gate-tests = false\n")
    done = subprocess.run(
        [sys.executable, "-c", "import widget; widget.go()"],
        env={"PYTHONPATH": f"{project}{os.pathsep}{new}", "PATH": os.environ["PATH"]},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "TypeError" in done.stderr  # production code breaks at 0.2
    result = _run(project, tmp_path, "--format", "json")
    assert result.exit_code == 1, result.output
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["path"], finding["test"]) == ("widget/helpers_test.py", False)
    assert json_report.load_report(result.stdout).findings[0].in_test_file is False


TESTS_ONLY = {
    "widget/__init__.py": "import acme\n",
    "widget/tests/__init__.py": "",
    "widget/tests/test_go.py": "from widget.tests.helpers_test import go\n",
    "widget/tests/helpers_test.py": acme.CONSUMER,
}


def test_a_test_file_only_tests_import_is_still_a_test_file(tmp_path: Path) -> None:
    """Item 8, the near miss: what only test files import stays a test file."""
    project = _project(tmp_path, TESTS_ONLY, "gate-tests = false\n")
    result = _run(project, tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["path"], finding["test"]) == ("widget/tests/helpers_test.py", True)


def _marked(fmt: str, out: str) -> None:
    """The one finding of `out` does not read as failing the gate, in `fmt`'s own terms."""
    if fmt == "sarif":
        schema = sarif_schema.local_schema()
        assert schema is None or sarif_schema.errors(schema, json.loads(out)) == []
        [result] = json.loads(out)["runs"][0]["results"]
        [suppression] = result["suppressions"]
        assert (suppression["kind"], suppression["status"]) == ("external", "accepted")
        assert f"gate-tests = false {IN_CONFIG}" in suppression["justification"]
    elif fmt == "junit":
        root = ET.fromstring(out)
        assert root.get("failures") == "0" and not list(root.iter("failure"))
        case = next(c for c in root.iter("testcase") if c.get("file") is not None)
        skipped = case.find("skipped")
        assert skipped is not None and "gate-tests = false" in (skipped.get("message") or "")
    elif fmt == "github":
        assert "::error" not in out
    elif fmt == "json":
        data = json.loads(out)
        assert data["ungated"] == [
            {"setting": "gate-tests", "source": "config", "file": "pyproject.toml", "passed": 1}
        ]
        assert json_report.load_report(out).ungated[0].setting == "gate-tests"
    elif fmt in ("text", "concise", "markdown", "gitlab", "html"):
        assert "not gated: " in out


@pytest.mark.parametrize("fmt", FORMATS)
def test_what_gate_tests_lets_pass_is_named_and_marked_in_every_format(
    tmp_path: Path, fmt: str
) -> None:
    """Item 8: with `gate-tests = false` the run passed, yet SARIF said `error` and JUnit
    `<failure>`, and no format named the setting. Each now names it and where it was set,
    and marks the finding it lets pass so, the way the exit status counts it."""
    project = _project(tmp_path, TESTS_ONLY, "gate-tests = false\n")
    result = _run(project, tmp_path, "--format", fmt)
    assert result.exit_code == 0, result.output
    said = f"1 new finding in test files left out of the gate by gate-tests = false {IN_CONFIG}"
    assert fmt == "json" or said in _plain(fmt, result.stdout), result.stdout
    _marked(fmt, result.stdout)


def test_no_gate_tests_on_the_command_line_is_named_as_such(tmp_path: Path) -> None:
    """Item 8: the CI job's own --no-gate-tests is the command line's, and is named so; the
    default gates test files, and says nothing of it."""
    project = _project(tmp_path, TESTS_ONLY)
    result = _run(project, tmp_path, "--no-gate-tests")
    assert result.exit_code == 0, result.output
    assert "left out of the gate by --no-gate-tests on the command line" in result.stdout
    default = _run(project, tmp_path, "--format", "sarif")
    assert default.exit_code == 1
    [finding] = json.loads(default.stdout)["runs"][0]["results"]
    assert finding["level"] == "error" and "suppressions" not in finding
    assert "not gated" not in _run(project, tmp_path).stdout
