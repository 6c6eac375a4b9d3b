"""The index, archives and cache, against fake indexes built here from tiny packages.

A FakeIndex holds wheels and sdists zipped/tarred in the test; it is served either as a static
`file://` simple index (HTML) or over HTTP on 127.0.0.1 (JSON or HTML, by `mode`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import socket
import tarfile
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

import pytest
from packaging.tags import sys_tags

from auditor.errors import (
    ArchiveError,
    BadSpecError,
    FetchError,
    PackageNotFoundError,
    VersionNotFoundError,
)
from auditor.sources import open_index, resolve_consumer
from auditor.sources.simple import DistFile, choose_file, parse_page
from tests.trust import machine

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from auditor.sources import Release

AUTO = "auto"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """No pip configuration from this machine, no waiting between retries."""
    machine.isolate(monkeypatch)


# --------------------------------------------------------------------------- archives


def _metadata(name: str, version: str, requires: tuple[str, ...]) -> str:
    lines = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    lines += [f"Requires-Dist: {r}\n" for r in requires]
    return "".join(lines) + "\nLong description.\n"


def build_wheel(
    folder: Path,
    name: str,
    version: str,
    files: dict[str, str],
    *,
    tag: str = "py3-none-any",
    requires: tuple[str, ...] = (),
    raw: dict[str, bytes] | None = None,
) -> Path:
    path = folder / f"{name}-{version}-{tag}.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in files.items():
            zf.writestr(rel, text)
        zf.writestr(f"{info}/METADATA", _metadata(name, version, requires))
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\n")
        for rel, data in (raw or {}).items():
            zf.writestr(rel, data)
    return path


def build_sdist(
    folder: Path,
    name: str,
    version: str,
    files: dict[str, str],
    *,
    requires: tuple[str, ...] = (),
    fmt: str = "tar.gz",
) -> Path:
    top = f"{name}-{version}"
    members = {f"{top}/{rel}": text.encode() for rel, text in files.items()}
    members[f"{top}/PKG-INFO"] = _metadata(name, version, requires).encode()
    path = folder / f"{top}.{fmt}"
    if fmt == "zip":
        with zipfile.ZipFile(path, "w") as zf:
            for rel, data in members.items():
                zf.writestr(rel, data)
        return path
    with tarfile.open(path, "w:gz") as tf:
        for rel, data in members.items():
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def acme_files(version: str) -> dict[str, str]:
    return {
        "acme/__init__.py": f'VERSION = "{version}"\n',
        "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
    }


# --------------------------------------------------------------------------- fake index


@dataclass
class Listed:
    path: Path
    yanked: bool
    sha256: str | None


@dataclass
class FakeIndex:
    root: Path
    projects: dict[str, list[Listed]] = field(default_factory=dict)

    @property
    def files(self) -> Path:
        folder = self.root / "files"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    @property
    def file_url(self) -> str:
        return (self.root / "simple").as_uri()

    def add(
        self, project: str, archive: Path, *, yanked: bool = False, sha256: str | None = AUTO
    ) -> None:
        digest = hashlib.sha256(archive.read_bytes()).hexdigest() if sha256 == AUTO else sha256
        self.projects.setdefault(project, []).append(Listed(archive, yanked, digest))
        self.write_static()

    def html(self, project: str) -> str:
        anchors = []
        for item in self.projects[project]:
            href = f"../../files/{item.path.name}" + (
                f"#sha256={item.sha256}" if item.sha256 else ""
            )
            yanked = " data-yanked=''" if item.yanked else ""
            anchors.append(f'<a href="{href}" data-requires-python="&gt;=3.8"{yanked}>x</a><br/>')
        return "<!DOCTYPE html><html><body>" + "\n".join(anchors) + "</body></html>"

    def json(self, project: str) -> str:
        files = [
            {
                "filename": item.path.name,
                "url": f"../../files/{item.path.name}",
                "hashes": {"sha256": item.sha256} if item.sha256 else {},
                "requires-python": ">=3.8",
                "yanked": "broken" if item.yanked else False,
            }
            for item in self.projects[project]
        ]
        return json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": files})

    def write_static(self) -> None:
        for project in self.projects:
            page = self.root / "simple" / project / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(self.html(project), encoding="utf-8")


@pytest.fixture
def acme(tmp_path: Path) -> FakeIndex:
    """acme 0.1, 0.2.0, 0.2.1 (+ sdist), 0.2.2rc1, 0.3.0, and a yanked 0.3.1."""
    index = FakeIndex(tmp_path / "index")
    for version in ("0.1", "0.2.0", "0.2.1", "0.2.2rc1", "0.3.0"):
        index.add("acme", build_wheel(index.files, "acme", version, acme_files(version)))
    index.add("acme", build_sdist(index.files, "acme", "0.2.1", acme_files("sdist")))
    yanked = build_wheel(index.files, "acme", "0.3.1", acme_files("0.3.1"))
    index.add("acme", yanked, yanked=True)
    return index


@dataclass
class Served:
    url: str
    index: FakeIndex
    mode: str = "json"  # "json", "html", or "down" (503 on every request)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # path, accept, agent
    failures_left: int = 0  # answer 503 this many times first
    authorization: str | None = None  # when set, every request must carry this header


def _handler(served: Served) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            accept, agent = self.headers.get("Accept", ""), self.headers.get("User-Agent", "")
            served.requests.append((self.path, accept, agent))
            if served.authorization and self.headers.get("Authorization") != served.authorization:
                return self._send(401, b"who are you", "text/plain")
            if served.mode == "down" or served.failures_left > 0:
                served.failures_left -= 1
                return self._send(503, b"busy", "text/plain")
            parts = self.path.strip("/").split("/")
            if parts[0] == "simple" and len(parts) == 2 and parts[1] in served.index.projects:
                return self._page(parts[1], accept)
            if parts[0] == "files" and (served.index.files / parts[-1]).is_file():
                return self._send(200, (served.index.files / parts[-1]).read_bytes(), "x/bin")
            return self._send(404, b"not found", "text/plain")

        def _page(self, project: str, accept: str) -> None:
            if served.mode == "json" and "application/vnd.pypi.simple.v1+json" in accept:
                body, kind = served.index.json(project), "application/vnd.pypi.simple.v1+json"
            else:
                body, kind = served.index.html(project), "text/html"
            self._send(200, body.encode(), kind)

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def http_index(acme: FakeIndex) -> Iterator[Served]:
    served = Served(url="", index=acme)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(served))
    served.url = f"http://127.0.0.1:{server.server_address[1]}/simple"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield served
    server.shutdown()
    server.server_close()
    thread.join()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _versions(releases: list[Release]) -> list[str | None]:
    return [r.version for r in releases]


# --------------------------------------------------------------------------- matching


def test_wildcard_range_gives_every_matching_release_newest_last(
    acme: FakeIndex, tmp_path: Path
) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme==0.2.*")) == ["0.2.0", "0.2.1"]


def test_pre_releases_match_a_range_only_when_asked(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme>=0.2.1", pre=True)) == ["0.2.1", "0.2.2rc1", "0.3.0"]
    assert _versions(index.releases("acme>=0.2.1,<0.3")) == ["0.2.1"]


def test_a_specifier_naming_a_pre_release_matches_it(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme==0.2.2rc1")) == ["0.2.2rc1"]


def test_bare_name_means_the_newest_unyanked_final_release(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    [release] = index.releases("acme")
    assert release.version == "0.3.0"
    assert release.tree.read_text("acme/__init__.py") == 'VERSION = "0.3.0"\n'


def test_versions_are_sorted_without_yanked_and_pre_releases_on_request(
    acme: FakeIndex, tmp_path: Path
) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert index.versions("ACME") == ["0.1", "0.2.0", "0.2.1", "0.3.0"]
    assert index.versions("acme", pre=True) == ["0.1", "0.2.0", "0.2.1", "0.2.2rc1", "0.3.0"]


def test_an_exact_pin_reaches_a_yanked_release(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme==0.3.1")) == ["0.3.1"]


def test_pep_440_equality_pins_zero_padded_versions(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme==0.3")) == ["0.3.0"]


def test_unknown_version_names_the_versions_that_exist(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    with pytest.raises(VersionNotFoundError) as caught:
        index.releases("acme==9.9")
    assert caught.value.message == (
        "no release of acme matches 'acme==9.9'; the index has 0.1, 0.2.0, 0.2.1, 0.2.2rc1, 0.3.0"
    )


def test_range_matching_only_pre_releases_hints_at_pre(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    with pytest.raises(VersionNotFoundError) as caught:
        index.releases("acme>0.2.1,<0.3")
    assert "--pre" in (caught.value.hint or "")


def test_unknown_project_is_package_not_found_naming_the_index(
    acme: FakeIndex, tmp_path: Path
) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    with pytest.raises(PackageNotFoundError) as caught:
        index.releases("nothere==1.0")
    assert caught.value.message == f"no project named 'nothere' on the index {acme.file_url}"


def test_extra_index_is_a_fallback_and_missing_folders_do_not_crash(
    acme: FakeIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty" / "simple"
    empty.mkdir(parents=True)
    missing = (tmp_path / "missing" / "simple").as_uri()
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", f"{missing} {acme.file_url}")
    index = open_index(empty.as_uri(), cache_dir=tmp_path / "cache")
    assert _versions(index.releases("acme==0.2.0")) == ["0.2.0"]
    with pytest.raises(PackageNotFoundError, match=r"nor on 2 extra index"):
        index.releases("nothere")


# --------------------------------------------------------------------------- file choice


def test_file_choice_prefers_pure_then_platform_then_any_wheel_then_sdist() -> None:
    native = next(iter(sys_tags()))
    names = [
        "acme-1.0.zip",
        "acme-1.0.tar.gz",
        "acme-1.0-cp38-abi3-win_arm64.whl",
        f"acme-1.0-{native.interpreter}-{native.abi}-{native.platform}.whl",
        "acme-1.0-py3-none-any.whl",
    ]
    files = [DistFile(n, f"file:///x/{n}", "1.0") for n in names]
    order = []
    while files:
        chosen = choose_file(files)
        assert chosen is not None
        order.append(chosen.filename)
        files.remove(chosen)
    assert order == list(reversed(names))


def test_only_foreign_platform_wheels_are_read_rather_than_the_sdist(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    native = {"acme/__init__.py": "WHERE = 'wheel'\n"}
    fake.add("acme", build_sdist(fake.files, "acme", "1.0", {"acme/__init__.py": "x = 1\n"}))
    tag = "cp38-abi3-manylinux_2_31_aarch64"
    fake.add("acme", build_wheel(fake.files, "acme", "1.0", native, tag=tag))
    [release] = open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")
    assert release.tree.read_text("acme/__init__.py") == "WHERE = 'wheel'\n"


# --------------------------------------------------------------------------- http


@pytest.mark.parametrize("mode", ["json", "html"])
def test_http_index_serves_releases_as_json_or_html(
    http_index: Served, tmp_path: Path, mode: str
) -> None:
    http_index.mode = mode
    index = open_index(http_index.url, cache_dir=tmp_path / "cache")
    [release] = index.releases("acme==0.2.1")
    assert release.tree.read_text("acme/core.py") == "def run(x, *, fast=False):\n    return x\n"
    assert release.origin == "index"
    assert release.bytes_fetched > 0
    page_path, accept, agent = http_index.requests[0]
    assert page_path == "/simple/acme/"
    assert accept == "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
    assert agent.startswith("drift-audit/")


def test_parse_page_reads_yanked_hashes_and_relative_urls_from_both_formats(
    acme: FakeIndex,
) -> None:
    base = "http://127.0.0.1/simple/acme/"
    from_json = parse_page(acme.json("acme").encode(), "application/vnd.pypi.simple.v1+json", base)
    from_html = parse_page(acme.html("acme").encode(), "text/html", base)
    assert from_json == from_html
    assert from_json[-1].url == "http://127.0.0.1/files/acme-0.3.1-py3-none-any.whl"
    assert from_json[-1].yanked and not from_json[0].yanked
    assert from_json[0].sha256 == acme.projects["acme"][0].sha256


def test_server_errors_are_retried(http_index: Served, tmp_path: Path) -> None:
    http_index.failures_left = 2
    index = open_index(http_index.url, cache_dir=tmp_path / "cache")
    assert index.versions("acme")[-1] == "0.3.0"
    assert len(http_index.requests) == 3


def test_persistent_server_errors_are_a_fetch_error(http_index: Served, tmp_path: Path) -> None:
    http_index.mode = "down"
    index = open_index(http_index.url, cache_dir=tmp_path / "cache")
    with pytest.raises(FetchError, match=r"HTTP 503"):
        index.versions("acme")
    assert len(http_index.requests) == 4


def test_http_404_is_package_not_found(http_index: Served, tmp_path: Path) -> None:
    index = open_index(http_index.url, cache_dir=tmp_path / "cache")
    with pytest.raises(PackageNotFoundError, match=r"no project named 'nothere'"):
        index.versions("nothere")
    assert len(http_index.requests) == 1


def test_credentials_in_the_index_url_authorize_pages_and_files_and_stay_hidden(
    http_index: Served, tmp_path: Path
) -> None:
    http_index.authorization = "Basic " + base64.b64encode(b"ci:s3cret").decode()
    url = http_index.url.replace("http://", "http://ci:s3cret@")
    index = open_index(url, cache_dir=tmp_path / "cache")
    [release] = index.releases("acme==0.2.0")
    assert release.bytes_fetched > 0
    assert "s3cret" not in json.dumps(release.extra)
    with pytest.raises(PackageNotFoundError) as caught:
        index.versions("nothere")
    assert "s3cret" not in caught.value.message and "ci:***@" in caught.value.message
    plain = open_index(http_index.url, cache_dir=tmp_path / "other")
    with pytest.raises(FetchError, match=r"401"):
        plain.versions("acme")


def test_connection_refused_is_a_fetch_error(tmp_path: Path) -> None:
    index = open_index(f"http://127.0.0.1:{_closed_port()}/simple", cache_dir=tmp_path / "c")
    with pytest.raises(FetchError) as caught:
        index.releases("acme==0.1")
    assert "cannot fetch" in caught.value.message
    assert caught.value.hint


# --------------------------------------------------------------------------- cache


def test_a_cached_exact_pin_fetches_nothing_the_second_time(
    http_index: Served, tmp_path: Path
) -> None:
    first = open_index(http_index.url, cache_dir=tmp_path / "cache")
    first.releases("acme==0.2.0")
    assert first.bytes_fetched > 0
    seen = len(http_index.requests)
    second = open_index(http_index.url, cache_dir=tmp_path / "cache")
    [release] = second.releases("acme==0.2")
    assert second.bytes_fetched == 0
    assert len(http_index.requests) == seen
    assert release.tree.read_text("acme/__init__.py") == 'VERSION = "0.2.0"\n'


def test_the_cache_keeps_sources_only_and_no_staging_leftovers(
    http_index: Served, tmp_path: Path
) -> None:
    open_index(http_index.url, cache_dir=tmp_path / "cache").releases("acme==0.2.0")
    kept = sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert not any(name.endswith((".whl", ".tar.gz")) for name in kept)
    assert {"__init__.py", "core.py", "METADATA", "release.json", "index.json"} <= set(kept)
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []


def test_a_fresh_page_cache_answers_ranges_and_offline_uses_it(
    http_index: Served, tmp_path: Path
) -> None:
    open_index(http_index.url, cache_dir=tmp_path / "cache").releases("acme==0.2.*")
    seen = len(http_index.requests)
    again = open_index(http_index.url, cache_dir=tmp_path / "cache")
    assert _versions(again.releases("acme==0.2.*")) == ["0.2.0", "0.2.1"]
    offline = open_index(http_index.url, cache_dir=tmp_path / "cache", offline=True)
    assert offline.versions("acme")[-1] == "0.3.0"
    assert len(http_index.requests) == seen


def test_offline_with_a_cold_cache_is_a_fetch_error(http_index: Served, tmp_path: Path) -> None:
    index = open_index(http_index.url, cache_dir=tmp_path / "cache", offline=True)
    with pytest.raises(FetchError) as caught:
        index.releases("acme==0.2.0")
    assert caught.value.message == "acme==0.2.0 is not in the cache and --offline was given"
    with pytest.raises(FetchError, match=r"--offline"):
        index.releases("acme>=0.2")
    assert http_index.requests == []


def test_cache_dir_comes_from_the_environment(
    acme: FakeIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFT_AUDIT_CACHE_DIR", str(tmp_path / "envcache"))
    open_index(acme.file_url).releases("acme==0.1")
    assert list((tmp_path / "envcache" / "trees").glob("*/acme/index.json"))


# --------------------------------------------------------------------------- archives


def test_sha256_mismatch_is_an_archive_error(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    fake.add("acme", build_wheel(fake.files, "acme", "1.0", acme_files("1.0")), sha256="0" * 64)
    index = open_index(fake.file_url, cache_dir=tmp_path / "cache")
    with pytest.raises(ArchiveError) as caught:
        index.releases("acme==1.0")
    assert caught.value.message.startswith(
        "acme-1.0-py3-none-any.whl does not match the sha256 the index gave"
    )


def test_corrupt_wheel_is_an_archive_error(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    bad = fake.files / "acme-1.0-py3-none-any.whl"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip file")
    fake.add("acme", bad)
    index = open_index(fake.file_url, cache_dir=tmp_path / "cache")
    with pytest.raises(ArchiveError, match=r"not a readable archive"):
        index.releases("acme==1.0")


def test_truncated_sdist_is_an_archive_error(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    sdist = build_sdist(fake.files, "acme", "1.0", acme_files("1.0"))
    sdist.write_bytes(sdist.read_bytes()[:-40])
    fake.add("acme", sdist)
    with pytest.raises(ArchiveError):
        open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")


def test_unsafe_members_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeIndex(tmp_path / "index")
    evil = {"../evil.py": b"boom = 1\n", "/abs.py": b"boom = 2\n", "acme/../../up.py": b"x\n"}
    wheel = build_wheel(fake.files, "acme", "1.0", acme_files("1.0"), raw=evil)
    with zipfile.ZipFile(wheel, "a") as zf:
        link = zipfile.ZipInfo("acme/link.py")
        link.external_attr = (0o120777 << 16) | 0
        zf.writestr(link, "/etc/passwd")
    fake.add("acme", wheel)
    caplog.set_level(logging.WARNING, logger="drift_audit")
    [release] = open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")
    assert list(release.tree.walk()) == ["acme/__init__.py", "acme/core.py"]
    assert not list(tmp_path.rglob("evil.py")) and not list(tmp_path.rglob("up.py"))
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "'../evil.py'" in warned and "'/abs.py'" in warned and "'acme/link.py'" in warned


def test_sdist_with_src_layout_reads_from_src_with_pkg_info_requirements(
    tmp_path: Path,
) -> None:
    fake = FakeIndex(tmp_path / "index")
    files = {
        "setup.py": "raise SystemExit('never run')\n",
        "src/acme/__init__.py": "A = 1\n",
        "tests/test_acme.py": "def test(): pass\n",
    }
    fake.add("acme", build_sdist(fake.files, "acme", "1.0", files, requires=("b>=1",)))
    [release] = open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")
    assert release.import_names == ("acme",)
    assert list(release.tree.walk()) == ["acme/__init__.py"]
    assert release.requires == ("b>=1",)


def test_zip_sdist_without_src_uses_its_top_folder(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    files = {"setup.py": "x\n", "acme/__init__.py": "A = 2\n", "docs/conf.py": "x\n"}
    fake.add("acme", build_sdist(fake.files, "acme", "1.0", files, fmt="zip"))
    [release] = open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")
    assert release.import_names == ("acme",)
    assert release.tree.read_text("acme/__init__.py") == "A = 2\n"
    assert release.tree.read_text("setup.py") is not None  # present, just not a package


def test_wheel_purelib_data_is_read_at_the_root(tmp_path: Path) -> None:
    fake = FakeIndex(tmp_path / "index")
    raw = {"acme-1.0.data/purelib/extra_mod.py": b"E = 1\n", "acme-1.0.data/scripts/x.py": b""}
    fake.add("acme", build_wheel(fake.files, "acme", "1.0", acme_files("1.0"), raw=raw))
    [release] = open_index(fake.file_url, cache_dir=tmp_path / "cache").releases("acme==1.0")
    assert release.tree.read_text("extra_mod.py") == "E = 1\n"
    assert release.tree.read_text("x.py") is None


# --------------------------------------------------------------------------- direct references


def test_direct_reference_to_an_import_root_takes_the_folder_name_as_version(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "provider" / "0.1"
    (folder / "acme").mkdir(parents=True)
    (folder / "acme" / "__init__.py").write_text("from acme.core import run\n")
    (folder / "acme" / "core.py").write_text("def run(): pass\n")
    index = open_index("http://127.0.0.1:9/simple", cache_dir=tmp_path / "cache", offline=True)
    [release] = index.releases(f"acme @ {folder.as_uri()}")
    assert (release.name, release.version, release.import_names) == ("acme", "0.1", ("acme",))
    assert list(release.tree.walk()) == ["acme/__init__.py", "acme/core.py"]
    assert release.tree.is_dir("acme") and not release.tree.is_dir("../provider")
    assert release.tree.read_text("../0.1/acme/core.py") is None


def test_direct_reference_to_a_wheel_and_an_sdist(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index("http://127.0.0.1:9/simple", cache_dir=tmp_path / "cache", offline=True)
    wheel = acme.files / "acme-0.2.0-py3-none-any.whl"
    sdist = acme.files / "acme-0.2.1.tar.gz"
    [from_wheel] = index.releases(f"acme @ {wheel.as_uri()}")
    [from_sdist] = index.releases(f"acme @ {sdist.as_uri()}")
    assert (from_wheel.version, from_sdist.version) == ("0.2.0", "0.2.1")
    assert from_sdist.tree.read_text("acme/__init__.py") == 'VERSION = "sdist"\n'
    assert from_wheel.origin == wheel.as_uri()


def test_direct_reference_to_nothing_is_a_bad_spec(tmp_path: Path) -> None:
    index = open_index("http://127.0.0.1:9/simple", cache_dir=tmp_path / "cache", offline=True)
    with pytest.raises(BadSpecError, match=r"neither a folder nor a wheel"):
        index.releases(f"acme @ {(tmp_path / 'nope').as_uri()}")


def test_consumer_requirement_comes_from_the_index(acme: FakeIndex, tmp_path: Path) -> None:
    index = open_index(acme.file_url, cache_dir=tmp_path / "cache")
    consumer = resolve_consumer("acme==0.2.1", index)
    assert (consumer.name, consumer.version, consumer.origin) == ("acme", "0.2.1", "index")
