"""Cache faults: a damaged entry is detected by its hash and fetched again; audits sharing a
cache at the same time agree; --offline with a cold cache names what is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.trust import machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from click.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]
PROVIDER = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
}
BIG = Member("acme/_native.so", os.urandom(600 * 1024))
EXPECTED = [("unexpected-keyword", 3)]
RUNS = 3  # audits started together on one cold cache


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    folder = tmp_path / "consumer" / "widget"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from acme import run\n\nrun(1, slow=True)\n")
    return folder


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    return folder


@pytest.fixture
def index(dist: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    """acme 1.0 read by ranges, 2.0 a small wheel read whole, 3.0 an sdist."""
    fake = FakeIndex()
    fake.add(
        wheel(dist, "acme", "1.0", PROVIDER, extra=[BIG]),
        wheel(dist, "acme", "2.0", PROVIDER),
        sdist(dist, "acme", "3.0", PROVIDER),
    )
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def audit(consumer: Path, spec: str, cache: Path, *more: str) -> Result:
    return invoke(
        str(consumer), "--against", spec, "--cache-dir", str(cache), "--format", "json", *more
    )


def sound(result: Result) -> str:
    """The run worked and found the one break; its warnings."""
    assert result.exit_code == 1, (result.output, result.exception)
    findings = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings] == EXPECTED
    return result.stderr


def damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:7])


def damage_flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20  # same size, one byte off
    path.write_bytes(bytes(data))


def damage_delete(path: Path) -> None:
    path.unlink()


DAMAGES = {"truncated": damage_truncate, "flipped": damage_flip, "deleted": damage_delete}


# --------------------------------------------------------------------------- extracted trees


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("form", ["wheel", "sdist"])
def test_a_damaged_file_in_a_local_archives_tree_is_extracted_again(
    form: str, damage: str, tmp_path: Path, consumer: Path, dist: Path
) -> None:
    build = wheel if form == "wheel" else sdist
    spec = f"acme @ {build(dist, 'acme', '1.0', PROVIDER).as_uri()}"
    cache = tmp_path / "cache"
    sound(audit(consumer, spec, cache))
    [core] = (cache / "local").rglob("core.py")
    DAMAGES[damage](core)
    warnings = sound(audit(consumer, spec, cache))
    assert "is damaged (acme/core.py" in warnings, warnings
    assert core.read_text() == PROVIDER["acme/core.py"]
    assert sound(audit(consumer, spec, cache)) == ""  # repaired for good


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("spec", ["acme==2.0", "acme==3.0"])
def test_a_damaged_file_in_an_index_tree_is_downloaded_again(
    spec: str, damage: str, tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    sound(audit(consumer, spec, cache, "--index-url", index.url))
    [core] = (cache / "trees").rglob("core.py")
    DAMAGES[damage](core)
    before = index.count("/files/")
    assert "is damaged" in sound(audit(consumer, spec, cache, "--index-url", index.url))
    assert index.count("/files/") == before + 1
    assert core.read_text() == PROVIDER["acme/core.py"]


@pytest.mark.parametrize("which", ["manifest.json", "release.json", "index.json"])
def test_damaged_records_of_a_tree_are_a_miss(
    which: str, tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    sound(audit(consumer, "acme==2.0", cache, "--index-url", index.url))
    [record] = (cache / "trees").rglob(which)
    damage_truncate(record)
    before = index.count("/files/")
    sound(audit(consumer, "acme==2.0", cache, "--index-url", index.url))
    assert index.count("/files/") == before + 1
    sound(audit(consumer, "acme==2.0", cache, "--index-url", index.url, "--offline"))


# --------------------------------------------------------------------------- ranged members


def forget_digests(cache: Path) -> None:
    """Remove the members' kept digests (digests.json): a member is read again only when
    the audit needs its text, which a kept digest can spare it."""
    for digests in (cache / "members").rglob("digests.json"):
        digests.unlink()


def test_a_damaged_member_whose_digest_is_kept_is_not_needed(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    """The lookups a member answered are kept by its text's digest, and the digest beside
    the listing: the next audit answers them without reading the member at all."""
    cache = tmp_path / "cache"
    first = sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    [core] = (cache / "members").rglob("files/acme/core.py")
    damage_flip(core)
    before = index.count("/files/")
    result = audit(consumer, "acme==1.0", cache, "--index-url", index.url, "--offline")
    assert sound(result) == first
    assert index.count("/files/") == before


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_member_is_fetched_again(
    damage: str, tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    [core] = (cache / "members").rglob("files/acme/core.py")
    DAMAGES[damage](core)
    forget_digests(cache)
    before = index.count("/files/")
    warnings = sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    assert "acme/core.py of acme-1.0-py3-none-any.whl in the cache is damaged" in warnings
    assert index.count("/files/") == before + 1  # that member's range, nothing else
    assert core.read_text() == PROVIDER["acme/core.py"]


def test_a_damaged_member_offline_is_one_line_naming_it(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    [core] = (cache / "members").rglob("files/acme/core.py")
    damage_flip(core)
    forget_digests(cache)
    result = audit(consumer, "acme==1.0", cache, "--index-url", index.url, "--offline")
    line = error_line(result)
    assert line == (
        "acme/core.py of acme-1.0-py3-none-any.whl is not in the cache and --offline was given"
    )
    assert "in the cache is damaged" in result.stderr


def test_a_listing_that_fails_its_sha256_is_read_again(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    [listing] = (cache / "members").rglob("listing.json")
    data = json.loads(listing.read_text())
    data["columns"][0][0] += 1  # still JSON, one offset off
    listing.write_text(json.dumps(data))
    before = index.count("/files/")
    assert "listing" in sound(audit(consumer, "acme==1.0", cache, "--index-url", index.url))
    assert index.count("/files/") == before + 1  # the tail again
    assert json.loads(listing.read_text())["columns"][0][0] == data["columns"][0][0] - 1


# --------------------------------------------------------------------------- offline


@pytest.mark.parametrize(
    ("spec", "missing"),
    [
        ("acme==1.0", "acme==1.0 is not in the cache and --offline was given"),
        ("acme>=1.0", "the project page of acme is not in the cache and --offline was given"),
    ],
)
def test_offline_with_a_cold_cache_says_what_is_missing(
    spec: str, missing: str, tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    result = audit(consumer, spec, tmp_path / "cache", "--index-url", index.url, "--offline")
    assert error_line(result) == missing
    assert "hint: run once without --offline to fill the cache" in result.stderr
    assert index.requests == []


# --------------------------------------------------------------------------- concurrency


def test_audits_sharing_a_cold_cache_at_once_all_succeed_and_agree(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    widget = wheel(
        tmp_path / "dist", "widget", "1.0", {"widget/__init__.py": consumer.joinpath(
            "__init__.py").read_text()}
    )  # fmt: skip
    index.add(widget)
    index.file_delay = 0.05  # widen the windows in which they race
    cache = tmp_path / "shared-cache"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "PIP_CONFIG_FILE": os.devnull,
        "DRIFT_AUDIT_RETRIES": "0",
    }
    runs = []
    for i in range(RUNS):
        out = tmp_path / f"report-{i}.json"
        args = [
            sys.executable, "-m", "auditor", "widget==1.0", "--against", "acme>=1.0",
            "--index-url", index.url, "--cache-dir", str(cache), "--format", "json", "-o",
            str(out),
        ]  # fmt: skip
        proc = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        runs.append((proc, out))
    reports = []
    for proc, out in runs:
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 1, stderr
        assert "error:" not in stderr and "Traceback" not in stderr, stderr
        report = json.loads(out.read_text())
        report.pop("stats")
        reports.append(report)
    assert all(r == reports[0] for r in reports)
    assert reports[0]["provider"]["targets"] == ["1.0", "2.0", "3.0"]
    assert [(f["kind"], f["line"]) for f in reports[0]["findings"]] == EXPECTED
    assert not list((cache / "tmp").iterdir())
    offline = audit(consumer, "acme>=1.0", cache, "--index-url", index.url, "--offline")
    assert sound(offline) == ""  # what they left behind is whole


def test_cache_info_counts_the_releases_files_not_the_caches_own(
    tmp_path: Path, consumer: Path, index: FakeIndex
) -> None:
    from auditor.sources.cachedir import cache_usage

    cache = tmp_path / "cache"
    sound(audit(consumer, "acme==2.0", cache, "--index-url", index.url))
    [entry] = cache_usage(cache).entries
    assert (entry.version, entry.how, entry.files) == (
        "2.0",
        "extracted",
        4,
    )  # + METADATA, top_level.txt
