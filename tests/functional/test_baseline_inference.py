"""The baseline a consumer release was published against, inferred from upload times.

A consumer release from the index that pins nothing is audited against the newest provider
release uploaded before it (within its requirement), and stderr says which and why; a
baseline that is not older than the target, and a consumer with no site into the provider,
are warnings. acme 0.1 and 0.2 bind `run(old=...)`, 0.3 renames it: widget 1.0, published
between 0.2 and 0.3, really breaks with 0.3 (`test_the_fixture_is_what_python_says`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.trust import machine
from tests.trust.archives import wheel
from tests.trust.cli import invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

OLD = {"acme/__init__.py": "def run(a, old=2):\n    return a\n"}
NEW = {"acme/__init__.py": "def run(a, new=3):\n    return a\n"}
WIDGET = {"widget/__init__.py": "import acme\n\n\ndef go():\n    return acme.run(1, old=5)\n"}
DAY = "2024-05-{:02d}T12:00:00.000000Z"


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    machine.isolate(monkeypatch)
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    made = [
        (wheel(dist, "acme", "0.1", OLD), 1),
        (wheel(dist, "acme", "0.2", OLD), 5),
        (wheel(dist, "acme", "0.3", NEW), 20),
        (wheel(dist, "widget", "1.0", WIDGET, requires=["acme"]), 10),
        (wheel(dist, "gadget", "1.0", WIDGET, requires=["acme<0.2"]), 10),
        (wheel(dist, "quiet", "1.0", {"quiet/__init__.py": "X = 1\n"}, requires=["acme"]), 10),
    ]
    for path, day in made:
        fake.add(path)
        fake.upload_times[path.name] = DAY.format(day)
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def audit(index: FakeIndex, tmp_path: Path, *args: str) -> tuple[dict[str, object], str, int]:
    result = invoke(
        *args, "--index-url", index.url, "--cache-dir", str(tmp_path / "cache"),
        "--format", "json", env={"DRIFT_AUDIT_NO_REPLAY": "1"},
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.exit_code, result.output)
    return json.loads(result.stdout), result.stderr, result.exit_code


def test_the_fixture_is_what_python_says(tmp_path: Path) -> None:
    for files, expected in ((OLD, "ok"), (NEW, "TypeError")):
        root = tmp_path / expected
        for rel, text in {**files, **WIDGET}.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", "import widget; widget.go()"], capture_output=True,
            text=True, env={**os.environ, "PYTHONPATH": str(root)}, check=False,
        )  # fmt: skip
        assert ("ok" if done.returncode == 0 else done.stderr.splitlines()[-1]).startswith(expected)


def test_the_baseline_is_the_newest_release_uploaded_before_the_consumer(
    index: FakeIndex, tmp_path: Path
) -> None:
    report, stderr, status = audit(index, tmp_path, "widget==1.0", "--against", "acme==0.3")
    provider = report["provider"]
    assert isinstance(provider, dict)
    assert provider["baseline"] == "0.2"  # not 0.1 (the oldest), nor 0.3 (after widget 1.0)
    assert "2024-05-10" in provider["baseline_inferred"]
    assert "note: baseline acme 0.2 inferred: the newest release uploaded before widget 1.0" in (
        stderr
    )
    findings = report["findings"]
    assert isinstance(findings, list)
    assert [(f["kind"], f["status"]) for f in findings] == [("unexpected-keyword", "new")]
    assert status == 1


def test_the_requirement_bounds_the_inferred_baseline(index: FakeIndex, tmp_path: Path) -> None:
    report, stderr, _ = audit(index, tmp_path, "gadget==1.0", "--against", "acme==0.3")
    provider = report["provider"]
    assert isinstance(provider, dict)
    assert provider["baseline"] == "0.1"  # acme<0.2, though 0.2 was out before gadget 1.0
    assert "within acme<0.2" in stderr


def test_a_baseline_that_is_the_target_is_a_warning(index: FakeIndex, tmp_path: Path) -> None:
    report, stderr, status = audit(index, tmp_path, "widget==1.0", "--against", "acme==0.2")
    assert "warning: the baseline acme 0.2 is the target itself: no finding can be new" in stderr
    assert status == 0
    report, stderr, _ = audit(
        index, tmp_path, "widget==1.0", "--against", "acme==0.2", "--baseline", "acme==0.3"
    )
    assert "warning: the baseline acme 0.3 is newer than the target 0.2" in stderr
    provider = report["provider"]
    assert isinstance(provider, dict) and "baseline_inferred" not in provider  # it was given


def test_a_consumer_that_never_reaches_the_provider_is_a_warning(
    index: FakeIndex, tmp_path: Path
) -> None:
    report, stderr, status = audit(index, tmp_path, "quiet==1.0", "--against", "acme==0.3")
    assert "warning: quiet has no site into acme: nothing of it was checked" in stderr
    provider = report["provider"]
    assert isinstance(provider, dict) and provider["call_sites"] == 0
    assert status == 0
