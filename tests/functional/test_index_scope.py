"""A warm cache is scoped by index: it is fast for the index it came from and says nothing
for another one.

A warm run on the same index makes 0 requests (JSON `stats.requests`, and the fake index's
own log agrees). A different index is always asked: unreachable, the audit fails with the
network error as a cold one would; reachable and serving the very same wheels, it is read
and kept apart, so that neither index's cached members are ever fetched from the other.
The key of an index is its URL without credentials. Both indexes are fakes on loopback.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from auditor.sources.cache import index_key
from tests.trust import acme, machine
from tests.trust.cli import error_line, invoke
from tests.trust.fakeindex import FakeIndex, closed_port_url, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from click.testing import Result

TOKEN = "s3cr3t-T0KEN"
SPECS = {"pins": ("acme==0.2", "acme==0.1"), "ranges": ("acme>=0.2", "acme<0.2")}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


@pytest.fixture
def wheels(tmp_path: Path) -> list[Path]:
    """acme 0.1 and 0.2, big enough to be read by ranges; built once, so that two indexes
    serving them serve the same bytes (the same sha256)."""
    dist = tmp_path / "dist"
    dist.mkdir()
    return acme.wheels(dist, ranged=True)


@pytest.fixture
def index(wheels: list[Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    fake = FakeIndex()
    fake.add(*wheels)
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def audit(project: Path, url: str, cache: Path, specs: tuple[str, str] = SPECS["pins"]) -> Result:
    against, baseline = specs
    return invoke(
        str(project), "--against", against, "--baseline", baseline, "--index-url", url,
        "--cache-dir", str(cache), "--format", "json",
    )  # fmt: skip


def requests_of(result: Result) -> int:
    """`stats.requests` of a JSON run that worked (and found the fixture's one break)."""
    assert result.exit_code == 1, (result.exit_code, result.output, result.exception)
    report = json.loads(result.stdout)
    assert [(f["kind"], f["line"]) for f in report["findings"]] == [acme.BREAK]
    requests = report["stats"]["requests"]
    assert isinstance(requests, int)
    return requests


@pytest.mark.parametrize("specs", SPECS.values(), ids=SPECS.keys())
def test_a_warm_run_on_the_same_index_makes_no_request(
    tmp_path: Path, index: FakeIndex, specs: tuple[str, str]
) -> None:
    """The speed property the scoping keeps: exact pins from the trees, ranges from the
    page cached a moment ago."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    cold = requests_of(audit(project, index.url, cache, specs))
    assert cold == len(index.requests) > 0  # the figure counts what the index saw
    seen = len(index.requests)
    assert requests_of(audit(project, index.url, cache, specs)) == 0
    assert len(index.requests) == seen


@pytest.mark.parametrize("specs", SPECS.values(), ids=SPECS.keys())
def test_a_warm_cache_never_answers_for_another_index_that_is_unreachable(
    tmp_path: Path, index: FakeIndex, specs: tuple[str, str]
) -> None:
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    assert requests_of(audit(project, index.url, cache, specs)) > 0
    other = closed_port_url()
    line = error_line(audit(project, other, cache, specs))
    assert line.startswith(f"cannot fetch {other}/acme/: "), line


def test_the_same_index_unreachable_is_still_answered_from_its_own_trees(
    tmp_path: Path, wheels: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exact pins come from the cache without asking the index (what makes a warm run 0
    requests), so an index gone since is not noticed for them; that holds for its own
    entries only (the test above)."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    fake = FakeIndex()
    fake.add(*wheels)
    with serving(fake), indexes_closed_after(monkeypatch):
        assert requests_of(audit(project, fake.url, cache)) > 0
    with indexes_closed_after(monkeypatch):
        assert requests_of(audit(project, fake.url, cache)) == 0  # the server is gone


def test_another_index_with_the_same_wheels_is_asked_and_kept_apart(
    tmp_path: Path, wheels: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mirror B serving byte-identical wheels (same sha256) after index A: B is asked for
    its pages and files, B's members and listing are kept under B's key, and a member of
    A's that must be fetched again later comes from A, never from B."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    first, second = FakeIndex(), FakeIndex()
    first.add(*wheels)
    second.add(*wheels)
    with serving(first) as a, serving(second) as b, indexes_closed_after(monkeypatch):
        assert requests_of(audit(project, a.url, cache)) > 0
        assert requests_of(audit(project, b.url, cache)) > 0
        assert b.count("/simple/") > 0 and b.count("/files/") > 0
        for member in (cache / "members").rglob("files/acme/__init__.py"):
            member.unlink()  # A's run must fetch this member again, from its listing's URL
        for digests in (cache / "members").rglob("digests.json"):
            digests.unlink()  # (with its digest kept, nothing needs to read it again)
        seen_a, seen_b = len(a.requests), len(b.requests)
        assert requests_of(audit(project, a.url, cache)) > 0
        assert len(a.requests) > seen_a
        assert len(b.requests) == seen_b  # nothing of A's run went to B
    stores = {p.parent.parent.name for p in (cache / "members").glob("*/*/listing.json")}
    assert stores == {index_key(a.url), index_key(b.url)}


def test_the_index_key_leaves_credentials_out_and_the_cache_holds_none(
    tmp_path: Path, index: FakeIndex
) -> None:
    """The same index with and without a token is one index (a warm run after a run with
    the token makes 0 requests); neither the token nor the user is in any name or byte."""
    project = acme.consumer(tmp_path / "project")
    cache = tmp_path / "cache"
    with_token = index.url.replace("http://", f"http://ci:{TOKEN}@")
    assert index_key(with_token) == index_key(index.url) == index_key(index.url + "/")
    assert index_key(index.url.replace("/simple", "/other")) != index_key(index.url)
    assert requests_of(audit(project, with_token, cache)) > 0
    assert requests_of(audit(project, index.url, cache)) == 0
    for path in cache.rglob("*"):
        assert TOKEN not in str(path) and "ci:" not in str(path)
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes()
            assert b"ci:" not in path.read_bytes()


def test_the_releases_of_a_range_are_opened_side_by_side_as_one_after_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """index.releases() opens a range's wheels on RELEASE_WORKERS threads: the same report
    as one at a time, and every release listed in the project's index.json (its updates
    are serialised)."""
    from auditor.sources import index as index_module
    from tests.trust.archives import wheel

    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    versions = [f"0.{n}" for n in range(1, 9)]
    for n, version in enumerate(versions):
        files = acme.OLD if n == 0 else acme.NEW
        fake.add(wheel(dist, "acme", version, files, extra=[acme.PADDING]))
    project = acme.consumer(tmp_path / "project")
    reports = []
    with serving(fake), indexes_closed_after(monkeypatch):
        for workers in (1, 4):
            monkeypatch.setattr(index_module, "RELEASE_WORKERS", workers)
            cache = tmp_path / f"cache-{workers}"
            result = audit(project, fake.url, cache, ("acme>=0.2", "acme==0.1"))
            assert result.exit_code == 1, (result.output, result.exception)
            reports.append(json.loads(result.stdout))
            (listing,) = (cache / "trees").glob("*/acme/index.json")
            assert sorted(json.loads(listing.read_text())) == versions
    assert reports[0]["findings"] == reports[1]["findings"]
    assert reports[0]["providers"] == reports[1]["providers"]
    assert reports[1]["providers"][0]["targets"] == versions[1:]
