"""find_dependents against the fake index on 127.0.0.1: which projects require a provider.

A 200-consumer world (tests/ecosystem/make_world.py) is generated and discovered once per
module; the smaller cases build a few wheels of their own. Nothing leaves the loopback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from auditor.errors import FetchError
from auditor.sources.dependents import Dependent, find_dependents, newest_version
from auditor.sources.index import open_index
from auditor.sources.simple import DistFile, parse_page, parse_root
from tests.ecosystem.make_world import World, make_world
from tests.trust import machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.fakeindex import FakeIndex, closed_port_url, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from auditor.sources.index import Index

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
BIG = Member("pkg/_native.so", random.Random(0).randbytes(600 * 1024))  # read by ranges


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


@contextlib.contextmanager
def opened(url: str, cache: Path, *, offline: bool = False) -> Iterator[Index]:
    index = open_index(url, cache_dir=cache, offline=offline)
    try:
        yield index
    finally:
        index.close()


def discover(url: str, cache: Path, provider: str = "acme", **kwargs: object) -> list[Dependent]:
    offline = bool(kwargs.pop("offline", False))
    limit = kwargs.pop("limit", None)
    assert limit is None or isinstance(limit, int)
    with opened(url, cache, offline=offline) as index:
        return find_dependents(index, provider, limit=limit)


def names(found: list[Dependent]) -> list[str]:
    return [d.name for d in found]


# --------------------------------------------------------------------------- the world


@dataclass
class Discovered:
    world: World
    fake: FakeIndex
    cache: Path
    found: list[Dependent]
    requests: int  # what the first (cold) discovery sent


@pytest.fixture(scope="module")
def discovered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Discovered]:
    """The 200-consumer world on a fake index, discovered once with a cold cache."""
    folder = tmp_path_factory.mktemp("world")
    world = make_world(folder, consumers=200, seed=0)
    fake = world.load(FakeIndex())
    with pytest.MonkeyPatch.context() as patch, serving(fake):
        machine.isolate(patch)
        found = discover(fake.url, folder / "cache")
        yield Discovered(world, fake, folder / "cache", found, len(fake.requests))


def test_every_consumer_of_the_world_is_found_and_nothing_else(discovered: Discovered) -> None:
    world, found = discovered.world, discovered.found
    assert names(found) == world.dependents
    assert not set(names(found)) & {world.provider, *world.non_dependents}
    by_name = {c.name: c for c in world.consumers}
    for dependent in found:
        consumer = by_name[dependent.name]
        assert (dependent.version, dependent.requires) == (
            consumer.version,
            (consumer.requirement,),
        )


def test_the_world_is_read_through_metadata_files_and_by_ranges(discovered: Discovered) -> None:
    """An advertised .metadata is fetched instead of the wheel; other wheels are read by
    their tail (one range request each, never a whole download), and an unreadable wheel
    with a .metadata is found without touching the wheel."""
    world, fake = discovered.world, discovered.fake
    advertised = [c for c in world.consumers if c.advertises_metadata]
    ranged = [c for c in world.consumers if not c.advertises_metadata]
    assert advertised and ranged and any(c.uses == ("not-a-zip",) for c in advertised)
    wheel_requests = {(p, r) for p, r in fake.requests if p.startswith("/files/consumer")}
    for consumer in advertised:
        assert (f"/files/{consumer.wheel.name}.metadata", None) in wheel_requests
        assert not [p for p, _ in wheel_requests if p == f"/files/{consumer.wheel.name}"]
    for consumer in ranged:
        tail = [r for p, r in wheel_requests if p == f"/files/{consumer.wheel.name}"]
        assert tail == ["bytes=-262144"], consumer.name
    assert fake.count("/files/acme-") == 0  # the provider is never examined
    assert discovered.requests < 2 * len(fake.projects()) + 5


def test_a_rerun_with_a_warm_cache_sends_no_request(discovered: Discovered) -> None:
    fake = discovered.fake
    before = len(fake.requests)
    assert discover(fake.url, discovered.cache) == discovered.found
    assert discover(fake.url, discovered.cache, offline=True) == discovered.found
    assert len(fake.requests) == before


def test_limit_examines_the_first_projects_in_name_order(discovered: Discovered) -> None:
    fake, world = discovered.fake, discovered.world
    listed = fake.projects()
    for limit in (0, 1, 7, 40):
        expected = [n for n in world.dependents if n in listed[:limit]]
        assert names(discover(fake.url, discovered.cache, limit=limit)) == expected


def test_limit_sends_requests_for_the_examined_projects_only(
    discovered: Discovered, tmp_path: Path
) -> None:
    fake = discovered.fake
    before = len(fake.requests)
    found = discover(fake.url, tmp_path / "cache", limit=5)
    pages = {p for p, _ in fake.requests[before:] if p.startswith("/simple/") and p != "/simple/"}
    assert pages == {f"/simple/{n}/" for n in fake.projects()[:5] if n != "acme"}
    assert names(found) == [n for n in fake.projects()[:5] if n.startswith("consumer-")]


# --------------------------------------------------------------------------- small indexes


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    return folder


@pytest.fixture
def fake(dist: Path) -> Iterator[FakeIndex]:
    """acme itself (naming itself in an extra), dependents spelled every way, near misses."""
    code = {"pkg/__init__.py": "X = 1\n"}
    index = FakeIndex()
    index.add(
        wheel(dist, "acme", "1.0", code, requires=['acme[all]; extra == "all"', "zeta"]),
        wheel(dist, "plain", "1.0", code, requires=["acme>=1.0"]),
        wheel(dist, "extra_user", "1.0", code, requires=['acme[fast]>=1; extra == "speed"']),
        wheel(dist, "marked", "1.0", code, requires=['ACME >= 2 ; python_version >= "3.8"']),
        wheel(dist, "spelled", "1.0", code, requires=["Acme"]),
        wheel(dist, "near_miss", "1.0", code, requires=["acme-extras>=1", "acmex"]),
        wheel(dist, "nothing", "1.0", code),
        wheel(dist, "old_user", "1.0", code, requires=["acme"]),
        wheel(dist, "old_user", "2.0", code),
        wheel(dist, "new_user", "1.0", code),
        wheel(dist, "new_user", "2.0", code, requires=["acme<3"]),
        wheel(dist, "pre_user", "1.0", code),
        wheel(dist, "pre_user", "2.0rc1", code, requires=["acme"]),
        wheel(dist, "only_pre", "1.0b1", code, requires=["acme"]),
        sdist(dist, "sdist_user", "1.0", {"pyproject.toml": _pyproject("sdist-user", ["acme"])}),
        wheel(dist, "big_user", "1.0", code, extra=[BIG], requires=["acme~=1.0"]),
    )
    index.metadata_files.update(
        {"plain-1.0-py3-none-any.whl", "marked-1.0-py3-none-any.whl", "acme-1.0-py3-none-any.whl"}
    )
    with serving(index):
        yield index


def _pyproject(name: str, dependencies: list[str]) -> str:
    listed = ", ".join(f'"{d}"' for d in dependencies)
    return f'[project]\nname = "{name}"\nversion = "1.0"\ndependencies = [{listed}]\n'


EXPECTED = [
    Dependent("big-user", "1.0", ("acme~=1.0",)),
    Dependent("extra-user", "1.0", ('acme[fast]>=1; extra == "speed"',)),
    Dependent("marked", "1.0", ('ACME >= 2 ; python_version >= "3.8"',)),
    Dependent("new-user", "2.0", ("acme<3",)),
    Dependent("only-pre", "1.0b1", ("acme",)),
    Dependent("plain", "1.0", ("acme>=1.0",)),
    Dependent("sdist-user", "1.0", ("acme",)),
    Dependent("spelled", "1.0", ("Acme",)),
]


def test_extras_markers_and_spellings_count_and_only_the_newest_release(
    fake: FakeIndex, tmp_path: Path
) -> None:
    """The provider (naming itself in an extra) and near misses are left out; old_user no
    longer requires acme, pre_user's final release does not (the rc does), only_pre has
    nothing but a pre-release; the sdist is read whole (it is small)."""
    assert discover(fake.url, tmp_path / "cache", "ACME") == EXPECTED
    assert fake.count("/files/sdist_user-1.0.tar.gz") == 1
    assert fake.count("/files/plain-1.0-py3-none-any.whl.metadata") == 1
    assert fake.count("/files/plain-1.0-py3-none-any.whl") == 1  # that .metadata only
    big = [r for p, r in fake.requests if p == "/files/big_user-1.0-py3-none-any.whl"]
    assert big and all(r is not None for r in big) and len(big) <= 2  # ranges, not the file


def test_html_pages_and_the_older_metadata_key_give_the_same_answer(
    fake: FakeIndex, tmp_path: Path
) -> None:
    """(HTML pages give no file sizes: the sdist-only project is downloaded all the same.)"""
    fake.html = True
    assert discover(fake.url, tmp_path / "html") == EXPECTED
    fake.html, fake.metadata_key = False, "dist-info-metadata"
    assert discover(fake.url, tmp_path / "legacy") == EXPECTED
    assert fake.count("/files/marked-1.0-py3-none-any.whl") == 2  # its .metadata, twice


def test_a_lying_metadata_sha256_is_refused_and_the_project_an_error_never_skipped(
    fake: FakeIndex, tmp_path: Path
) -> None:
    """An integrity failure says nothing of what the release requires: the project is a
    Dependent with `error` (an ecosystem `error` row), never left out as no dependent."""
    fake.lying_metadata.add("plain-1.0-py3-none-any.whl")
    found = discover(fake.url, tmp_path / "cache")
    assert [d for d in found if d.name != "plain"] == [d for d in EXPECTED if d.name != "plain"]
    (plain,) = [d for d in found if d.name == "plain"]
    assert plain.version == "1.0" and plain.requires == ()
    assert plain.error is not None and "does not match the sha256" in plain.error
    assert fake.count("/files/plain-1.0-py3-none-any.whl") == 1  # not read otherwise
    assert discover(fake.url, tmp_path / "cache") == found  # and the refusal is not cached


def test_an_advertised_metadata_file_that_is_missing_falls_back_to_the_wheel(
    fake: FakeIndex, tmp_path: Path
) -> None:
    fake.missing_files.add("plain-1.0-py3-none-any.whl.metadata")
    assert discover(fake.url, tmp_path / "cache") == EXPECTED
    assert fake.count("/files/plain-1.0-py3-none-any.whl") == 2  # .metadata (404), then tail


def test_a_project_that_cannot_be_examined_is_an_error_never_skipped(
    fake: FakeIndex, dist: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A wheel that is not a zip (an integrity failure), a listed wheel that is gone (404),
    one that answers 503, a `.metadata` that answers 500, a project whose page answers 500
    every time and one the root lists without a page (404): each may require acme, so each
    is a Dependent with `error` saying why (an info line), and the discovery goes on."""
    fake.files["broken-1.0-py3-none-any.whl"] = b"not a zip\n" * 10
    for name in ("gone", "failing", "meta_fails", "down", "unlisted"):
        fake.add(wheel(dist, name, "1.0", {f"{name}.py": ""}, requires=["acme"]))
    fake.missing_files.add("gone-1.0-py3-none-any.whl")
    fake.file_status["failing-1.0-py3-none-any.whl"] = 503
    fake.metadata_files.add("meta_fails-1.0-py3-none-any.whl")
    fake.file_status["meta_fails-1.0-py3-none-any.whl.metadata"] = 500
    fake.page_status["down"] = 500
    fake.page_status["unlisted"] = 404
    caplog.set_level(logging.INFO, logger="drift_audit")
    found = discover(fake.url, tmp_path / "cache")
    assert [d for d in found if d.error is None] == EXPECTED
    errors = {d.spec: d.error or "" for d in found if d.error is not None}
    assert sorted(errors) == [
        "broken==1.0", "down", "failing==1.0", "gone==1.0", "meta-fails==1.0", "unlisted"
    ]  # fmt: skip
    assert all(e.startswith("could not be examined as a dependent: ") for e in errors.values())
    assert "not a readable archive" in errors["broken==1.0"]
    assert "not there (404)" in errors["gone==1.0"]
    assert "503" in errors["failing==1.0"] and "500" in errors["meta-fails==1.0"]
    assert "project page could not be read" in errors["down"] and "500" in errors["down"]
    assert "no project page" in errors["unlisted"] and "(404)" in errors["unlisted"]
    assert all(d.requires == () for d in found if d.error is not None)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any(m.startswith("broken 1.0 may require acme: ") for m in logged)
    assert any(m.startswith("down may require acme: ") and "500" in m for m in logged)
    assert discover(fake.url, tmp_path / "cache") == found  # no failure is cached as an answer


def test_an_sdist_of_unknown_size_is_read_whole(fake: FakeIndex, tmp_path: Path) -> None:
    """A page without sizes (or a big sdist): left unread, it could be a dependent."""
    fake.sizes = False
    assert discover(fake.url, tmp_path / "cache") == EXPECTED
    assert fake.count("/files/sdist_user") == 1


def test_an_unreachable_index_is_a_fetch_error(tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=r"(?i)cannot fetch .*/simple/: .*connection refused"):
        discover(closed_port_url(), tmp_path / "cache")


def test_an_index_that_stops_answering_is_a_fetch_error(dist: Path, tmp_path: Path) -> None:
    """The project list is cached and fresh, but no project page can be fetched any more."""
    index = FakeIndex()
    index.add(*(wheel(dist, f"user{i}", "1.0", {"m.py": ""}, requires=["acme"]) for i in range(8)))
    with serving(index), opened(index.url, tmp_path / "cache") as listing:
        assert len(listing.project_names()) == 8
    with pytest.raises(FetchError, match="stopped answering"):
        discover(index.url, tmp_path / "cache")


def test_a_cold_cache_offline_is_a_fetch_error(fake: FakeIndex, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="--offline"):
        discover(fake.url, tmp_path / "cache", offline=True)
    assert fake.requests == []


def test_the_project_list_is_cached_for_the_page_ttl(fake: FakeIndex, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with opened(fake.url, cache) as index:
        first = index.project_names()
    with opened(fake.url, cache) as index:
        assert index.project_names() == first
    assert [p for p, _ in fake.requests].count("/simple/") == 1
    assert first == fake.projects()


# --------------------------------------------------------------------------- parsing


def test_parse_root_reads_json_and_html_alike() -> None:
    base = "http://127.0.0.1/simple/"
    doc = b'{"meta": {"api-version": "1.1"}, "projects": [{"name": "Foo_Bar"}, {"name": "b"}]}'
    html = b'<a href="/simple/foo-bar/">Foo_Bar</a><a href="b/">b</a><a href="../x/">x</a>'
    assert parse_root(doc, JSON_TYPE, base) == ["b", "foo-bar"]
    assert parse_root(html, "text/html", base) == ["b", "foo-bar", "x"]


def test_parse_root_leaves_out_rows_that_are_not_project_names(
    caplog: pytest.LogCaptureFixture,
) -> None:
    doc = b'{"projects": [{"name": "ok"}, {"name": "../etc"}, {"name": 3}, "x", {}]}'
    assert parse_root(doc, JSON_TYPE, "http://127.0.0.1/simple/") == ["ok"]
    assert "4 malformed project row(s)" in caplog.text
    with pytest.raises(FetchError, match="not PEP 691 JSON"):
        parse_root(b'{"files": []}', JSON_TYPE, "http://127.0.0.1/simple/")


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"core-metadata": {"sha256": "AB" * 32}}, (True, "ab" * 32)),
        ({"core-metadata": True}, (True, None)),
        ({"core-metadata": False, "dist-info-metadata": True}, (False, None)),
        ({"dist-info-metadata": {"sha256": "cd" * 32}}, (True, "cd" * 32)),
        ({"core-metadata": {"md5": "00"}}, (True, None)),
        ({}, (False, None)),
    ],
)
def test_a_json_page_says_whether_a_file_has_its_metadata_beside_it(
    row: dict[str, object], expected: tuple[bool, str | None]
) -> None:
    item = {"filename": "a-1.0-py3-none-any.whl", "url": "a.whl", "hashes": {}, **row}
    body = json.dumps({"files": [item]}).encode()
    [file] = parse_page(body, JSON_TYPE, "http://127.0.0.1/simple/a/")
    assert (file.core_metadata, file.core_metadata_sha256) == expected


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        (f'data-core-metadata="sha256={"ef" * 32}"', (True, "ef" * 32)),
        ('data-core-metadata="true"', (True, None)),
        ("data-core-metadata", (True, None)),
        (f'data-dist-info-metadata="sha256={"12" * 32}"', (True, "12" * 32)),
        ("", (False, None)),
    ],
)
def test_an_html_page_says_whether_a_file_has_its_metadata_beside_it(
    attrs: str, expected: tuple[bool, str | None]
) -> None:
    body = f'<a href="a-1.0-py3-none-any.whl" {attrs}>a</a>'.encode()
    [file] = parse_page(body, "text/html", "http://127.0.0.1/simple/a/")
    assert (file.core_metadata, file.core_metadata_sha256) == expected


def test_page_cache_rows_from_before_core_metadata_still_load() -> None:
    file = DistFile("a-1.0.tar.gz", "http://127.0.0.1/a-1.0.tar.gz", "1.0", core_metadata=True)
    row = file.to_json()
    assert DistFile.from_json(row, "http://127.0.0.1/simple") == file
    old = {k: v for k, v in row.items() if not k.startswith(("core_metadata", "upload_time"))}
    assert DistFile.from_json(old, "http://127.0.0.1/simple") == DistFile(
        "a-1.0.tar.gz", "http://127.0.0.1/a-1.0.tar.gz", "1.0"
    )
    with pytest.raises(ValueError, match="core_metadata"):
        DistFile.from_json({**row, "core_metadata": "yes"}, "http://127.0.0.1/simple")


def test_the_newest_version_prefers_final_releases_and_never_a_yanked_one() -> None:
    def files(*versions: str, yanked: tuple[str, ...] = ()) -> list[DistFile]:
        return [DistFile(f"a-{v}.tar.gz", "u", v, yanked=v in yanked) for v in versions]

    assert newest_version(files("1.0", "1.10", "1.9")) == "1.10"
    assert newest_version(files("1.0", "2.0rc1")) == "1.0"
    assert newest_version(files("1.0b1", "1.0b2")) == "1.0b2"
    assert newest_version(files("1.0", "2.0", yanked=("2.0",))) == "1.0"
    assert newest_version(files("1.0", yanked=("1.0",))) is None
