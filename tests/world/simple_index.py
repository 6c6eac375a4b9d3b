"""The package index as the selection rules read it (select_dependents.py): named projects'
pages through the simple API's JSON form (PEP 691, with PEP 700's upload times), a wheel's
METADATA beside it (PEP 658), a wheel's members by ranged requests, a whole file; every answer
cached on disk for good, one request at a time. And the files of a page: releases, upload
times, the order drift-audit reads a release's files in, what the judge's interpreter installs.

Only the standard library and `packaging`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import ssl
import struct
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO

from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from pathlib import Path

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
MAX_SDIST = 64 << 20  # an sdist read whole for its metadata and member list, at most
MAX_ARCHIVE = 512 << 20  # a file rule 2 reads the sources of, at most (consumers.py's limit)
TAIL = 1 << 16  # bytes of a wheel's end read first (the central directory is usually inside)
TIMEOUT = 60
TRIES = 4

# The tags of CPython 3.11 on Linux x86_64, the judge's interpreter, most specific first.
_PLATFORMS = [f"manylinux_2_{m}_x86_64" for m in range(39, 4, -1)] + [
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
    "linux_x86_64",
]
JUDGE_TAGS: frozenset[Tag] = frozenset(
    [*cpython_tags((3, 11), platforms=_PLATFORMS), *compatible_tags((3, 11), "cp311", _PLATFORMS)]
)


class Offline(Exception):
    """A request the cache cannot answer while --offline."""


# ---------------------------------------------------------------------------------- the index


class Index:
    """Named projects' pages and files of one index, each answer cached on disk for good."""

    def __init__(self, url: str, cache: Path, cert: str | None, offline: bool) -> None:
        self.url = url.rstrip("/") + "/"
        self.cache = cache
        self.offline = offline
        self.context = ssl.create_default_context(cafile=cert) if cert else None
        self.requests = 0

    # The cache: one gzip file per (URL, what was asked); an answer that is a 404 is kept too.
    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode()).hexdigest()
        return self.cache / digest[:2] / f"{digest}.gz"

    def cached(self, key: str) -> bytes | None:
        path = self._path(key)
        if path.exists():
            return gzip.decompress(path.read_bytes())
        return None

    def store(self, key: str, body: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(gzip.compress(body, mtime=0))
        tmp.replace(path)

    def _get(
        self, url: str, headers: dict[str, str], sink: BinaryIO | None = None
    ) -> tuple[int, bytes]:
        """(status, body); with a `sink`, the body is streamed there instead (at most
        MAX_ARCHIVE bytes) and b"" returned."""
        if self.offline:
            raise Offline(url)
        request = urllib.request.Request(url, headers={"User-Agent": "drift-audit-world/1"})
        for name, value in headers.items():
            request.add_header(name, value)
        for attempt in range(TRIES):
            try:
                self.requests += 1
                with urllib.request.urlopen(request, timeout=TIMEOUT, context=self.context) as r:
                    if sink is None:
                        return r.status, r.read()
                    sink.seek(0)
                    sink.truncate()
                    while chunk := r.read(1 << 20):
                        if sink.tell() + len(chunk) > MAX_ARCHIVE:
                            raise LookupError(f"{url}: more than {MAX_ARCHIVE} bytes")
                        sink.write(chunk)
                    return r.status, b""
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return 404, b""
                if exc.code < 500 or attempt == TRIES - 1:
                    raise
            except (urllib.error.URLError, TimeoutError, ConnectionError):
                if attempt == TRIES - 1:
                    raise
            time.sleep(2**attempt)
        raise AssertionError("unreachable")

    def page(self, name: str) -> dict[str, Any] | None:
        """The simple API's JSON page of a project, None when the index has no such project."""
        url = f"{self.url}{canonicalize_name(name)}/"
        key = f"page {url}"
        body = self.cached(key)
        if body is None:
            status, body = self._get(url, {"Accept": SIMPLE_JSON})
            body = b"" if status == 404 else body
            self.store(key, body)
        if not body:
            return None
        data: dict[str, Any] = json.loads(body)
        for entry in data.get("files", []):
            entry["url"] = urllib.parse.urljoin(url, entry["url"])
        return data

    def metadata(self, file: DistFile) -> bytes:
        """A wheel's METADATA as the index serves it beside the wheel (PEP 658)."""
        key = f"metadata {file.url}"
        body = self.cached(key)
        if body is None:
            status, body = self._get(file.url + ".metadata", {})
            if status == 404:
                raise LookupError(f"{file.filename}: the advertised .metadata is missing")
            expected = file.metadata_sha256
            if expected and hashlib.sha256(body).hexdigest() != expected:
                raise LookupError(f"{file.filename}: .metadata does not match its sha256")
            self.store(key, body)
        return body

    def whole(self, file: DistFile) -> bytes:
        """A whole file (an sdist), checked against the sha256 the page gives."""
        if file.size and file.size > MAX_SDIST:
            raise LookupError(f"{file.filename}: {file.size} bytes, more than read whole")
        key = f"file {file.url}"
        body = self.cached(key)
        if body is None:
            status, body = self._get(file.url, {})
            if status == 404:
                raise LookupError(f"{file.filename}: missing")
            if file.sha256 and hashlib.sha256(body).hexdigest() != file.sha256:
                raise LookupError(f"{file.filename}: does not match its sha256")
            self.store(key, body)
        return body

    def download(self, file: DistFile, out: Path) -> None:
        """A whole file streamed to `out`, checked against the sha256 the page gives (not
        cached: what rule 2 reads from it is)."""
        if file.size > MAX_ARCHIVE:
            raise LookupError(f"{file.filename}: {file.size} bytes, more than rule 2 reads")
        with out.open("w+b") as sink:
            status, _ = self._get(file.url, {}, sink)
            if status == 404:
                raise LookupError(f"{file.filename}: missing")
            sink.seek(0)
            sha = hashlib.sha256()
            while chunk := sink.read(1 << 20):
                sha.update(chunk)
        if file.sha256 and sha.hexdigest() != file.sha256:
            raise LookupError(f"{file.filename}: does not match its sha256")

    def zip_names(self, file: DistFile) -> list[str]:
        """A wheel's member names, from its central directory, read by byte ranges."""
        return [entry[0] for entry in self.zip_entries(file)]

    def zip_entries(self, file: DistFile) -> list[list[Any]]:
        """[name, local header offset, compressed size, method] of each member of a wheel."""
        key = f"entries {file.url}"
        body = self.cached(key)
        if body is None:
            body = json.dumps(self._read_central_directory(file)).encode()
            self.store(key, body)
        result: list[list[Any]] = json.loads(body)
        return result

    def zip_member(self, file: DistFile, name: str) -> bytes:
        """One member of a wheel, read by byte ranges (its local header, then its data)."""
        key = f"member {file.url} {name}"
        body = self.cached(key)
        if body is None:
            entry = next(e for e in self.zip_entries(file) if e[0] == name)
            _, offset, csize, method = entry
            header = self._range(file.url, offset, offset + 30)
            name_len, extra_len = struct.unpack("<HH", header[26:30])
            start = offset + 30 + name_len + extra_len
            data = self._range(file.url, start, start + csize) if csize else b""
            if method == 8:
                body = zlib.decompress(data, -15)
            elif method == 0:
                body = data
            else:
                raise LookupError(f"{file.filename}: {name} is compressed by method {method}")
            self.store(key, body)
        return body

    def _range(self, url: str, start: int, end: int) -> bytes:
        status, body = self._get(url, {"Range": f"bytes={start}-{end - 1}"})
        if status == 206:
            return body
        if status == 200:  # the server ignored the range: it sent everything
            return body[start:end]
        raise LookupError(f"{url}: answered {status} to a range request")

    def _read_central_directory(self, file: DistFile) -> list[str]:
        size = file.size
        if not size:
            raise LookupError(f"{file.filename}: the page gives no size")
        start = max(0, size - TAIL)
        tail = self._range(file.url, start, size)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0:
            raise LookupError(f"{file.filename}: no end of central directory in its last bytes")
        cd_size, cd_offset = struct.unpack("<II", tail[at + 12 : at + 20])
        if cd_offset == 0xFFFFFFFF or cd_size == 0xFFFFFFFF:  # zip64
            loc = tail.rfind(b"PK\x06\x07", 0, at)
            if loc < 0:
                raise LookupError(f"{file.filename}: zip64 without its locator")
            (eocd64,) = struct.unpack("<Q", tail[loc + 8 : loc + 16])
            record = self._range(file.url, eocd64, eocd64 + 56)
            cd_size, cd_offset = struct.unpack("<QQ", record[40:56])
        if cd_offset >= start:
            directory = tail[cd_offset - start : cd_offset - start + cd_size]
        else:
            directory = self._range(file.url, cd_offset, cd_offset + cd_size)
        entries = []
        pos = 0
        while pos + 46 <= len(directory) and directory[pos : pos + 4] == b"PK\x01\x02":
            (method,) = struct.unpack("<H", directory[pos + 10 : pos + 12])
            (csize,) = struct.unpack("<I", directory[pos + 20 : pos + 24])
            name_len, extra_len, comment_len = struct.unpack("<HHH", directory[pos + 28 : pos + 34])
            (offset,) = struct.unpack("<I", directory[pos + 42 : pos + 46])
            name = directory[pos + 46 : pos + 46 + name_len].decode("utf-8", "replace")
            if csize == 0xFFFFFFFF or offset == 0xFFFFFFFF:  # the zip64 extra field says
                extra = directory[pos + 46 + name_len :][:extra_len]
                csize, offset = _zip64_sizes(extra, csize, offset)
            entries.append([name, offset, csize, method])
            pos += 46 + name_len + extra_len + comment_len
        if not entries:
            raise LookupError(f"{file.filename}: an empty central directory")
        return sorted(entries)


def _zip64_sizes(extra: bytes, csize: int, offset: int) -> tuple[int, int]:
    """The compressed size and local header offset a zip64 extra field holds instead."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[pos : pos + 4])
        if tag == 1:
            values = extra[pos + 4 : pos + 4 + size]
            fields = [struct.unpack("<Q", values[i : i + 8])[0] for i in range(0, len(values), 8)]
            # in order: uncompressed size, compressed size, offset, each only when saturated
            # (the uncompressed size is saturated whenever the compressed one is, in wheels)
            it = iter(fields)
            if csize == 0xFFFFFFFF:
                next(it, None)
                csize = next(it, csize)
            if offset == 0xFFFFFFFF:
                offset = next(it, offset)
            return csize, offset
        pos += 4 + size
    return csize, offset


@dataclass(frozen=True)
class DistFile:
    filename: str
    url: str
    version: Version
    uploaded: datetime
    size: int
    sha256: str
    metadata_sha256: str | None  # None: no .metadata advertised; "": advertised, no hash
    kind: str  # "wheel" or "sdist"
    tags: frozenset[Tag]

    @property
    def has_metadata(self) -> bool:
        return self.metadata_sha256 is not None


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def dist_files(page: dict[str, Any]) -> list[DistFile]:
    """The page's wheels and sdists that are not yanked, carry an upload time and are named
    for the project (`django-allauth-0.26.0-1.tar.gz` is no release "1" of django-allauth)."""
    project = canonicalize_name(page["name"])
    files = []
    for entry in page.get("files", []):
        if entry.get("yanked") or not entry.get("upload-time"):
            continue
        name = entry["filename"]
        try:
            if name.endswith(".whl"):
                named, version, _, tags = parse_wheel_filename(name)
                kind = "wheel"
            elif name.endswith((".tar.gz", ".zip")):
                named, version = parse_sdist_filename(name)
                kind, tags = "sdist", frozenset()
            else:
                continue
        except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
            continue
        if canonicalize_name(named) != project:
            continue
        meta = entry.get("core-metadata", entry.get("data-dist-info-metadata"))
        meta_sha = None if not meta else (meta.get("sha256", "") if isinstance(meta, dict) else "")
        files.append(
            DistFile(
                filename=name,
                url=entry["url"].split("#", 1)[0],
                version=version,
                uploaded=parse_time(entry["upload-time"]),
                size=int(entry.get("size") or 0),
                sha256=(entry.get("hashes") or {}).get("sha256", ""),
                metadata_sha256=meta_sha,
                kind=kind,
                tags=frozenset(tags),
            )
        )
    return files


def releases(files: list[DistFile]) -> dict[Version, list[DistFile]]:
    by_version: dict[Version, list[DistFile]] = {}
    for file in files:
        by_version.setdefault(file.version, []).append(file)
    return by_version


def first_upload(files: list[DistFile]) -> datetime:
    return min(f.uploaded for f in files)


def rank(file: DistFile) -> tuple[int, str]:
    """drift-audit's order of preference among a release's files (auditor.sources.simple)."""
    if file.kind == "sdist":
        return (3 if file.filename.endswith(".tar.gz") else 4, file.filename)
    pure = any(
        t.abi == "none" and t.platform == "any" and t.interpreter.startswith("py3")
        for t in file.tags
    )
    if pure:
        return (0, file.filename)
    return (1 if file.tags & JUDGE_TAGS else 2, file.filename)


def installable(files: list[DistFile]) -> bool:
    """A file pip can install on the judge's interpreter (a compatible wheel)."""
    return any(f.kind == "wheel" and f.tags & JUDGE_TAGS for f in files)
