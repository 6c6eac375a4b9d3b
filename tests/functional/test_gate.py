"""The CI gate end to end: a scratch consumer project, audited through the CLI.

The project (tmp_path/proj) holds a `[tool.drift-audit]` table, the package `widget` and, as
the tests go on, a baseline file and suppressions. The provider `acme` is two local folders
(0.1, the baseline, and 0.2), named by `acme @ file://` direct references in the settings,
so nothing touches the network. Exit statuses: 0 clean, 1 new findings, 2 cannot run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.scratch import CLIENT, Project, make_project

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

REPO_ROOT = Path(__file__).resolve().parents[2]
JOBS = CLIENT


@pytest.fixture
def project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Project:
    return make_project(
        tmp_path,
        make_tree,
        monkeypatch,
        folder="proj",
        name="widget",
        files={"widget/__init__.py": "", "widget/jobs.py": JOBS},
        settings=('fail-on = "error"',),
    )


def kinds(data: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(f["line"], f["kind"], f["status"]) for f in data["findings"]]


NEW = [
    (5, "unexpected-keyword", "new"),
    (6, "missing-argument", "new"),
    (10, "removed-symbol", "new"),
]


# --------------------------------------------------------------------------- settings, exit


def test_no_consumer_audits_the_project_in_the_current_folder_with_its_settings(
    project: Project,
) -> None:
    result = project.run()
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("widget 1.0 against acme 0.2 (baseline 0.1)\n")
    assert "widget/jobs.py:5:5: error[unexpected-keyword] acme.stop()" in result.stdout
    assert kinds(project.json()) == NEW


@pytest.mark.parametrize(("fail_on", "code"), [("error", 1), ("warning", 1), ("never", 0)])
def test_fail_on_from_settings_and_the_command_line(
    project: Project, fail_on: str, code: int
) -> None:
    project.settings(f'fail-on = "{fail_on}"')  # a second key: TOML rejects it
    assert project.run().exit_code == 2
    project.settings()
    project.write("pyproject.toml", project.read("pyproject.toml").replace("error", fail_on))
    assert project.run().exit_code == code
    assert project.run("--fail-on", "error").exit_code == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('fail_on = "never"', "unknown key 'fail_on' in [tool.drift-audit]"),
        ("exclude = 3", "exclude in [tool.drift-audit]"),
        ('baseline-file = "pyproject.toml"', "is not valid JSON"),
    ],
)
def test_settings_that_cannot_work_exit_2_naming_the_problem(
    project: Project, line: str, message: str
) -> None:
    project.settings(line)
    result = project.run()
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr.splitlines()[0]


def test_a_bad_against_spec_exits_2(project: Project) -> None:
    result = project.run("--against", "acme=0.2")
    assert result.exit_code == 2
    assert result.stderr.startswith("drift-audit: error: ")


# --------------------------------------------------------------------------- baseline file


def test_baseline_file_accepts_known_drift_across_moved_lines_and_reports_fixed(
    project: Project,
) -> None:
    written = project.run("--write-baseline", ".drift-baseline.json", "--fail-on", "never")
    assert written.exit_code == 0
    project.settings('baseline-file = ".drift-baseline.json"')
    assert project.run().exit_code == 0
    assert kinds(project.json()) == [(line, kind, "baselined") for line, kind, _ in NEW]

    # unrelated edits move every line; a new break still fails the gate
    moved = "# a header comment\n\n" + JOBS + "\n\ndef more(model):\n    acme.stop(model, 1)\n"
    project.write("widget/jobs.py", moved)
    data = project.json()
    assert [(k, s) for _, k, s in kinds(data)] == [
        ("unexpected-keyword", "baselined"),
        ("missing-argument", "baselined"),
        ("removed-symbol", "baselined"),
        ("too-many-positional", "new"),
    ]
    assert project.run().exit_code == 1

    # fixing a recorded finding reports it as fixed; nothing fails
    project.write("widget/jobs.py", moved.replace('reason="done"', "").replace("model, 1", "model"))
    result = project.run()
    assert result.exit_code == 0, result.output
    assert "recorded findings fixed (1):\n" in result.stdout
    assert "    widget/jobs.py: unexpected-keyword acme.stop (reason)\n" in result.stdout
    assert result.stdout.splitlines()[-1].startswith(
        "0 new errors, 0 new warnings, 0 new info, 0 preexisting, 2 recorded, 0 suppressed, "
        "1 fixed ("
    )
    fixed = project.json()["fixed"]
    assert [(f["kind"], f["symbol"], f["parameter"], f["path"]) for f in fixed] == [
        ("unexpected-keyword", "acme.stop", "reason", "widget/jobs.py")
    ]


def test_the_first_write_of_the_baseline_file_the_settings_name_needs_no_file(
    project: Project,
) -> None:
    project.settings('baseline-file = ".drift-baseline.json"')
    first = project.run()  # a baseline file not there yet is empty, with a warning
    assert first.exit_code == 1
    assert "baseline file" in first.stderr and "does not exist yet" in first.stderr
    written = project.run("--write-baseline", ".drift-baseline.json", "--fail-on", "never")
    assert written.exit_code == 0, written.output
    assert project.run().exit_code == 0
    assert project.run("--write-baseline", "other.json").exit_code == 0  # reads, then writes


def test_baseline_file_option_wins_over_the_setting(project: Project) -> None:
    project.run("--write-baseline", "all.json", "--fail-on", "never")
    project.settings('baseline-file = "missing.json"')
    assert project.run("--baseline-file", "all.json").exit_code == 0


# --------------------------------------------------------------------------- suppressions


def test_suppressions_hide_findings_from_the_gate_and_unused_ones_are_reported(
    project: Project,
) -> None:
    source = (
        JOBS.replace('reason="done")', 'reason="done")  # drift-audit: ignore[unexpected-keyword]')
        .replace("acme.run(model)", "acme.run(model)  # drift-audit: ignore")
        .replace(
            "acme.peek(job)", "acme.peek(job)  # drift-audit: ignore[removed-symbol, deprecated]"
        )
        .replace("def look(job):", "def look(job):  # drift-audit: ignore")
    )
    project.write("widget/jobs.py", source)
    result = project.run()
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "drift-audit: warning: widget/jobs.py:9: unused suppression `# drift-audit: ignore`: "
        "no such finding on this line",
        "drift-audit: warning: widget/jobs.py:10: unused suppression "
        "`# drift-audit: ignore[deprecated]`: no such finding on this line",
        "drift-audit: note: settings from [tool.drift-audit] of pyproject.toml",
    ]
    data = project.json()
    assert [s for _, _, s in kinds(data)] == ["suppressed"] * 3
    assert data["unused_suppressions"] == [
        {"path": "widget/jobs.py", "line": 9, "kinds": []},
        {"path": "widget/jobs.py", "line": 10, "kinds": ["deprecated"]},
    ]
    assert project.run("-q").stderr == ""


# --------------------------------------------------------------------------- entry points


def test_reached_from_starts_at_console_scripts_and_the_public_api(project: Project) -> None:
    project.write("pyproject.toml", project.read("pyproject.toml").replace(
        "[tool.drift-audit]", '[project.scripts]\nwidget = "widget.cli:main"\n\n[tool.drift-audit]'
    ))  # fmt: skip
    project.write("widget/cli.py", "from widget.jobs import work\n\n\ndef main():\n    work(1)\n")
    project.write("widget/__init__.py", "from widget.jobs import look\n")
    chains = {f["line"]: f["reached_from"] for f in project.json()["findings"]}
    assert chains[5] == [["widget.cli.main", "widget.jobs.work"]]
    assert chains[10] == [["widget.jobs.look"]]


# --------------------------------------------------------------------------- real process


def test_a_real_process_in_the_project_folder(project: Project) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "--offline", "--cache-dir", str(project.cache)],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "PIP_CONFIG_FILE": "/dev/null"},
    )
    assert done.returncode == 1, done.stderr
    assert "widget/jobs.py:6:12: error[missing-argument] acme.run()" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("3 new errors")
    assert done.stderr == "drift-audit: note: settings from [tool.drift-audit] of pyproject.toml\n"


def test_the_pre_commit_hook_runs_the_whole_project() -> None:
    text = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert text.startswith("- id: drift-audit\n")
    for line in ("entry: drift-audit", "language: python", "pass_filenames: false"):
        assert f"\n  {line}\n" in text
