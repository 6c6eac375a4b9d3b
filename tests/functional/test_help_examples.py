"""Every example in `drift-audit --help` runs as written, on a machine without the consumer.

The examples name real projects (speculators, vllm); here they run, unchanged, inside a
scratch project whose package calls `vllm`, against a local fake index (PIP_INDEX_URL, as a
user's pip configuration would name one) that serves small wheels called vllm 0.11.0,
0.12.0 and 0.17.0 and speculators 0.3.0. Nothing is installed; no example may end in exit
status 2 (could not run) or a traceback.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trust import archives
from tests.trust.fakeindex import FakeIndex, serving

VLLM = {
    "0.11.0": "def get_config(model, kv_cache_specs=None):\n    return model\n",
    "0.12.0": "def get_config(model):\n    return model\n",
    "0.17.0": "def get_config(model, *, block_size):\n    return model\n",
}
CONSUMER = (
    "import vllm\n\n\ndef build(model):\n    return vllm.get_config(model, kv_cache_specs={})\n"
)


def _examples() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "--help"], capture_output=True, text=True, check=True
    )
    block = done.stdout.split("Examples:\n", 1)[1].split("\n\n", 1)[0]
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    return [re.sub(r"\s{2,}\(.*\)$", "", line) for line in lines]


def test_the_help_has_examples_to_run() -> None:
    examples = _examples()
    assert len(examples) >= 8
    assert all(e.startswith("drift-audit ") for e in examples)


def test_every_help_example_runs_as_written(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    index = FakeIndex()
    for version, source in VLLM.items():
        index.add(archives.wheel(dist, "vllm", version, {"vllm/__init__.py": source}))
    index.add(
        archives.wheel(
            dist,
            "speculators",
            "0.3.0",
            {"speculators/__init__.py": "", "speculators/gen.py": CONSUMER},
            requires=["vllm==0.11.0"],
        )
    )
    project = tmp_path / "project"
    (project / "src" / "acmeapp").mkdir(parents=True)
    (project / "src" / "acmeapp" / "__init__.py").write_text("")
    (project / "src" / "acmeapp" / "gen.py").write_text(CONSUMER)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "acmeapp"\nversion = "1.0"\ndependencies = ["vllm==0.11.0"]\n'
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "drift-audit"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m auditor "$@"\n')
    launcher.chmod(0o755)
    with serving(index):
        env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PIP_INDEX_URL": index.url,
            "PIP_CONFIG_FILE": os.devnull,
            "DRIFT_AUDIT_CACHE_DIR": str(tmp_path / "cache"),
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
        env.pop("PIP_EXTRA_INDEX_URL", None)
        outcomes = {}
        for example in _examples():
            done = subprocess.run(
                example,
                shell=True,
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            outcomes[example] = (done.returncode, done.stderr)
    for example, (code, stderr) in outcomes.items():
        assert code in (0, 1), f"{example}: exit {code}\n{stderr}"
        assert "Traceback" not in stderr and "error:" not in stderr, f"{example}\n{stderr}"
    first = next(e for e in outcomes if "speculators==0.3.0" in e)
    assert outcomes[first][0] == 1  # kv_cache_specs went away in 0.12.0


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
