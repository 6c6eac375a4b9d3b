"""An ecosystem run at scale: 200 synthetic consumers on a local fake index, both engines.

tests/ecosystem/make_world.py writes the provider `acme` (1.0 and 2.0) and 200 consumers with
the outcome each must get (regressed, still-broken, fixed, clean, error) plus projects that
do not depend on acme. The run finds the dependents on the fake index (`--dependents`: root
listing, PEP 658 .metadata or ranged METADATA), audits each against acme==2.0 with the
baseline its requirement implies, and must give exactly the expected outcomes, the same on the
local engine (2 workers) and on Ray (num_cpus=2), and nothing more on a rerun with the store.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from auditor.cli import ecosystem_cli
from tests.ecosystem.make_world import make_world
from tests.trust import machine
from tests.trust.fakeindex import FakeIndex, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.ecosystem.make_world import World


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, FakeIndex]]:
    made = make_world(tmp_path_factory.mktemp("world"), consumers=200, seed=0)
    with serving(made.load(FakeIndex())) as index:
        yield made, index


def run(index: FakeIndex, cache: Path, *args: str) -> dict[str, Any]:
    argv = [
        "--against", "acme==2.0", "--dependents", "--index-url", index.url,
        "--cache-dir", str(cache), "--jobs", "2", "--format", "json", *args,
    ]  # fmt: skip
    result = CliRunner().invoke(ecosystem_cli, argv, catch_exceptions=False)
    assert result.exit_code == 1, result.output  # some consumers regress
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def outcomes(data: dict[str, Any]) -> dict[str, str]:
    return {c["name"] or c["spec"].split("==")[0]: c["outcome"] for c in data["consumers"]}


def test_two_hundred_consumers_get_their_expected_outcomes_on_both_engines(
    world: tuple[World, FakeIndex], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made, index = world
    machine.isolate(monkeypatch)
    local = run(index, tmp_path / "cache", "--store", str(tmp_path / "eco.sqlite"))
    assert len(local["consumers"]) == len(made.consumers) == 200
    assert outcomes(local) == made.expected
    ray = run(index, tmp_path / "cache-ray", "--engine", "ray")
    assert outcomes(ray) == outcomes(local)
    assert [c["findings"] for c in ray["consumers"]] == [c["findings"] for c in local["consumers"]]
    again = run(index, tmp_path / "cache", "--store", str(tmp_path / "eco.sqlite"))
    errors = sum(1 for outcome in made.expected.values() if outcome == "error")
    assert errors > 0  # the world has consumers that cannot be audited
    assert again["stats"]["audited"] == errors  # tried again: an error is not a result
    assert again["stats"]["reused_from_store"] == 200 - errors
    assert outcomes(again) == outcomes(local)
    top = again["symbols"][0]
    assert top["consumers"] >= 1 and top["symbol"].startswith("acme.")
