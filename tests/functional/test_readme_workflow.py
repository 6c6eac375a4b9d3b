"""The README's GitHub Actions workflow, read as GitHub reads it (issue 35 item 20).

`actions/cache` saves under a key it does not hold yet and never updates a key: a key that
never changes (a hash of pyproject.toml, which a run does not touch) means the cache is saved
once and never again. The workflow's key must change from one day to the next and be found
again by its `restore-keys` prefix; the step that makes the day is run here, as the runner
would run it, and the audit must use the folder the cache saves.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def workflow() -> dict[str, Any]:
    """The README's workflow: the yaml block that starts `name: drift-audit`."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    [block] = [b for b in blocks if b.startswith("name: drift-audit\n")]
    data: dict[str, Any] = yaml.safe_load(block)
    return data


def steps() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = workflow()["jobs"]["drift-audit"]["steps"]
    return found


def cache_step() -> tuple[int, dict[str, Any]]:
    [(at, step)] = [
        (i, s) for i, s in enumerate(steps()) if str(s.get("uses", "")).startswith("actions/cache")
    ]
    return at, step


def render(template: str, values: dict[str, str]) -> str:
    """A workflow expression filled in; an expression not in `values` is an error."""
    return EXPRESSION.sub(lambda m: values[m.group(1)], template)


def run_step(step: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    """What a `run:` step writes to $GITHUB_OUTPUT, run by bash as the runner runs it."""
    output = tmp_path / "github_output"
    output.write_text("")
    env = {"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(output)}
    subprocess.run(["bash", "-e", "-c", step["run"]], env=env, check=True, timeout=30)
    pairs = (line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return dict(pairs)


def test_the_cache_key_changes_by_the_day_and_is_restored_by_its_prefix(tmp_path: Path) -> None:
    at, cache = cache_step()
    key, prefix = cache["with"]["key"], cache["with"]["restore-keys"]
    assert "hashFiles" not in key  # a hash of files the run does not change never moves
    used = EXPRESSION.findall(key)
    outputs = [u for u in used if u.startswith("steps.")]
    assert outputs, f"the key {key!r} names no step output that changes"
    step_id = outputs[0].split(".")[1]
    [maker] = [s for s in steps()[:at] if s.get("id") == step_id]  # made before the cache
    written = run_step(maker, tmp_path)
    day = written[outputs[0].split(".")[-1]]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", day), day

    values = {"runner.os": "Linux", outputs[0]: day}
    today = render(key, values)
    tomorrow = render(key, values | {outputs[0]: "2999-12-31"})
    assert today != tomorrow  # so the next day's run saves again
    restored = render(prefix, values)
    assert today.startswith(restored) and tomorrow.startswith(restored)
    assert restored != today  # a prefix, which finds yesterday's cache


def test_the_audit_uses_the_folder_the_cache_saves() -> None:
    _, cache = cache_step()
    folder = cache["with"]["path"]
    audits = [s["run"] for s in steps() if str(s.get("run", "")).startswith("drift-audit ")]
    assert audits and all(f"--cache-dir {folder}" in run for run in audits)
