"""A fake package index on 127.0.0.1 (a thread in the test process) that can misbehave.

It serves PEP 691 JSON project pages (`/simple/<name>/`) and files (`/files/<filename>`),
honours single byte ranges, and records every request. The root (`/simple/`) lists every
project; a client that does not accept JSON (or `html=True`) gets PEP 503 HTML pages instead.
A wheel named in `metadata_files` has its core metadata served as `<file>.metadata` and
advertised on the page (PEP 658/714), by default the wheel's own `*.dist-info/METADATA`.
Faults are set on the object while it runs: error statuses answered first, answers cut short
(Content-Length larger than the body), requests that are accepted and never answered, a slow
file host, a server that ignores Range, a page whose sha256 for a file (or its .metadata)
lies. Loopback only: nothing here reaches any other host.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

from auditor.sources.simple import file_version

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
TRICKLE_GAP = 0.1  # seconds between the bytes of a trickling answer
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


@dataclass
class FakeIndex:
    """Projects and their files; the fault switches are plain attributes."""

    files: dict[str, bytes] = field(default_factory=dict)  # filename -> content
    url: str = ""  # the simple index URL once serving
    sizes: bool = True  # list each file's size (PEP 700): small wheels are read whole
    honour_ranges: bool = True
    lying_hashes: set[str] = field(default_factory=set)  # filenames listed with a wrong sha256
    page_errors: list[int] = field(default_factory=list)  # statuses answered first, in order
    file_errors: list[int] = field(default_factory=list)
    truncate: dict[str, int] = field(default_factory=dict)  # "page"/"file" -> answers to cut
    hang: set[str] = field(default_factory=set)  # "page"/"file": accept and never answer
    file_delay: float = 0.0  # seconds before each file answer
    range_delay: float = 0.0  # seconds before each answer to `bytes=a-b` (not the tail)
    missing_files: set[str] = field(default_factory=set)  # listed, but 404 when fetched
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # path, Range
    release: threading.Event = field(default_factory=threading.Event)  # ends every hang
    authorizations: list[str | None] = field(default_factory=list)  # each request's header
    redirect: str | None = None  # pages answer 302 to this URL (+ the path) instead
    rows: list[object] = field(default_factory=list)  # raw rows added to every page's files
    raw_page: bytes | None = None  # served as every project page, as it is
    gzip_pages: bool = False  # pages gzip-encoded for a client that accepts gzip
    page_encoding: str | None = None  # a Content-Encoding sent with raw_page, as it is
    endless: set[str] = field(default_factory=set)  # "page"/"file": zeros, no length, no end
    trickle: set[str] = field(default_factory=set)  # "page"/"file": one byte per TRICKLE_GAP
    html: bool = False  # PEP 503 HTML pages (root and projects), whatever the client accepts
    metadata_files: set[str] = field(default_factory=set)  # serve and advertise <file>.metadata
    metadata: dict[str, bytes] = field(default_factory=dict)  # filename -> its .metadata
    lying_metadata: set[str] = field(default_factory=set)  # .metadata listed with a wrong sha256
    metadata_key: str = "core-metadata"  # or PEP 658's older "dist-info-metadata"
    page_status: dict[str, int] = field(default_factory=dict)  # project -> status, every time
    file_status: dict[str, int] = field(default_factory=dict)  # filename -> status, every time
    hang_projects: set[str] = field(default_factory=set)  # their pages and files never answer
    upload_times: dict[str, str] = field(default_factory=dict)  # filename -> PEP 700 upload-time

    def add(self, *archives: Path) -> None:
        for archive in archives:
            self.files[archive.name] = archive.read_bytes()

    def page(self, project: str, *, html: bool = False) -> bytes | None:
        listed = [n for n in sorted(self.files) if _project_of(n) == project]
        if not listed:
            return None
        if html or self.html:
            return self._html_page(project, listed)
        rows = []
        for name in listed:
            data = self.files[name]
            digest = hashlib.sha256(data).hexdigest()
            row: dict[str, object] = {
                "filename": name,
                "url": f"../../files/{name}",
                "hashes": {"sha256": "0" * 64 if name in self.lying_hashes else digest},
            }
            if self.sizes:
                row["size"] = len(data)
            if name in self.upload_times:
                row["upload-time"] = self.upload_times[name]
            if (metadata_sha256 := self._metadata_sha256(name)) is not None:
                row[self.metadata_key] = {"sha256": metadata_sha256}
            rows.append(row)
        doc = {"meta": {"api-version": "1.1"}, "name": project, "files": [*rows, *self.rows]}
        return json.dumps(doc).encode()

    def projects(self) -> list[str]:
        """Every project with a file here, canonical names, sorted."""
        return sorted({p for n in self.files if (p := _project_of(n)) is not None})

    def root(self, *, html: bool = False) -> bytes:
        """The index root: every project, PEP 691 JSON or PEP 503 HTML."""
        if html or self.html:
            links = "".join(f'<a href="{p}/">{p}</a>\n' for p in self.projects())
            return f"<!DOCTYPE html>\n<html><body>\n{links}</body></html>\n".encode()
        doc = {"meta": {"api-version": "1.1"}, "projects": [{"name": p} for p in self.projects()]}
        return json.dumps(doc).encode()

    def metadata_of(self, filename: str) -> bytes | None:
        """What `<filename>.metadata` serves: None unless the file is in `metadata_files`."""
        if filename not in self.metadata_files or filename not in self.files:
            return None
        if filename in self.metadata:
            return self.metadata[filename]
        return _wheel_metadata(self.files[filename])

    def _metadata_sha256(self, filename: str) -> str | None:
        data = self.metadata_of(filename)
        if data is None:
            return None
        return "0" * 64 if filename in self.lying_metadata else hashlib.sha256(data).hexdigest()

    def _html_page(self, project: str, listed: list[str]) -> bytes:
        anchors = []
        for name in listed:
            digest = hashlib.sha256(self.files[name]).hexdigest()
            digest = "0" * 64 if name in self.lying_hashes else digest
            metadata_sha256 = self._metadata_sha256(name)
            served = (
                f' data-{self.metadata_key}="sha256={metadata_sha256}"'
                if metadata_sha256 is not None
                else ""
            )
            anchors.append(f'<a href="../../files/{name}#sha256={digest}"{served}>{name}</a>\n')
        body = "".join(anchors)
        return f"<!DOCTYPE html>\n<html><body><h1>{project}</h1>\n{body}</body></html>\n".encode()

    def count(self, prefix: str) -> int:
        return sum(1 for path, _ in self.requests if path.startswith(prefix))


def _project_of(filename: str) -> str | None:
    if file_version(filename) is None:
        return None
    return str(canonicalize_name(filename.split("-", 1)[0]))


def _project_asked(path: str) -> str | None:
    """The project a request is for: `/simple/<name>/`, or the name a file starts with."""
    parts = path.split("?", 1)[0].strip("/").split("/")
    if parts[0] == "simple":
        return parts[1] if len(parts) > 1 else None
    return _project_of(parts[-1].removesuffix(".metadata"))


def _wheel_metadata(data: bytes) -> bytes | None:
    """A wheel's `*.dist-info/METADATA`; None when it is not a zip or has none."""
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = [n for n in zf.namelist() if n.count("/") == 1]
            found = [n for n in names if n.endswith(".dist-info/METADATA")]
            return zf.read(found[0]) if found else None
    except zipfile.BadZipFile:
        return None


def _handler(index: FakeIndex) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            byte_range = self.headers.get("Range")
            index.requests.append((self.path, byte_range))
            index.authorizations.append(self.headers.get("Authorization"))
            kind = "page" if self.path.startswith("/simple/") else "file"
            if kind == "page" and index.redirect is not None:
                self.send_response(302)
                self.send_header("Location", index.redirect + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if kind in index.endless or kind in index.trickle:
                return self._stream_forever(kind)
            if kind in index.hang or _project_asked(self.path) in index.hang_projects:
                index.release.wait(60)
                self.close_connection = True
                return None
            errors = index.page_errors if kind == "page" else index.file_errors
            if errors:
                status = errors.pop(0)
                return self._send(status, f"status {status}".encode(), "text/plain")
            if kind == "page":
                return self._page()
            return self._file(byte_range)

        def _stream_forever(self, kind: str) -> None:
            """An answer with no Content-Length that never ends (or drips), until the client
            hangs up or the test ends."""
            self.protocol_version = "HTTP/1.0"  # the body ends when the connection does
            self.send_response(200)
            self.send_header("Content-Type", JSON_TYPE if kind == "page" else "x/bin")
            self.end_headers()
            trickle = kind in index.trickle
            chunk = b"{" if trickle and kind == "page" else b"\0" * (1 if trickle else 65536)
            try:
                while not index.release.is_set():
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    if trickle:
                        index.release.wait(TRICKLE_GAP)
                        chunk = b" "
            except OSError:
                pass
            self.close_connection = True

        def _page(self) -> None:
            parts = self.path.strip("/").split("/")
            if index.raw_page is not None:
                coded = {"Content-Encoding": index.page_encoding} if index.page_encoding else {}
                return self._send(200, index.raw_page, JSON_TYPE, coded)
            html = index.html or JSON_TYPE not in self.headers.get("Accept", "")
            kind = "text/html" if html else JSON_TYPE
            if len(parts) == 1:
                return self._send(200, index.root(html=html), kind)
            if len(parts) == 2 and parts[1] in index.page_status:
                status = index.page_status[parts[1]]
                return self._send(status, f"status {status}".encode(), "text/plain")
            body = None
            if len(parts) == 2:  # (tests may swap `page` for a one-argument function)
                body = index.page(parts[1], html=True) if html else index.page(parts[1])
            if body is None:
                return self._send(404, b"not found", "text/plain")
            if index.gzip_pages and "gzip" in self.headers.get("Accept-Encoding", ""):
                return self._send(200, gzip.compress(body), kind, {"Content-Encoding": "gzip"})
            return self._send(200, body, kind)

        def _file(self, byte_range: str | None) -> None:
            if index.file_delay:
                index.release.wait(index.file_delay)
            if index.range_delay and byte_range and not byte_range.startswith("bytes=-"):
                index.release.wait(index.range_delay)
            name = self.path.rsplit("/", 1)[-1]
            if name in index.file_status:
                status = index.file_status[name]
                return self._send(status, f"status {status}".encode(), "text/plain")
            data = index.files.get(name)
            if data is None and name.endswith(".metadata"):
                data = index.metadata_of(name.removesuffix(".metadata"))
            if data is None or name in index.missing_files:
                return self._send(404, b"not found", "text/plain")
            match = _RANGE.fullmatch(byte_range or "")
            if not index.honour_ranges or match is None:
                return self._send(200, data, "application/octet-stream")
            first, last = match.groups()
            start = max(len(data) - int(last), 0) if not first else int(first)
            end = len(data) - 1 if not first or not last else min(int(last), len(data) - 1)
            headers = {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
            return self._send(206, data[start : end + 1], "application/octet-stream", headers)

        def _send(
            self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None
        ) -> None:
            which = "page" if self.path.startswith("/simple/") else "file"
            cut = status in (200, 206) and index.truncate.get(which, 0) > 0
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if cut:
                index.truncate[which] -= 1
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

        def handle(self) -> None:
            with contextlib.suppress(OSError):  # the client hung up mid-answer: the point
                super().handle()

    return Handler


@contextlib.contextmanager
def serving(index: FakeIndex, host: str = "127.0.0.1") -> Iterator[FakeIndex]:
    """Serve `index` on a loopback address (a free port) for the duration of the block."""
    server = ThreadingHTTPServer((host, 0), _handler(index))
    server.daemon_threads = True
    index.url = f"http://{host}:{server.server_address[1]}/simple"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield index
    finally:
        index.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


def closed_port_url() -> str:
    """An index URL on loopback where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"


def wait_for(predicate: object, timeout: float = 20.0) -> bool:
    """Poll `predicate()` until it is true or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.02)
    return False


@contextlib.contextmanager
def indexes_closed_after(monkeypatch: object) -> Iterator[list[object]]:
    """Every Index the pipeline opens in the block is closed at its end (its kept-alive
    connections and worker threads), whatever the pipeline did: unclosed sockets would be
    ResourceWarnings, which this suite turns into errors. Closing twice is harmless."""
    import pytest

    from auditor import pipeline

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    opened: list[object] = []
    real = pipeline.open_index

    def tracking(*args: object, **kwargs: object) -> object:
        index = real(*args, **kwargs)  # type: ignore[arg-type]
        opened.append(index)
        return index

    monkeypatch.setattr(pipeline, "open_index", tracking)
    try:
        yield opened
    finally:
        for index in opened:
            index.close()  # type: ignore[attr-defined]
