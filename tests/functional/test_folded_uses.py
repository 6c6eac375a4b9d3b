"""A use of a name whose import fails is folded into that import's finding ("also used
at") the same way on every run: which failing import takes it was the first a set gave, so
the JSON report changed with the hash seed (PYTHONHASHSEED 0, 2 and 3 left line 7 out of
the `from acme.legacy import run` finding on cf43118). Each run here is a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

CONSUMER = (
    "import acme\nimport acme.legacy\nfrom acme.legacy import run\n\n\n"
    "def go():\n    return acme.ok() + acme.legacy.run(1) + run(2)\n"
)


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _report(tmp_path: Path, seed: int) -> dict[str, Any]:
    ok = {"acme/__init__.py": "def ok():\n    return 1\n"}
    old = _write(tmp_path / "0.1", {**ok, "acme/legacy/__init__.py": "def run(a):\n    return a\n"})
    new = _write(tmp_path / "0.2", ok)
    widget = _write(tmp_path / "project", {"widget/__init__.py": CONSUMER}) / "widget"
    env = {"PATH": os.environ["PATH"], "PYTHONHASHSEED": str(seed), "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [sys.executable, "-m", "auditor", str(widget), "--against", f"acme @ {new.as_uri()}",
         "--baseline", f"acme @ {old.as_uri()}", "--cache-dir", str(tmp_path / f"cache{seed}"),
         "--format", "json", "--offline"],
        env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    report["stats"] = {}
    return report


def test_the_uses_of_a_failing_import_are_folded_alike_whatever_the_hash_seed(
    tmp_path: Path,
) -> None:
    reports = [_report(tmp_path, seed) for seed in range(4)]
    assert all(r == reports[0] for r in reports[1:])
    found = [(f["kind"], f["line"], f.get("also_used_at")) for f in reports[0]["findings"]]
    assert found == [("removed-module", 2, [7]), ("removed-module", 3, [7])]
