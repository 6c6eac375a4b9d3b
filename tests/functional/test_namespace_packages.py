"""A namespace package's folder is not the whole of it: other distributions add portions.

matplotlib ships `mpl_toolkits/` with no `__init__.py`; basemap installs
`mpl_toolkits/basemap/` into it. A name the provider's folder does not hold is therefore not
"removed" by itself (the world harness's arm-pyart audit also crashed on such a module: griffe
raises BuiltinModuleError for the file of a module that has none). The fixture's provider acme
ships `acme/` and the namespace `acme_kit/` (0.1: `grid` and `old`; 0.2: `grid` only); another
distribution adds `acme_kit/basemap/`. The consumer runs under Python against 0.2 plus that
portion, and the audit must say what Python did: `old` is gone (new), `basemap` and `grid` work.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from typing import TYPE_CHECKING

from click.testing import CliRunner

from auditor.cli import cli
from tests.trust.archives import wheel

if TYPE_CHECKING:
    from pathlib import Path

KIT = {
    "acme/__init__.py": "def run(a):\n    return a\n",
    "acme_kit/grid/__init__.py": "def cell(x):\n    return x\n",
}
OLD = {**KIT, "acme_kit/old/__init__.py": "def gone():\n    return 0\n"}
PORTION = {"acme_kit/basemap/__init__.py": "class Basemap:\n    pass\n"}
CONSUMER = """\
import acme


def probe_grid():
    import acme_kit.grid
    return acme_kit.grid.cell(1)


def probe_basemap():
    from acme_kit import basemap
    return basemap.Basemap()


def probe_old():
    import acme_kit.old
    return acme_kit.old.gone()
"""
RUNNER = """\
import sys, widget
for name in ("probe_grid", "probe_basemap", "probe_old"):
    try:
        getattr(widget, name)()
        print(name, "ok")
    except ImportError:
        print(name, "missing")
"""


def _tree(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def test_a_name_missing_from_a_namespace_package_is_removed_only_when_the_baseline_had_it(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    old = wheel(dist, "acme", "0.1", OLD, top_level=["acme", "acme_kit"])
    new = wheel(dist, "acme", "0.2", KIT, top_level=["acme", "acme_kit"])
    project = _tree(tmp_path / "project", {"widget/__init__.py": CONSUMER})
    site = tmp_path / "site"
    with zipfile.ZipFile(new) as archive:  # what pip would install, plus the other portion
        archive.extractall(site)
    _tree(site, PORTION)
    ran = subprocess.run(
        [sys.executable, "-c", RUNNER],
        capture_output=True, text=True, check=True,
        env={"PYTHONPATH": f"{project}:{site}", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    python = dict(line.split() for line in ran.stdout.splitlines())
    assert python == {"probe_grid": "ok", "probe_basemap": "ok", "probe_old": "missing"}

    result = CliRunner().invoke(
        cli,
        [
            str(project), "--against", f"acme @ {new.as_uri()}", "--baseline",
            f"acme @ {old.as_uri()}", "--format", "json", "--cache-dir", str(tmp_path / "cache"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    found = {(f["kind"], f["line"]) for f in report["findings"] if not f.get("preexisting")}
    probe_old_line = CONSUMER.splitlines().index("    import acme_kit.old") + 1
    assert found == {("removed-module", probe_old_line)}
    assert report["stats"]["undecided"] >= 1  # basemap: another distribution may add it
