"""Trust, round four: the pull request's own settings and baseline file cannot read or hide.

Item 3 of the fourth adversarial review (issue 34), on the common fixture of
tests/trust/acme.py (provider acme 0.1 `run(a, b=1, old=2)`, 0.2 `run(a, b=1, new=3)`,
consumer `acme.run(1, old=5)`), through the CLI. Each test of a hole fails on cf43118 (the
commit before the fixes) and passes now; the near misses (so named) check what must stay:

- 3: a baseline file's `count` is a number, never that many findings (a million-fold entry
  was a million Findings and a million sha256s), and it still counts occurrences.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from auditor.model import Finding
from tests.trust import acme, machine
from tests.trust.cli import invoke

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
