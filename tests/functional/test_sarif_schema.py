"""drift-audit's SARIF, end to end, against the official SARIF 2.1.0 JSON Schema.

The schema is not in this repository (it is OASIS's): tests/sarif_schema.py finds it on this
machine ($DRIFT_AUDIT_SARIF_SCHEMA, ../shared/schemas) or downloads it once into the user
cache, which is why this test needs the network the first time (skipped with
-m 'not network'). It runs before the unit tests, which then find the cached copy too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import sarif_schema

REPO = Path(__file__).resolve().parents[2]
TARGET = f"acme @ {(REPO / 'tests/fixes/provider/0.2').as_uri()}"
BASELINE = f"acme @ {(REPO / 'tests/fixes/provider/0.1').as_uri()}"
CONSUMER = str(REPO / "tests/fixes/consumer/widget")


@pytest.mark.network
def test_the_sarif_the_command_writes_fits_the_official_sarif_2_1_0_schema(
    tmp_path: Path,
) -> None:
    """One real run writing SARIF with -o: results with fixes, rules for the whole catalogue,
    and a notification (the kind --ignore leaves out); the exit status still says 1."""
    try:
        schema = sarif_schema.fetched_schema()
    except OSError as error:  # URLError too: the schema's host is not reachable from here
        pytest.skip(f"the SARIF 2.1.0 schema could not be fetched: {error}")
    out = tmp_path / "drift.sarif"
    argv = [
        sys.executable, "-m", "auditor", CONSUMER, "--against", TARGET, "--baseline", BASELINE,
        "--offline", "--cache-dir", str(tmp_path / "cache"), "--select", "ALL",
        "--ignore", "changed-default", "--format", "sarif", "-o", str(out),
    ]  # fmt: skip
    run = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 1, run.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    results = document["runs"][0]["results"]
    assert results and any("fixes" in r for r in results)
    notes = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["descriptor"]["id"] for n in notes] == ["left-out-kinds"]
    assert sarif_schema.errors(schema, document) == []

    results[0]["level"] = "fatal"  # the schema has teeth: a level SARIF does not define
    assert sarif_schema.errors(schema, document)
