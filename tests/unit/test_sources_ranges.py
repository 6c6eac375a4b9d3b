"""Wheels read by byte ranges, against a local HTTP server that honours single Range requests.

The server (127.0.0.1, a thread) serves a PEP 691 project page and one wheel built here; it
records every request (path and Range header) and the bytes it sent. A wheel holds a large
incompressible `acme/_native.so` between its sources, so reading a source by ranges is visibly
cheaper than downloading the wheel.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

import pytest

from auditor.errors import ArchiveError, FetchError
from auditor.sources import fetch, folder_entries, open_index, remote, text_sha256
from auditor.sources.remote import WheelTree
from auditor.sources.trees import FolderTree
from auditor.sources.zipdir import Member, merge_spans, parse_record
from tests.trust import machine

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from auditor.sources import Index, Release

NATIVE_BYTES = 600 * 1024
SOURCES = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(x, *, fast=False):\n    return x\n",
    "acme/extra.py": "def more(y):\n    return y\n",
    "acme/sub/__init__.py": "",
    "acme/sub/deep.py": "class Deep:\n    def __init__(self, a, b=1):\n        pass\n",
}
LATE = {"acme/zzz_last.py": "LAST = 1\n"}  # after the native library in the archive


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


# --------------------------------------------------------------------------- a wheel


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(
    folder: Path,
    *,
    version: str = "1.0",
    native: int = NATIVE_BYTES,
    tamper: str | None = None,
    requires: tuple[str, ...] = ("numpy>=1",),
) -> Path:
    """acme-<version>: sources, a big stored native library, more sources, then .dist-info
    (METADATA, top_level.txt, RECORD last). `tamper` names a member whose RECORD hash lies."""
    info = f"acme-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: acme\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    members: dict[str, bytes] = {k: v.encode() for k, v in SOURCES.items()}
    members["acme/_native.so"] = os.urandom(native)
    members.update({k: v.encode() for k, v in LATE.items()})
    members[f"{info}/METADATA"] = metadata.encode()
    members[f"{info}/top_level.txt"] = b"acme\n"
    rows = [
        f"{name},sha256={_digest(b'tampered' if name == tamper else data)},{len(data)}"
        for name, data in members.items()
    ]
    members[f"{info}/RECORD"] = ("\n".join([*rows, f"{info}/RECORD,,"]) + "\n").encode()
    path = folder / f"acme-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            kind = zipfile.ZIP_STORED if name.endswith(".so") else zipfile.ZIP_DEFLATED
            zf.writestr(name, data, compress_type=kind)
    return path


def member_span(wheel: Path, name: str) -> tuple[int, int]:
    """Where a member's local record starts and ends in the wheel."""
    with zipfile.ZipFile(wheel) as zf:
        offsets = sorted(i.header_offset for i in zf.infolist())
        start = zf.getinfo(name).header_offset
        assert zf.start_dir is not None
        later = [o for o in offsets if o > start]
        return start, later[0] if later else zf.start_dir


# --------------------------------------------------------------------------- the server


@dataclass
class Server:
    folder: Path
    url: str = ""
    honour_ranges: bool = True
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # path, Range
    sent: int = 0  # body bytes of file answers

    @property
    def file_requests(self) -> list[tuple[str, str | None]]:
        return [r for r in self.requests if r[0].startswith("/files/")]

    def page(self) -> bytes:
        files = [
            {
                "filename": p.name,
                "url": f"../../files/{p.name}",
                "hashes": {"sha256": hashlib.sha256(p.read_bytes()).hexdigest()},
                "size": p.stat().st_size,
            }
            for p in sorted(self.folder.glob("*.whl"))
        ]
        return json.dumps({"meta": {"api-version": "1.1"}, "name": "acme", "files": files}).encode()


_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real file hosts do

        def do_GET(self) -> None:
            byte_range = self.headers.get("Range")
            server.requests.append((self.path, byte_range))
            if self.path == "/simple/acme/":
                return self._send(200, server.page(), "application/vnd.pypi.simple.v1+json")
            path = server.folder / self.path.rsplit("/", 1)[-1]
            if not self.path.startswith("/files/") or not path.is_file():
                return self._send(404, b"not found", "text/plain")
            data = path.read_bytes()
            match = _RANGE.fullmatch(byte_range or "")
            if not server.honour_ranges or match is None:
                server.sent += len(data)
                return self._send(200, data, "application/zip")
            first, last = match.groups()
            start = len(data) - int(last) if not first else int(first)
            end = len(data) - 1 if not first or not last else min(int(last), len(data) - 1)
            start = max(start, 0)
            server.sent += end - start + 1
            headers = {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
            return self._send(206, data[start : end + 1], "application/zip", headers)

        def _send(
            self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    files = tmp_path / "files"
    files.mkdir()
    served = Server(files)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(served))
    httpd.daemon_threads = True
    served.url = f"http://127.0.0.1:{httpd.server_address[1]}/simple"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield served
    httpd.shutdown()
    httpd.server_close()
    thread.join()
    assert not [r for _, r in served.requests if r and "," in r], "a multi-range request"


@pytest.fixture
def indexes(server: Server, tmp_path: Path) -> Iterator[list[Index]]:
    """Indexes opened by a test, closed afterwards (their worker threads and connections)."""
    opened: list[Index] = []
    yield opened
    for index in opened:
        index.close()


def _open(server: Server, cache: Path, opened: list[Index], *, offline: bool = False) -> Index:
    index = open_index(server.url, cache_dir=cache, offline=offline)
    opened.append(index)
    return index


def _release(index: Index) -> Release:
    [release] = index.releases("acme==1.0")
    return release


# --------------------------------------------------------------------------- reading


def test_a_remote_wheel_is_read_member_by_member(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    wheel = build_wheel(server.folder)
    index = _open(server, tmp_path / "cache", indexes)
    release = _release(index)
    assert isinstance(release.tree, WheelTree)
    assert (release.import_names, release.requires) == (("acme",), ("numpy>=1",))
    assert release.tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    assert release.tree.read_text("acme/nothere.py") is None
    assert release.tree.is_dir("acme/sub") and not release.tree.is_dir("acme/core.py")
    sent = server.sent
    assert folder_entries(release.tree, "acme")[:4] == ("__init__.py", "core.py", "extra.py", "sub")
    assert folder_entries(release.tree, "acme/sub") == ("__init__.py", "deep.py")
    assert folder_entries(release.tree, "acme/core.py") == ()
    assert server.sent == sent  # a folder is listed from the wheel's directory: no fetch
    assert server.sent < NATIVE_BYTES / 2 < wheel.stat().st_size
    start, end = member_span(wheel, "acme/core.py")
    assert server.file_requests[-1][1] == f"bytes={start}-{end - 1}"
    assert index.bytes_fetched == server.sent + len(server.page())
    assert index.requests_made == len(server.requests)


def test_the_tail_request_covers_directory_and_metadata_of_a_wheel(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    _release(_open(server, tmp_path / "cache", indexes))
    assert server.file_requests == [(server.file_requests[0][0], f"bytes=-{remote.TAIL_BYTES}")]


def test_prefetch_merges_nearby_members_into_one_request(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    wheel = build_wheel(server.folder)
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    assert isinstance(tree, WheelTree)
    before = len(server.requests)
    tree.prefetch(["acme/core.py", "acme/extra.py", "acme/sub/deep.py", "acme/zzz_last.py"])
    texts = [tree.read_text(p) for p in ("acme/core.py", "acme/extra.py", "acme/zzz_last.py")]
    assert texts == [SOURCES["acme/core.py"], SOURCES["acme/extra.py"], LATE["acme/zzz_last.py"]]
    ranges = sorted(r or "" for _, r in server.requests[before:])
    first, _ = member_span(wheel, "acme/core.py")
    _, deep_end = member_span(wheel, "acme/sub/deep.py")
    last, last_end = member_span(wheel, "acme/zzz_last.py")
    assert ranges == sorted([f"bytes={first}-{deep_end - 1}", f"bytes={last}-{last_end - 1}"])


def test_prefetch_again_or_of_missing_paths_sends_nothing(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    assert isinstance(tree, WheelTree)
    tree.prefetch(["acme/core.py"])
    assert tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    before = len(server.requests)
    tree.prefetch(["acme/core.py", "acme/core.pyi", "nothere/__init__.py", "../etc/passwd"])
    tree.prefetch(["acme/core.py"])
    assert len(server.requests) == before


def test_walk_lists_the_packages_sources_and_fetches_them_ahead(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    before = len(server.requests)
    paths = list(tree.walk())
    assert paths == sorted([*SOURCES, *LATE])
    assert all(tree.read_text(p) is not None for p in paths)
    assert len(server.requests) - before == 2  # before and after the native library


def test_a_server_that_ignores_range_gets_a_whole_download(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    wheel = build_wheel(server.folder)
    server.honour_ranges = False
    release = _release(_open(server, tmp_path / "cache", indexes))
    assert isinstance(release.tree, FolderTree)
    assert release.tree.read_text("acme/sub/deep.py") == SOURCES["acme/sub/deep.py"]
    assert len(server.file_requests) == 1
    assert server.sent == wheel.stat().st_size


def test_a_server_that_stops_honouring_range_is_a_fetch_error_and_nothing_breaks(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    server.honour_ranges = False
    with pytest.raises(FetchError, match=r"stopped honouring byte ranges"):
        tree.read_text("acme/core.py")
    server.honour_ranges = True
    assert tree.read_text("acme/extra.py") == SOURCES["acme/extra.py"]
    assert tree.read_text("acme/core.py") == SOURCES["acme/core.py"]


def test_a_small_wheel_is_downloaded_whole_in_one_request(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder, native=1000)
    release = _release(_open(server, tmp_path / "cache", indexes))
    assert isinstance(release.tree, FolderTree)
    assert server.file_requests == [(server.file_requests[0][0], None)]


def test_a_directory_bigger_than_the_tail_takes_a_second_request(
    server: Server, tmp_path: Path, indexes: list[Index], monkeypatch: pytest.MonkeyPatch
) -> None:
    build_wheel(server.folder)
    monkeypatch.setattr(remote, "TAIL_BYTES", 64)
    release = _release(_open(server, tmp_path / "cache", indexes))
    assert release.tree.read_text("acme/__init__.py") == SOURCES["acme/__init__.py"]
    assert [r for _, r in server.file_requests][:1] == ["bytes=-64"]


def test_a_zip64_wheel_is_read_by_ranges(
    server: Server, tmp_path: Path, indexes: list[Index], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1024)  # zip64 records for every later offset
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 4)
    wheel = build_wheel(server.folder)
    with zipfile.ZipFile(wheel) as zf:
        assert zf.infolist()[-1].header_offset > 1024
    monkeypatch.undo()
    monkeypatch.setattr(fetch, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    assert isinstance(tree, WheelTree)
    assert tree.read_text("acme/zzz_last.py") == LATE["acme/zzz_last.py"]


# --------------------------------------------------------------------------- checks


def test_a_member_that_does_not_match_record_is_an_archive_error(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder, tamper="acme/extra.py")
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    assert tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    with pytest.raises(ArchiveError, match=r"acme/extra.py in acme-1.0-py3-none-any.whl"):
        tree.read_text("acme/extra.py")
    assert not list((tmp_path / "cache").rglob("extra.py"))


def test_a_wheel_gone_from_the_host_is_a_fetch_error(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    tree = _release(_open(server, tmp_path / "cache", indexes)).tree
    (server.folder / "acme-1.0-py3-none-any.whl").rename(server.folder / "moved")
    with pytest.raises(FetchError, match=r"the index lists acme-1.0-py3-none-any.whl"):
        tree.read_text("acme/extra.py")


# --------------------------------------------------------------------------- the cache


def test_cached_members_need_no_request(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    first = _release(_open(server, tmp_path / "cache", indexes))
    assert first.tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    seen = len(server.requests)
    again = _open(server, tmp_path / "cache", indexes)
    release = _release(again)
    assert isinstance(release.tree, WheelTree)
    assert release.tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    release.tree.prefetch(["acme/core.py", "acme/nothere.py"])
    assert (len(server.requests), again.bytes_fetched, again.requests_made) == (seen, 0, 0)
    assert release.requires == ("numpy>=1",)


def test_an_unreadable_cached_listing_is_read_again_from_the_index(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    _release(_open(server, tmp_path / "cache", indexes)).tree.read_text("acme/core.py")
    [listing] = (tmp_path / "cache" / "members").glob("*/*/listing.json")
    listing.write_text('{"version": 1, "members": []}')
    again = _open(server, tmp_path / "cache", indexes)
    tree = _release(again).tree
    assert tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    assert again.requests_made == 1  # the tail; the member itself was still in the store
    assert json.loads(listing.read_text())["version"] == remote.LISTING_VERSION


def test_member_digests_are_kept_and_two_runs_digests_add_up(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    """A digest is the sha256 of the member's text; digests.json keeps those of every run
    that digested members (one run's does not replace another's), and a run that has them
    answers without reading the member (offline, no request)."""
    build_wheel(server.folder)
    cache = tmp_path / "cache"
    first, second = _open(server, cache, indexes), _open(server, cache, indexes)
    one, two = _release(first).tree, _release(second).tree
    assert one.digest("acme/core.py") == text_sha256(SOURCES["acme/core.py"])
    assert two.digest("acme/extra.py") == text_sha256(SOURCES["acme/extra.py"])
    assert one.digest("acme/nothere.py") is None
    first.close()
    second.close()  # after the first run kept its digest: both are kept
    [kept] = (cache / "members").glob("*/*/digests.json")
    assert {row[0] for row in json.loads(kept.read_text())["members"]} == {
        "acme/core.py",
        "acme/extra.py",
    }
    for member in (cache / "members").rglob("files/acme/*.py"):
        member.unlink()
    again = _open(server, cache, indexes, offline=True)
    tree = _release(again).tree
    assert tree.digest("acme/extra.py") == text_sha256(SOURCES["acme/extra.py"])
    assert again.requests_made == 0


def test_kept_digests_that_do_not_fit_are_never_answered(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    """digests.json is untrusted like the rest of the cache: a row of the wrong shape, a
    digest that is not a sha256, a CRC or size not the listing's, a name the listing lacks
    or that climbs out, or a damaged file: each is left out, and the member read again."""
    build_wheel(server.folder)
    cache = tmp_path / "cache"
    tree = _release(_open(server, cache, indexes)).tree
    tree.read_text("acme/core.py")
    core = tree.listing.paths["acme/core.py"]
    lie = "0" * 64
    rows: list[object] = [
        "acme/core.py",
        ["acme/core.py", core.crc, core.size],
        ["acme/core.py", core.crc, core.size, "not hex"],
        ["acme/core.py", core.crc ^ 1, core.size, lie],
        ["acme/core.py", core.crc, core.size + 1, lie],
        ["../acme/core.py", core.crc, core.size, lie],
        ["acme/absent.py", core.crc, core.size, lie],
    ]
    store = tree._store  # the store the tree reads its digests from
    store.save_digests({"version": remote.DIGESTS_VERSION, "members": rows})
    [kept] = (cache / "members").glob("*/*/digests.json")
    again = _release(_open(server, cache, indexes, offline=True)).tree
    assert again.digest("acme/core.py") == text_sha256(SOURCES["acme/core.py"])
    assert again.digest("acme/absent.py") is None
    kept.write_text(kept.read_text().replace(core.name, "acme/extra.py"))  # seal broken
    assert store.load_digests() == {}


def test_a_listing_kept_by_rows_is_read_offline_and_kept_again_by_columns(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    """Version 3 listings (a row per member) from before are still read, with no request,
    and kept again in the current form."""
    build_wheel(server.folder)
    _release(_open(server, tmp_path / "cache", indexes)).tree.read_text("acme/core.py")
    [listing] = (tmp_path / "cache" / "members").glob("*/*/listing.json")
    now = json.loads(listing.read_text())
    rows = [list(row) for row in zip(now["names"], *now["columns"], strict=True)]
    paths = [
        None if path is False else name if path is None else path
        for name, path in zip(now["names"], now["paths"], strict=True)
    ]
    old = {k: v for k, v in now.items() if k not in ("names", "columns", "paths", "sha256")}
    old |= {"version": 3, "members": rows, "paths": paths}
    text = json.dumps(old, sort_keys=True, separators=(",", ":"))
    listing.write_text(json.dumps({**old, "sha256": hashlib.sha256(text.encode()).hexdigest()}))
    again = _open(server, tmp_path / "cache", indexes, offline=True)
    assert _release(again).tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    assert again.requests_made == 0
    kept = json.loads(listing.read_text())
    assert (kept["version"], kept["names"], kept["paths"]) == (4, now["names"], now["paths"])


def test_offline_reads_cached_members_and_names_a_missing_one(
    server: Server, tmp_path: Path, indexes: list[Index]
) -> None:
    build_wheel(server.folder)
    _release(_open(server, tmp_path / "cache", indexes)).tree.read_text("acme/core.py")
    seen = len(server.requests)
    tree = _release(_open(server, tmp_path / "cache", indexes, offline=True)).tree
    tree.prefetch(["acme/extra.py"])
    assert tree.read_text("acme/core.py") == SOURCES["acme/core.py"]
    with pytest.raises(FetchError) as caught:
        tree.read_text("acme/extra.py")
    assert caught.value.message == (
        "acme/extra.py of acme-1.0-py3-none-any.whl is not in the cache and --offline was given"
    )
    assert len(server.requests) == seen


# --------------------------------------------------------------------------- zip pieces


def _member(name: str, offset: int, end: int) -> Member:
    return Member(name, offset, end, end - offset - 40, 0, 8, 0)


def test_merge_spans_joins_members_closer_than_the_gap_only() -> None:
    members = [_member("c", 5000, 5100), _member("a", 0, 100), _member("b", 150, 300)]
    spans = merge_spans(members, gap=100)
    assert [(s.start, s.end, [m.name for m in s.members]) for s in spans] == [
        (0, 300, ["a", "b"]),
        (5000, 5100, ["c"]),
    ]
    assert len(merge_spans(members, gap=0)) == 3


def test_parse_record_keeps_sha256_rows() -> None:
    text = f"a.py,sha256={_digest(b'x')},1\nb.py,md5=abc,1\nx.dist-info/RECORD,,\n"
    assert parse_record(text) == {"a.py": hashlib.sha256(b"x").digest()}
