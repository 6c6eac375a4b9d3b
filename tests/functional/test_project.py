"""A real repository's day one, end to end through the CLI: a `src/` layout project.

tmp_path/repo holds pyproject.toml (`[project]` and `[tool.drift-audit]`), the package in
`src/acmeapp/`, and, as tests go on, a baseline file and suppressions. The provider `acme` is
two local folders (0.1, the baseline; 0.2, the target) named by `acme @ file://` references,
so nothing touches the network. What is checked: paths in every format are relative to the
project root (`src/acmeapp/client.py`, where the file is), `--exclude` and suppressions use
them, fingerprints stay those of import-root-relative paths (an older baseline still
matches), `--explain`, `select`/`ignore`/severity overrides, `--statistics`, `--exit-zero`,
the byte-stable baseline file, the upward settings search and `--config`, the summary on
stderr when the report goes to a file, and the gitlab format.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from tests.scratch import CLIENT, PROVIDERS, make_project
from tests.scratch import Project as Repo

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

LEGACY = "import acme\n\n\ndef old(job):\n    return acme.stop(job, reason='legacy')\n"
CLIENT_PATH = "src/acmeapp/client.py"


@pytest.fixture
def repo(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Repo:
    files = {
        "src/acmeapp/__init__.py": "",
        "src/acmeapp/client.py": CLIENT,
        "src/acmeapp/legacy.py": LEGACY,
    }
    return make_project(
        tmp_path, make_tree, monkeypatch, folder="repo", name="acmeapp", files=files
    )


def sites(data: dict[str, Any]) -> list[tuple[str, int, str, str]]:
    return [(f["path"], f["line"], f["kind"], f["status"]) for f in data["findings"]]


ALL_NEW = [
    (CLIENT_PATH, 5, "unexpected-keyword", "new"),
    (CLIENT_PATH, 6, "missing-argument", "new"),
    (CLIENT_PATH, 10, "removed-symbol", "new"),
    ("src/acmeapp/legacy.py", 5, "unexpected-keyword", "new"),
]


def test_the_fixture_breaks_as_the_interpreter_says(repo: Repo, tmp_path: Path) -> None:
    """Each reported line fails when run against acme 0.2 and works against 0.1."""
    probe = (
        "import sys; sys.path[:0] = [sys.argv[1], 'src']\n"
        "from acmeapp import client\n"
        "for call in (lambda: client.acme.stop(1, reason='done'), lambda: client.acme.run(1),"
        " lambda: client.look(1)):\n"
        "    try:\n        call(); print('ok')\n"
        "    except (TypeError, AttributeError) as e:\n        print(type(e).__name__)\n"
    )
    outcome = {}
    for version in ("0.1", "0.2"):
        done = subprocess.run(
            [sys.executable, "-c", probe, str(repo.root / PROVIDERS / "acme" / version)],
            cwd=repo.root,
            capture_output=True,
            text=True,
            check=True,
        )
        outcome[version] = done.stdout.split()
    assert outcome == {
        "0.1": ["ok", "ok", "ok"],
        "0.2": ["TypeError", "TypeError", "AttributeError"],
    }
    assert [s[1:3] for s in sites(repo.json())[:3]] == [
        (5, "unexpected-keyword"),
        (6, "missing-argument"),
        (10, "removed-symbol"),
    ]


# --------------------------------------------------------------------------- paths


def test_every_format_names_the_file_where_it_is_in_the_repository(repo: Repo) -> None:
    data = repo.json()
    assert sites(data) == ALL_NEW
    assert {f["module_path"] for f in data["findings"]} == {
        "acmeapp/client.py",
        "acmeapp/legacy.py",
    }
    github = repo.run("--format", "github").stdout
    assert f"::error file={CLIENT_PATH},line=5," in github
    sarif = json.loads(repo.run("--format", "sarif").stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert uris == {CLIENT_PATH, "src/acmeapp/legacy.py"}
    gitlab = json.loads(repo.run("--format", "gitlab").stdout)
    assert {e["location"]["path"] for e in gitlab} == {CLIENT_PATH, "src/acmeapp/legacy.py"}
    assert len({e["fingerprint"] for e in gitlab}) == len(gitlab) == 4
    assert f"{CLIENT_PATH}:5:5: error[unexpected-keyword]" in repo.run().stdout
    for finding in data["findings"]:
        assert (repo.root / finding["path"]).is_file()


def test_exclude_and_suppressions_use_project_paths(repo: Repo) -> None:
    assert sites(repo.json("--exclude", "src/acmeapp/legacy.py")) == ALL_NEW[:3]
    repo.settings('exclude = ["src/acmeapp/legacy.py"]')
    assert sites(repo.json()) == ALL_NEW[:3]
    repo.write(
        "src/acmeapp/client.py",
        CLIENT.replace("acme.run(model)", "acme.run(model)  # drift-audit: ignore").replace(
            "def look(job):", "def look(job):  # drift-audit: ignore"
        ),
    )
    result = repo.run("--format", "json")
    assert result.stderr.splitlines() == [
        f"drift-audit: warning: {CLIENT_PATH}:9: unused suppression `# drift-audit: ignore`: "
        "no such finding on this line",
        "drift-audit: note: settings from [tool.drift-audit] of pyproject.toml",
    ]
    data = json.loads(result.stdout)
    assert (CLIENT_PATH, 6, "missing-argument", "suppressed") in sites(data)
    assert data["unused_suppressions"] == [{"path": CLIENT_PATH, "line": 9, "kinds": []}]


def test_a_baseline_written_with_import_root_paths_still_matches(repo: Repo) -> None:
    """Fingerprints hash the import-root-relative path, as before paths became
    project-relative: a JSON report written then (paths `acmeapp/...`) still baselines."""
    data = repo.json()
    for finding in data["findings"]:
        finding["path"] = finding.pop("module_path")
    repo.write("old.json", json.dumps(data))
    assert repo.run("--baseline-file", "old.json").exit_code == 0
    statuses = {f["status"] for f in repo.json("--baseline-file", "old.json")["findings"]}
    assert statuses == {"baselined"}


# --------------------------------------------------------------------------- the baseline file


def test_the_baseline_file_holds_fingerprints_only_and_rewrites_byte_identical(
    repo: Repo,
) -> None:
    assert repo.run("--write-baseline", ".drift-baseline.json", "--exit-zero").exit_code == 0
    first = (repo.root / ".drift-baseline.json").read_bytes()
    document = json.loads(first)
    assert document["format"] == "drift-audit-baseline"
    entry = document["findings"][0]
    assert list(entry) == [
        "fingerprint", "kind", "path", "module_path", "scope", "symbol", "parameter", "reason",
    ]  # fmt: skip
    assert entry["path"] == CLIENT_PATH and entry["module_path"] == "acmeapp/client.py"
    text = first.decode()
    for absent in (str(repo.root), "seconds", '"status"', '"line"', "0.2", "return acme"):
        assert absent not in text
    keys = [(e["path"], e["scope"], e["kind"]) for e in document["findings"]]
    assert keys == sorted(keys)
    # unrelated edits move every line: the rewrite is the same file
    repo.write("src/acmeapp/client.py", "# a comment\n\n" + CLIENT)
    assert repo.run("--write-baseline", ".drift-baseline.json", "--exit-zero").exit_code == 0
    assert (repo.root / ".drift-baseline.json").read_bytes() == first
    repo.settings('baseline-file = ".drift-baseline.json"')
    result = repo.run()
    assert result.exit_code == 0, result.output
    assert "unexpected-keyword" not in result.stdout  # counted, not listed
    assert result.stdout.splitlines()[-1].startswith(
        "0 new errors, 0 new warnings, 0 new info, 0 preexisting, 4 recorded, 0 suppressed"
    )
    shown = repo.run("--show-baselined").stdout
    assert f"{CLIENT_PATH}:7:5: error[unexpected-keyword]" in shown and "[recorded]" in shown


def test_a_configured_baseline_file_not_there_yet_is_empty_with_a_warning(repo: Repo) -> None:
    repo.settings('baseline-file = ".drift-baseline.json"')
    result = repo.run()
    assert result.exit_code == 1
    assert (
        result.stderr.startswith("drift-audit: warning: baseline file ")
        and "does not exist yet" in result.stderr
    )


# --------------------------------------------------------------------------- kinds


def test_explain_prints_the_shipped_documentation_of_a_kind(repo: Repo) -> None:
    result = CliRunner().invoke(cli, ["--explain", "unexpected-keyword"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:2] == ["unexpected-keyword", "=================="]
    for heading in ("What it finds:", "Why it breaks at run time:", "Example:", "Fix:"):
        assert heading in lines
    assert "```" not in result.stdout and "http" not in result.stdout
    unknown = CliRunner().invoke(cli, ["--explain", "unexpected-keywords"])
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("drift-audit: error: unknown kind 'unexpected-keywords'")


def test_select_ignore_and_severity_overrides(repo: Repo) -> None:
    picked = repo.json("--select", "unexpected-keyword,removed-symbol")
    assert [s[2] for s in sites(picked)] == [
        "unexpected-keyword",
        "removed-symbol",
        "unexpected-keyword",
    ]
    assert len(picked["matrix"]["rows"]) == 3
    assert [s[2] for s in sites(repo.json("--ignore", "unexpected-keyword"))] == [
        "missing-argument",
        "removed-symbol",
    ]
    repo.settings('select = ["ALL"]', 'ignore = ["removed-symbol", "unexpected-keyword"]')
    assert [s[2] for s in sites(repo.json())] == ["missing-argument"]
    repo.settings("[tool.drift-audit.severity]", 'missing-argument = "warning"')
    result = repo.run("--ignore", "removed-symbol,unexpected-keyword")
    assert result.exit_code == 0, result.output  # the only finding is a warning now
    assert (
        repo.run("--ignore", "removed-symbol,unexpected-keyword", "--fail-on", "warning").exit_code
        == 1
    )
    level = repo.json()["findings"][1]
    assert (level["kind"], level["severity"]) == ("missing-argument", "warning")
    bad = repo.run("--select", "unexpected-kwd")
    assert bad.exit_code == 2
    assert "did you mean 'unexpected-keyword'" in bad.stderr
    repo.settings("[tool.drift-audit.severity]", 'missing-argument = "fatal"')
    assert repo.run().exit_code == 2


def test_statistics_and_exit_zero(repo: Repo, tmp_path: Path) -> None:
    result = repo.run("--statistics", "-o", str(tmp_path / "r.sarif"), "--format", "sarif")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "count  kind                severity          new  preexisting     recorded   suppressed",
        "    2  unexpected-keyword  error               2            0            0            0",
        "    1  removed-symbol      error               1            0            0            0",
        "    1  missing-argument    error               1            0            0            0",
        "    4  total",
    ]
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    settings, summary = result.stderr.splitlines()
    assert settings == "drift-audit: note: settings from [tool.drift-audit] of pyproject.toml"
    assert summary.startswith("drift-audit: 4 new errors, 0 new warnings")
    assert result.stderr.rstrip().endswith(f"report in {tmp_path / 'r.sarif'}")
    assert repo.run("--exit-zero").exit_code == 0


# --------------------------------------------------------------------------- settings


def test_settings_are_found_upward_and_paths_stay_project_relative(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo.root / "src" / "acmeapp")
    repo.settings('exclude = ["src/acmeapp/legacy.py"]', 'format = "json"')
    result = repo.run()  # CONSUMER `.` is the package folder; the settings are two levels up
    assert result.exit_code == 1, result.output
    assert sites(json.loads(result.stdout)) == ALL_NEW[:3]


def test_config_option_reads_another_file(repo: Repo, tmp_path: Path) -> None:
    (tmp_path / "ci.toml").write_text('format = "github"\nselect = ["removed-symbol"]\n')
    result = repo.run("--config", str(tmp_path / "ci.toml"))
    assert result.exit_code == 2  # no `against`: the pyproject.toml table is not read
    target = (repo.root / PROVIDERS / "acme" / "0.2").as_uri()
    result = repo.run("--config", str(tmp_path / "ci.toml"), "--against", f"acme @ {target}")
    notice, error = result.stdout.splitlines()  # what select left out, then the one finding
    assert notice.startswith("::warning title=") and "(--config on the command line)" in notice
    assert error.startswith("::error file=src/acmeapp/client.py,line=10,")
    missing = repo.run("--config", str(tmp_path / "nope.toml"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr
