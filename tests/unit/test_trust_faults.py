"""Faults of the package index, against a fake index on 127.0.0.1: each ends in one clear
error line and exit status 2, or in a correct recovery (the report is the usual one).

The CLI runs in this process (CliRunner), so the backoff can be recorded instead of slept;
one test runs a real process to show DRIFT_AUDIT_TIMEOUT and DRIFT_AUDIT_RETRIES at work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from auditor.sources import fetch
from tests.trust import machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, closed_port_url, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from click.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]
PROVIDER = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
}
BIG = Member("acme/_native.so", os.urandom(600 * 1024))  # makes a wheel read by ranges
EXPECTED = [("unexpected-keyword", 3)]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    machine.isolate(monkeypatch, no_retry_delays=False)
    for var in (fetch.TIMEOUT_ENV, fetch.RETRIES_ENV):
        monkeypatch.delenv(var, raising=False)
    slept: list[float] = []
    monkeypatch.setattr(fetch.Fetcher, "_pause", lambda self, s: slept.append(s))  # not slept
    return slept


@pytest.fixture
def slept(_isolated: list[float]) -> list[float]:
    return _isolated


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    folder = tmp_path / "consumer" / "widget"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from acme import run\n\nrun(1, slow=True)\n")
    return folder


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    """acme 1.0 as a wheel read by ranges; acme 2.0 as a small wheel read whole; acme 3.0 as
    an sdist only."""
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    fake.add(
        wheel(dist, "acme", "1.0", PROVIDER, extra=[BIG]),
        wheel(dist, "acme", "2.0", PROVIDER),
        sdist(dist, "acme", "3.0", PROVIDER),
    )
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def audit(consumer: Path, index_url: str, spec: str = "acme==1.0", *more: str) -> Result:
    cache = consumer.parent.parent / "cache"
    return invoke(
        str(consumer), "--against", spec, "--index-url", index_url, "--cache-dir", str(cache),
        "--format", "json", *more,
    )  # fmt: skip


def recovered(result: Result) -> None:
    assert result.exit_code == 1, (result.output, result.exception)
    findings = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings] == EXPECTED


# --------------------------------------------------------------------------- unreachable


def test_connection_refused_is_one_line_and_exit_2(consumer: Path, slept: list[float]) -> None:
    line = error_line(audit(consumer, closed_port_url()))
    assert line.startswith("cannot fetch http://127.0.0.1:") and "refused" in line, line
    assert slept == [0.5, 1.5, 4.0]  # three retries, with backoff


def test_a_server_that_never_answers_times_out(
    consumer: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch, slept: list[float]
) -> None:
    monkeypatch.setenv("DRIFT_AUDIT_TIMEOUT", "0.3")
    monkeypatch.setenv("DRIFT_AUDIT_RETRIES", "1")
    index.hang.add("page")
    started = time.monotonic()
    line = error_line(audit(consumer, index.url))
    assert "timed out" in line, line
    assert index.count("/simple/acme/") == 2 and slept == [0.5]
    assert time.monotonic() - started < 10


def test_a_file_host_that_never_answers_a_range_times_out(
    consumer: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFT_AUDIT_TIMEOUT", "0.3")
    monkeypatch.setenv("DRIFT_AUDIT_RETRIES", "0")
    index.hang.add("file")
    line = error_line(audit(consumer, index.url))
    assert "acme-1.0-py3-none-any.whl" in line and "timed out" in line, line
    assert index.count("/files/") == 1


def test_timeouts_and_retries_come_from_the_environment_in_a_real_process(
    consumer: Path, index: FakeIndex
) -> None:
    index.hang.add("page")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "PIP_CONFIG_FILE": os.devnull,
        "DRIFT_AUDIT_TIMEOUT": "0.2",
        "DRIFT_AUDIT_RETRIES": "0",
    }
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable, "-m", "auditor", str(consumer), "--against", "acme==1.0",
            "--index-url", index.url, "--cache-dir", str(consumer.parent.parent / "cache"),
        ],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0].endswith("timed out"), done.stderr
    assert "Traceback" not in done.stderr
    assert index.count("/simple/acme/") == 1
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(
    ("var", "value"), [("DRIFT_AUDIT_TIMEOUT", "soon"), ("DRIFT_AUDIT_RETRIES", "-1")]
)
def test_a_bad_timeout_or_retry_count_is_a_clear_error(
    consumer: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch, var: str, value: str
) -> None:
    monkeypatch.setenv(var, value)
    assert error_line(audit(consumer, index.url)).startswith(f"{var}={value!r} is not a number")


# --------------------------------------------------------------------------- server errors


@pytest.mark.parametrize("spec", ["acme==1.0", "acme==2.0", "acme==3.0"])
def test_5xx_then_success_recovers_after_retries_with_backoff(
    consumer: Path, index: FakeIndex, slept: list[float], spec: str
) -> None:
    index.page_errors = [503, 502]
    index.file_errors = [500]
    recovered(audit(consumer, index.url, spec))
    assert index.count("/simple/acme/") == 3  # two failures, then the page
    assert slept == [0.5, 1.5, 0.5]  # the page's backoff, then the file's


def test_persistent_5xx_is_one_line_after_every_retry(
    consumer: Path, index: FakeIndex, slept: list[float]
) -> None:
    index.page_errors = [503] * 10
    line = error_line(audit(consumer, index.url))
    assert line.endswith("HTTP 503 Service Unavailable"), line
    assert index.count("/simple/acme/") == 4 and slept == [0.5, 1.5, 4.0]


@pytest.mark.parametrize(("status", "words"), [(401, "401 Unauthorized"), (403, "403 Forbidden")])
def test_an_index_that_refuses_us_is_not_retried(
    consumer: Path, index: FakeIndex, status: int, words: str, slept: list[float]
) -> None:
    index.page_errors = [status]
    assert words in error_line(audit(consumer, index.url))
    assert index.count("/simple/acme/") == 1 and slept == []


# --------------------------------------------------------------------------- not found


def test_an_unknown_project_is_one_line(consumer: Path, index: FakeIndex) -> None:
    line = error_line(audit(consumer, index.url, "nothere==1.0"))
    assert line.startswith("no project named 'nothere' on the index http://127.0.0.1:"), line


def test_an_unknown_version_names_the_versions_there_are(consumer: Path, index: FakeIndex) -> None:
    line = error_line(audit(consumer, index.url, "acme==9.9"))
    assert line == "no release of acme matches 'acme==9.9'; the index has 1.0, 2.0, 3.0", line


@pytest.mark.parametrize("spec", ["acme==1.0", "acme==2.0", "acme==3.0"])
def test_a_listed_file_that_is_gone_is_one_line(
    consumer: Path, index: FakeIndex, spec: str
) -> None:
    index.missing_files = set(index.files)
    line = error_line(audit(consumer, index.url, spec))
    assert "the file is not there (404)" in line or "404" in line, line


# --------------------------------------------------------------------------- bodies


@pytest.mark.parametrize("spec", ["acme==1.0", "acme==2.0", "acme==3.0"])
def test_a_body_cut_short_once_is_fetched_again(
    consumer: Path, index: FakeIndex, spec: str
) -> None:
    index.truncate = {"page": 1, "file": 1}
    recovered(audit(consumer, index.url, spec))
    assert index.count("/simple/acme/") == 2


@pytest.mark.parametrize("spec", ["acme==1.0", "acme==2.0"])
def test_a_body_always_cut_short_is_one_line(consumer: Path, index: FakeIndex, spec: str) -> None:
    index.truncate = {"file": 100}
    line = error_line(audit(consumer, index.url, spec))
    assert line.startswith("cannot fetch http://127.0.0.1:") and "acme-" in line, line
    assert not list((consumer.parent.parent / "cache").rglob("core.py"))


def test_a_page_that_is_not_an_index_page_is_one_line(
    consumer: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakeIndex, "page", lambda self, project: b"{not json")
    line = error_line(audit(consumer, index.url))
    assert "is not PEP 691 JSON" in line, line


def test_a_server_that_ignores_range_gets_a_whole_download(
    consumer: Path, index: FakeIndex
) -> None:
    index.honour_ranges = False
    recovered(audit(consumer, index.url))
    assert index.count("/files/") == 1


@pytest.mark.parametrize("spec", ["acme==2.0", "acme==3.0"])
def test_a_file_whose_sha256_differs_from_the_index_is_one_line(
    consumer: Path, index: FakeIndex, spec: str
) -> None:
    index.lying_hashes = set(index.files)
    line = error_line(audit(consumer, index.url, spec))
    assert "does not match the sha256 the index gave" in line, line
    cache = consumer.parent.parent / "cache"
    assert not list(cache.rglob("core.py")) and not list((cache / "tmp").iterdir())


def test_a_ranged_wheel_whose_sha256_differs_is_caught_when_it_is_read_whole(
    consumer: Path, index: FakeIndex
) -> None:
    """Read by ranges, only members are checked (RECORD, CRC); a server that ignores Range
    makes it a whole download, and the index's sha256 is checked."""
    index.lying_hashes = set(index.files)
    index.honour_ranges = False
    line = error_line(audit(consumer, index.url))
    assert "does not match the sha256 the index gave" in line, line


def test_help_names_the_environment_variables() -> None:
    result = invoke("--help")
    for var in (
        "DRIFT_AUDIT_CACHE_DIR",
        "DRIFT_AUDIT_TIMEOUT",
        "DRIFT_AUDIT_RETRIES",
        "DRIFT_AUDIT_DEADLINE",
    ):
        assert f"\n    {var}  " in result.stdout
