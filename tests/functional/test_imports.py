"""The command imports only what it uses (issue 35, speed on the everyday path).

Each run is a fresh interpreter under `python -X importtime`, whose stderr names every module
imported: `--version` loads nothing of a command, an audit nothing of the ecosystem run or
the cache command, `cache info` nothing of the audit. What a replay imports is
tests/functional/test_replay.py's. Speed itself is measured by `make bench`, never here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING

from tests.scratch import make_project

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    import pytest

Run = subprocess.CompletedProcess[str]

BREAK = "import acme\n\n\ndef work(model):\n    acme.stop(model, reason='done')\n"


def imported(*args: str, cwd: Path | None = None) -> tuple[Run, set[str]]:
    """The run of `python -X importtime -m auditor ARGS`, and the modules it imported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPROFILEIMPORTTIME"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "auditor", *args],
        capture_output=True, text=True, cwd=cwd, env=env,
    )  # fmt: skip
    names = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \| \s*(\S+)$", done.stderr, re.M))
    return done, names


def test_version_imports_no_command() -> None:
    done, names = imported("--version")
    assert done.returncode == 0 and re.fullmatch(r"drift-audit \S+\n", done.stdout), done
    ours = {n for n in names if n.split(".")[0] == "auditor"}
    assert ours == {"auditor", "auditor.cli", "auditor.collector"}, sorted(ours)
    assert not names & {"click", "dataclasses", "logging", "packaging"}, sorted(names)


def test_an_audit_imports_neither_the_ecosystem_run_nor_the_cache_command(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = make_project(
        tmp_path, make_tree, monkeypatch,
        folder="proj", name="widget", files={"widget/__init__.py": "", "widget/jobs.py": BREAK},
        replays=False,
    )  # fmt: skip
    done, names = imported(
        ".", "--format", "json", "--offline", "--cache-dir", str(project.cache), cwd=project.root
    )
    assert done.returncode == 1, done.stderr  # the break is found: the audit ran
    assert "auditor.pipeline" in names
    unused = {"auditor.cli.ecosystem", "auditor.cli.cache", "auditor.ecosystem",
              "auditor.engine", "auditor.ecostore", "jinja2", "auditor.reporters.html"}  # fmt: skip
    assert not names & unused, sorted(names & unused)


def test_cache_info_imports_nothing_of_the_audit(tmp_path: Path) -> None:
    done, names = imported("cache", "info", "--cache-dir", str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    assert not names & {"auditor.cli.audit", "auditor.pipeline", "auditor.cli.ecosystem"}
