# Maintainers: the only code that touches the network (and file:// URLs the same way).
#
# Owns: HTTP GET with a User-Agent, a timeout and retries with backoff on connection errors and
#       5xx; streaming a download to a file while hashing it; the byte count of this run.
# Takes: URLs. Gives: Page (body, content type, final URL) or a file on disk plus its sha256.
# A 404/410 is `NotFound` (the index decides what it means); other failures are FetchError; a
# hash mismatch is ArchiveError. With offline=True a network URL is refused outright.
# Credentials in an index URL (https://user:token@host/simple) become a Basic Authorization
# header, reused for files on the same host, and never appear in messages (`redact`).
"""Fetching URLs: index pages and archives, over HTTP(S) or from file:// URLs."""

from __future__ import annotations

import base64
import hashlib
import http.client
import importlib.metadata
import logging
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar
from urllib.error import HTTPError, URLError
from urllib.parse import unquote, urlsplit, urlunsplit
from urllib.request import HTTPSHandler, Request, build_opener

from auditor.errors import ArchiveError, FetchError
from auditor.sources.specs import is_local_url, local_path

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")
log = logging.getLogger("drift_audit")

TIMEOUT_SECONDS = 30.0
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.5, 4.0)  # three retries after the first attempt
CHUNK_BYTES = 1 << 20
NETWORK_HINT = (
    "check the network (and any proxy), pass --index-url for a reachable index, "
    "or --offline to use only the cache"
)


def _user_agent() -> str:
    try:
        version = importlib.metadata.version("drift-audit")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    return f"drift-audit/{version}"


class NotFound(Exception):  # an answer, not a failure: the caller decides what it means
    """The URL answered 404/410, or a file:// path does not exist."""


@dataclass(frozen=True)
class Page:
    body: bytes
    content_type: str
    url: str  # after redirects: relative links resolve against it


@dataclass(frozen=True)
class Downloaded:
    sha256: str
    network_bytes: int  # 0 for a file:// URL


class Fetcher:
    """GETs pages and downloads files; counts the bytes that came over the network."""

    def __init__(self, *, offline: bool = False, cafile: str | None = None) -> None:
        self.offline = offline
        self.bytes_fetched = 0
        self._user_agent = _user_agent()
        self._auth: dict[str, str] = {}  # host -> Authorization header
        context = _ssl_context(cafile)
        self._opener = build_opener(HTTPSHandler(context=context))

    def get(self, url: str, accept: str) -> Page:
        """The body of a page; NotFound on 404, FetchError when unreachable."""
        if is_local_url(url):
            return _read_local_page(url)
        return self._with_retries(url, accept, self._read_page)

    def download(self, url: str, dest: Path, sha256: str | None) -> Downloaded:
        """Stream `url` into `dest`, verifying `sha256` when the index gave one."""
        if is_local_url(url):
            digest = _copy_local(url, dest)
            network = 0
        else:
            before = self.bytes_fetched
            digest = self._with_retries(url, "*/*", lambda resp: self._save(resp, dest))
            network = self.bytes_fetched - before
        if sha256 and digest != sha256.lower():
            dest.unlink(missing_ok=True)
            raise ArchiveError(
                f"{_basename(url)} does not match the sha256 the index gave "
                f"(expected {sha256[:16]}..., got {digest[:16]}...)",
                hint="retry; if it persists the index or a proxy serves a corrupt file",
            )
        return Downloaded(sha256=digest, network_bytes=network)

    def _read_page(self, resp: http.client.HTTPResponse) -> Page:
        body = resp.read()
        self.bytes_fetched += len(body)
        return Page(body, resp.headers.get_content_type(), resp.geturl())

    def _save(self, resp: http.client.HTTPResponse, dest: Path) -> str:
        expected = resp.headers.get("Content-Length")
        with dest.open("wb") as out:
            digest, size = _stream(resp, out, self._count)
        if expected is not None and expected.isdigit() and size != int(expected):
            raise http.client.IncompleteRead(b"", int(expected) - size)
        return digest

    def _authorize(self, url: str) -> tuple[str, dict[str, str]]:
        """The URL without credentials, and the Authorization header for its host, if known."""
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        if parts.username is not None:
            user, password = unquote(parts.username), unquote(parts.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            self._auth[host] = f"Basic {token}"
            url = urlunsplit(parts._replace(netloc=host))
        return url, ({"Authorization": self._auth[host]} if host in self._auth else {})

    def _count(self, n: int) -> None:
        self.bytes_fetched += n

    def _with_retries(
        self, url: str, accept: str, consume: Callable[[http.client.HTTPResponse], T]
    ) -> T:
        url, headers = self._authorize(url)
        if self.offline:
            raise FetchError(f"{url} needs the network and --offline was given", hint=NETWORK_HINT)
        request = Request(
            url, headers={**headers, "User-Agent": self._user_agent, "Accept": accept}
        )
        failure: Exception | None = None
        for delay in (0.0, *RETRY_DELAYS):
            if failure is not None:
                log.debug("retrying %s in %.1fs after: %s", url, delay, failure)
                time.sleep(delay)
            try:
                with self._opener.open(request, timeout=TIMEOUT_SECONDS) as resp:
                    return consume(resp)
            except HTTPError as exc:
                exc.close()
                _raise_unless_retryable(url, exc)
                failure = exc
            except (URLError, OSError, http.client.HTTPException) as exc:
                failure = exc
        raise FetchError(f"cannot fetch {url}: {_reason(failure)}", hint=NETWORK_HINT) from failure


def _basename(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def redact(url: str) -> str:
    """The URL without its password (for messages and the cache)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def _raise_unless_retryable(url: str, exc: HTTPError) -> None:
    if exc.code in (404, 410):
        raise NotFound(url) from None
    if exc.code < 500:
        raise FetchError(
            f"{url} answered {exc.code} {exc.reason}",
            hint="check the index URL and its credentials (--index-url, pip config)",
        ) from exc


def _reason(exc: Exception | None) -> str:
    if isinstance(exc, HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__


def _ssl_context(cafile: str | None) -> ssl.SSLContext:
    if cafile and Path(cafile).is_file():
        return ssl.create_default_context(cafile=cafile)
    return ssl.create_default_context()


def _stream(source: IO[bytes], out: IO[bytes], count: Callable[[int], None]) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    while chunk := source.read(CHUNK_BYTES):
        out.write(chunk)
        digest.update(chunk)
        size += len(chunk)
        count(len(chunk))
    return digest.hexdigest(), size


def _read_local_page(url: str) -> Page:
    path = local_path(url)
    if path.is_dir():
        path = path / "index.html"
    if not path.is_file():
        raise NotFound(url)
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", hint=NETWORK_HINT) from exc
    kind = "application/vnd.pypi.simple.v1+json" if path.suffix == ".json" else "text/html"
    return Page(body, kind, path.as_uri())


def _copy_local(url: str, dest: Path) -> str:
    path = local_path(url)
    try:
        with path.open("rb") as source, dest.open("wb") as out:
            digest, _ = _stream(source, out, lambda n: None)
    except FileNotFoundError as exc:
        raise FetchError(
            f"the index lists {path} but the file is missing", hint=NETWORK_HINT
        ) from exc
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", hint=NETWORK_HINT) from exc
    return digest
