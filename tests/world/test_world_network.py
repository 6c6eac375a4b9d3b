"""The whole chain on one real small upgrade (click 8.0.4 -> 8.1.0, two dependents): the
ecosystem run through the real CLI, the judge in scratch venvs, the score. Needs the package
index; the work folder (DRIFT_AUDIT_WORLD_DIR, default ~/.cache/drift-audit-world) keeps the
venvs, the consumers and the store, so a rerun takes seconds."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.world import judge, run, score
from tests.world.common import work_dir

MANIFEST = """
schema = 1
python = "3.11"

[[upgrade]]
id = "test-click-8.1"
family = "click"
provider = "click"
baseline = "8.0.4"
target = "8.1.0"
import_names = ["click"]
why = "the network test of the world harness"
pool = "two consumers known to break"
candidates = ["black==22.1.0", "plonecli==2.1.2"]
dependents = ["black==22.1.0", "plonecli==2.1.2"]
skipped = []
judge = "full"
judge_note = ""
"""


def _python(version: str) -> str:
    return str(work_dir() / "venvs" / f"click-{version}-py3.11" / "bin" / "python")


def _exit(version: str, code: str) -> int:
    done = subprocess.run([_python(version), "-I", "-c", code], capture_output=True, timeout=60)
    return done.returncode


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("world-network")
    manifest = folder / "manifest.toml"
    manifest.write_text(MANIFEST, encoding="utf-8")
    args = ["--manifest", str(manifest)]
    assert run.main(args) == 0
    assert judge.main(args) == 0
    out = ["--results", str(folder / "results.json"), "--doc", str(folder / "world.md")]
    assert score.main([*args, *out]) == 0
    first = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert score.main([*args, *out]) == 0
    second = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    first.pop("measured_at"), second.pop("measured_at")
    assert first == second  # deterministic but for the one timestamp
    assert score.START in (folder / "world.md").read_text(encoding="utf-8")
    return first


@pytest.mark.network
def test_the_results_file_has_the_expected_shape(results: dict[str, Any]) -> None:
    assert results["schema"] == 1
    keys = {"overall", "families", "upgrades", "findings", "false_alarms", "misses", "breaks",
            "guarded_breaks", "audit_failures", "undecidable_reasons"}  # fmt: skip
    assert keys <= set(results)
    overall = results["overall"]
    assert (overall["upgrades"], overall["audits"], overall["audits_failed"]) == (1, 2, 0)
    assert overall["new_errors"] == len(results["findings"]) >= 3
    assert [f["family"] for f in results["families"]] == ["click"]
    assert all(f["verdict"] in score.VERDICTS for f in results["findings"])
    assert overall["touchpoints"] > 50


@pytest.mark.network
def test_black_s_unicodefun_import_is_confirmed_and_found(results: dict[str, Any]) -> None:
    black = [f for f in results["findings"] if f["consumer"] == "black==22.1.0"]
    assert [(f["kind"], f["symbol"], f["verdict"]) for f in black] == [
        ("removed-module", "click._unicodefun", "confirmed")
    ]
    breaks = [b for b in results["breaks"] if b["consumer"] == "black==22.1.0"]
    assert [(b["symbol"], b["guarded"], b["found"]) for b in breaks] == [
        ("click._unicodefun", False, True)  # `except ModuleNotFoundError` does not catch it
    ]


@pytest.mark.network
def test_every_confirmed_finding_really_fails_in_the_target_venv(results: dict[str, Any]) -> None:
    confirmed = [f for f in results["findings"] if f["verdict"] == "confirmed"]
    assert confirmed
    for row in confirmed:
        assert _exit("8.1.0", row["snippet"]) != 0, row["snippet"]
        assert _exit("8.0.4", row["snippet"]) == 0, row["snippet"]
