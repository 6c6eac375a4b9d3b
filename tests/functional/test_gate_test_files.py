"""Issue 24: findings in a consumer's test files are marked apart from library code.

A scratch project (tmp_path/proj) with `[tool.drift-audit]`, the package `widget` and the
provider `acme` as two local folders (0.1, the baseline, and 0.2: `run` lost its keyword
`old`), so nothing touches the network. A test file is one with a folder named `tests` or
`test` on its path (relative to the project root), or named `test_*.py`, `*_test.py` or
`conftest.py`. Each finding says so in JSON (`test`), the summary counts them, and
`gate-tests = false` (or `--no-gate-tests`) keeps them out of the exit status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.scratch import Project, make_project

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

ACME_01 = "def run(model, old=None):\n    return model\n"
ACME_02 = "def run(model):\n    return model\n"
BREAK = "import acme\n\n\ndef check(model):\n    return acme.run(model, old=5)\n"


@pytest.fixture
def project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Project:
    return make_project(
        tmp_path, make_tree, monkeypatch,
        folder="proj", name="widget", files={"widget/__init__.py": ""},
        provider=(ACME_01, ACME_02), replays=False,
    )  # fmt: skip


def flags_of(project: Project, *args: str) -> dict[str, bool]:
    return {f["path"]: f["test"] for f in project.json(*args)["findings"]}


TEST_FILES = [
    "widget/tests/test_jobs.py",
    "widget/tests/helpers.py",  # any file under a tests/ folder
    "widget/test/fixtures/data.py",  # or a test/ folder, however deep
    "widget/test_jobs.py",
    "widget/jobs_test.py",
    "widget/conftest.py",
]
LIBRARY_FILES = [
    "widget/jobs.py",
    "widget/testing.py",  # not a test file by name
    "widget/attest.py",
    "widget/test_data.pyi",  # a stub, not a module pytest collects
    "widget/latest/jobs.py",
    "widget/contests/jobs.py",  # a folder named like tests is not tests/
]


def test_each_finding_says_whether_it_is_in_a_test_file(project: Project) -> None:
    """The flag follows the documented rule on the path relative to the project root: the
    folders above the project (pytest's tmp_path has `test_...` folders) do not count."""
    for rel in TEST_FILES + LIBRARY_FILES:
        parts = rel.split("/")
        for depth in range(2, len(parts)):  # each folder a package, so the scan reads it
            project.write("/".join([*parts[:depth], "__init__.py"]), "")
        project.write(rel, BREAK)
    flags = flags_of(project)
    assert flags == dict.fromkeys(TEST_FILES, True) | dict.fromkeys(LIBRARY_FILES, False)


def test_the_summary_counts_the_new_findings_in_test_files(project: Project) -> None:
    project.write("widget/jobs.py", BREAK)
    alone = project.run()
    assert alone.exit_code == 1
    assert "in test files" not in alone.stdout  # none: nothing said

    project.write("widget/tests/__init__.py", "")
    project.write("widget/tests/test_jobs.py", BREAK)
    project.write("widget/conftest.py", BREAK)
    for fmt in ("text", "concise"):
        result = project.run("--format", fmt)
        assert result.exit_code == 1
        summary = result.stdout.splitlines()[-1]
        assert summary.startswith("3 new errors, 0 new warnings, 0 new info (2 in test files), ")


def test_gate_tests_false_keeps_test_files_out_of_the_exit_status(project: Project) -> None:
    project.write("widget/tests/__init__.py", "")
    project.write("widget/tests/test_jobs.py", BREAK)
    project.settings("gate-tests = false")
    result = project.run()
    assert result.exit_code == 0, result.output
    assert "widget/tests/test_jobs.py:5:12: error[unexpected-keyword]" in result.stdout  # listed
    assert (
        "drift-audit: note: 1 new finding in test files left out of the exit status "
        "(gate-tests off)" in result.stderr
    )
    assert project.run("--gate-tests").exit_code == 1  # the command line wins

    project.write("widget/jobs.py", BREAK)  # library code still fails the run
    assert project.run().exit_code == 1


def test_no_gate_tests_on_the_command_line_and_the_default(project: Project) -> None:
    project.write("widget/test_jobs.py", BREAK)
    default = project.run()
    assert default.exit_code == 1  # by default a test file fails the run like any other
    assert "left out of the exit status" not in default.stderr
    assert project.run("--no-gate-tests").exit_code == 0
    project.settings("gate-tests = true")
    assert project.run().exit_code == 1
    assert project.run("--no-gate-tests").exit_code == 0


def test_gate_tests_must_be_a_boolean(project: Project) -> None:
    project.settings('gate-tests = "no"')
    result = project.run()
    assert result.exit_code == 2
    assert result.stderr.startswith("drift-audit: error: gate-tests in [tool.drift-audit] of ")
    assert "must be true or false, not a string" in result.stderr
    project.settings("gate_tests = false")
    assert "did you mean 'gate-tests'?" in project.run().stderr
