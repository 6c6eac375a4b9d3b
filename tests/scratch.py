"""A scratch consumer project audited through the CLI, shared by test_gate.py (the CI gate)
and test_project.py (a `src/` layout repository's day one).

The project holds a pyproject.toml (`[project]` and `[tool.drift-audit]`) and the consumer's
package; the provider `acme` is two local folders (0.1, the baseline; 0.2, the target) in the
project's hidden `.providers/` folder, named by `acme @ file://` references, so nothing
touches the network. `make_project` writes them, moves into the project folder and clears
the environment a run would read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from click.testing import CliRunner, Result

from auditor.cli import cli

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    import pytest

PROVIDERS = ".providers"  # inside the project, where a `file:` reference in its settings must be
ACME_01 = (
    "def run(model, retries=3):\n    return model\n\n\n"
    "def stop(job, reason=None):\n    return job\n\n\n"
    "def peek(job):\n    return job\n"
)
ACME_02 = (
    "def run(model, *, block_size, retries=3):\n    return model\n\n\n"
    "def stop(job):\n    return job\n"
)
CLIENT = """\
import acme


def work(model):
    acme.stop(model, reason="done")
    return acme.run(model)


def look(job):
    return acme.peek(job)
"""


class Project:
    """The scratch project: files to edit, and the CLI run from its folder."""

    def __init__(self, root: Path, cache: Path, table: tuple[str, ...] = ()) -> None:
        self.root = root
        self.cache = cache
        self.table = table

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def settings(self, *lines: str) -> None:
        self.write("pyproject.toml", "\n".join([*self.table, *lines]) + "\n")

    def run(self, *args: str) -> Result:
        argv = [*args, "--offline", "--cache-dir", str(self.cache)]
        return CliRunner().invoke(cli, argv, prog_name="drift-audit")

    def json(self, *args: str) -> dict[str, Any]:
        result = self.run(*args, "--format", "json")
        assert result.exit_code in (0, 1), result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data


def make_project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
    *,
    folder: str,
    name: str,
    files: Mapping[str, str],
    settings: tuple[str, ...] = (),
    provider: tuple[str, str] = (ACME_01, ACME_02),
    replays: bool = True,
) -> Project:
    """tmp_path/`folder` holding `files` and the settings of project `name` (against acme
    0.2, baseline acme 0.1, then `settings`), with the current folder there. `provider`:
    the text of acme/__init__.py at 0.1 and at 0.2, kept in the project's hidden folder
    `.providers/` (a `file:` reference in the settings must stay inside the project; the
    scan never reads a hidden folder); `replays=False`: every run audits
    (DRIFT_AUDIT_NO_REPLAY=1)."""
    root = make_tree(tmp_path / folder, files)
    providers = root / PROVIDERS
    make_tree(providers / "acme" / "0.1", {"acme/__init__.py": provider[0]})
    make_tree(providers / "acme" / "0.2", {"acme/__init__.py": provider[1]})
    table = (
        f'[project]\nname = "{name}"\nversion = "1.0"\n',
        "[tool.drift-audit]",
        f'against = ["acme @ {(providers / "acme" / "0.2").as_uri()}"]',
        f'baseline = "acme @ {(providers / "acme" / "0.1").as_uri()}"',
        *settings,
    )
    made = Project(root, tmp_path / "cache", table)
    made.settings()
    monkeypatch.chdir(root)
    for var in ("NO_COLOR", "FORCE_COLOR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    if not replays:
        monkeypatch.setenv("DRIFT_AUDIT_NO_REPLAY", "1")
    return made
