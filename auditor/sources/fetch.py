# Maintainers: the only code that touches the network (and file:// URLs the same way).
#
# Owns: HTTP GET over http.client, for pages, whole downloads and single byte ranges alike:
#       a User-Agent, kept-alive connections (one per host per thread) through the proxy the
#       environment names, redirects followed by hand, retries with backoff on connection
#       errors, timeouts and 5xx (DRIFT_AUDIT_TIMEOUT seconds per socket operation, default
#       30, at most 3600; DRIFT_AUDIT_RETRIES retries, default 3, at most 10; backoff 0.5 s,
#       1.5 s, 4 s, then 4 s each), streaming a download to a file while hashing it, a small
#       thread pool for concurrent member fetches, and the byte and request counts of a run.
# Bounds, so that no server can hang or flood us: every body is read with read1() against a
#       cap (a page MAX_PAGE_BYTES, a download its declared size or MAX_DOWNLOAD_BYTES, a
#       range its length); every request has a deadline, REQUEST_FACTOR read timeouts plus
#       the time its bytes so far would take at MIN_RATE (a big download that keeps coming
#       has all the time it needs; a server trickling one byte a second is cut off), enforced
#       by a watchdog thread that shuts the socket; and the whole run's network time is
#       bounded by DRIFT_AUDIT_DEADLINE (default 1800 s).
# Takes: URLs. Gives: Page (body, content type, final URL), a file on disk plus its sha256, or
# the bytes of one range. `abort_all` (Ctrl-C) stops every fetcher at once: queued range
# requests are cancelled and sockets shut, so worker threads blocked on a slow server end and
# the process can exit now, not after the timeout. A 404/410 is `NotFound` (the index
# decides what it means); other failures are FetchError; a hash mismatch is ArchiveError.
# With offline=True a network URL is refused outright. Credentials in an index URL
# (https://user:token@host/simple) become a Basic Authorization header, sent only to that
# scheme, host and port: never after a redirect elsewhere, never to a file on another host,
# never written to the cache and never shown in messages (`redact`). A redirect may only go
# to http(s); an index URL must be http(s) with a host, or file (an existing folder becomes
# file://), and hold no space or control character (`check_index_url`).
# Never a multi-range request (`bytes=a-b,c-d`): some servers answer it with the whole body.
# A ranged request answered 200 (the server ignores Range) is the whole file: `fetch_tail`
# streams it to disk for the caller to use as a whole download. The network modules (ssl,
# http.client) are imported on first use, so a run from the cache skips them. urllib3 would
# do the pools and redirects; it was judged, and the range planner, the deadline and the
# proxy handling would still be ours, so the one client stays on the standard library.
# Its parts, beside it and used by nothing else for the network: connect.py (connections,
# proxies, TLS, response headers), watchdog.py (the deadlines), urls.py (index URL checks,
# redaction, redirects; pure) and bodies.py (gzip pages, file:// copies). Only this module and
# connect.py and watchdog.py touch sockets (tests/unit/test_doors.py).
"""Fetching URLs: index pages and archives (whole or by byte ranges), over HTTP(S) or file://."""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from auditor.errors import ArchiveError, ConfigError, FetchError
from auditor.files import read_file
from auditor.sources import limits
from auditor.sources.bodies import CHUNK_BYTES, _copy_local, _gunzip
from auditor.sources.connect import (
    _connect,
    _content_length,
    _content_range,
    _reason,
    _request_target,
    _ssl_context,
)
from auditor.sources.specs import is_local_url, local_path
from auditor.sources.urls import NETWORK_HINT, _basename, _check_http, _for_origin, _redirected
from auditor.sources.watchdog import (
    DEADLINE_ENV,
    REQUEST_FACTOR,
    _Expired,
    _shut,
    _Watchdog,
    _Watched,
)

if TYPE_CHECKING:
    import http.client
    import ssl
    from collections.abc import Callable, Iterator
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

T = TypeVar("T")
log = logging.getLogger("drift_audit")

TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 3600.0
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.5, 4.0)  # three retries after the first attempt
MAX_RETRIES = 10
DEADLINE_SECONDS = 1800.0  # the network time of one run, at most
TIMEOUT_ENV = "DRIFT_AUDIT_TIMEOUT"
RETRIES_ENV = "DRIFT_AUDIT_RETRIES"
WORKERS = 8  # concurrent range requests (each worker keeps its own connection per host)
MAX_REDIRECTS = 5
SLOW_CONNECT = 1.0  # seconds to resolve and connect past which -v says so
CORRUPT_HINT = "retry; if it persists the index or a proxy serves a corrupt file"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_LIVE: weakref.WeakSet[Fetcher] = weakref.WeakSet()  # for abort_all


def _user_agent() -> str:
    import importlib.metadata

    try:
        version = importlib.metadata.version("drift-audit")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    return f"drift-audit/{version}"


class NotFound(Exception):  # an answer, not a failure: the caller decides what it means
    """The URL answered 404/410, or a file:// path does not exist."""


class _Retryable(Exception):
    """A failure worth another attempt (connection trouble, a 5xx, a body cut short)."""


@dataclass(frozen=True)
class Page:
    """A page fetched from the index."""

    body: bytes
    content_type: str
    url: str  # after redirects: relative links resolve against it


@dataclass(frozen=True)
class Downloaded:
    """A file downloaded whole: its sha256 and the bytes it took."""

    sha256: str
    network_bytes: int  # 0 for a file:// URL


@dataclass(frozen=True)
class Tail:
    """The last bytes of a remote file, or (server ignoring Range) the whole file on disk."""

    start: int  # offset of body[0] in the file
    total: int  # the file's size
    body: bytes
    whole: Downloaded | None = None  # set when the whole file was streamed to `spill`


def abort_all() -> None:
    """Stop the network work of every live Fetcher (the run was interrupted)."""
    for fetcher in list(_LIVE):
        fetcher.abort()


class Fetcher:
    """GETs pages, downloads files and byte ranges; counts network bytes and requests."""

    def __init__(
        self,
        *,
        offline: bool = False,
        cafile: str | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        deadline: float | None = None,
    ) -> None:
        """`timeout` (seconds per socket operation), `retries` and `deadline` (seconds of
        network time for this Fetcher's life) default to $DRIFT_AUDIT_TIMEOUT,
        $DRIFT_AUDIT_RETRIES and $DRIFT_AUDIT_DEADLINE, else 30 s, 3 and 1800 s."""
        self.offline = offline
        self.timeout = (
            timeout
            if timeout is not None
            else _seconds_from_env(TIMEOUT_ENV, TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS)
        )
        self.retries = retries if retries is not None else _retries_from_env()
        seconds = (
            deadline
            if deadline is not None
            else _seconds_from_env(DEADLINE_ENV, DEADLINE_SECONDS, 7 * 86400.0)
        )
        self._ends = time.monotonic() + seconds
        self._deadline_seconds = seconds
        self.bytes_fetched = 0
        self.requests_made = 0
        self._cafile = cafile
        self._auth: dict[tuple[str, str], str] = {}  # (scheme, host:port) -> Authorization
        self._lock = threading.Lock()
        self._local = threading.local()  # per thread: (scheme, netloc) -> connection
        self._connections: list[http.client.HTTPConnection] = []
        self._moved: dict[str, str] = {}  # URL -> where it redirected to last time
        self._pool: ThreadPoolExecutor | None = None
        self._aborted = threading.Event()
        self._watchdog = _Watchdog()
        _LIVE.add(self)

    @functools.cached_property
    def _user_agent(self) -> str:
        return _user_agent()

    @functools.cached_property
    def _context(self) -> ssl.SSLContext:
        return _ssl_context(self._cafile)

    def get(self, url: str, accept: str) -> Page:
        """The body of a page (at most MAX_PAGE_BYTES); NotFound on 404, FetchError when
        unreachable."""
        if is_local_url(url):
            return _read_local_page(url)

        def consume(resp: http.client.HTTPResponse, final: str) -> Page:
            chunks = self._chunks(resp, final, limits.MAX_PAGE_BYTES, "the page")
            encoding = (resp.getheader("Content-Encoding") or "identity").strip().lower()
            if encoding == "gzip":
                body = _gunzip(chunks, final, limits.MAX_PAGE_BYTES)
            elif encoding == "identity":
                body = b"".join(chunks)
            else:
                raise FetchError(
                    f"{final} answered in {encoding!r}, an encoding not asked for",
                    hint="check the index URL (a proxy may re-encode answers)",
                )
            return Page(body, resp.headers.get_content_type(), final)

        # a page is JSON or HTML text: gzip makes it ~4x smaller (vLLM's: 128 KB -> 34 KB)
        return self._request(url, {"Accept": accept, "Accept-Encoding": "gzip"}, consume)

    def download(
        self, url: str, dest: Path, sha256: str | None, size: int | None = None
    ) -> Downloaded:
        """Stream `url` into `dest`, verifying `sha256` when the index gave one; at most
        `size` bytes when the index gave that, else MAX_DOWNLOAD_BYTES."""
        limit = (
            min(size, limits.MAX_DOWNLOAD_BYTES) if size is not None else limits.MAX_DOWNLOAD_BYTES
        )
        if is_local_url(url):
            digest = _copy_local(url, dest)
            network = 0
        else:
            before = self.bytes_fetched
            digest = self._request(
                url, {}, lambda resp, final: self._save(resp, final, dest, limit)
            )
            network = self.bytes_fetched - before
        verify(url, dest, digest, sha256)
        return Downloaded(sha256=digest, network_bytes=network)

    def remember_credentials(self, url: str) -> None:
        """Learn the Authorization for a URL's host from its user:password, if it has one."""
        self._authorize(url)

    def close(self) -> None:
        """Stop the worker threads and close every kept-alive connection. Requests still
        queued or in flight (a prefetch nobody read, or the run was interrupted) are cut
        off first, so closing never waits on a slow server."""
        self.abort()
        with self._lock:
            pool, self._pool = self._pool, None
            connections, self._connections = self._connections, []
        if pool is not None:
            pool.shutdown(wait=True)
        for conn in connections:
            conn.close()
        self._watchdog.stop()

    def abort(self) -> None:
        """Cancel queued range requests and shut every kept-alive socket, waking the threads
        that wait on them; from now on every request fails at once."""
        self._aborted.set()
        with self._lock:
            pool, connections = self._pool, list(self._connections)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for conn in connections:
            _shut(conn)

    def _pause(self, seconds: float) -> None:
        """The backoff before a retry; cut short by abort()."""
        self._aborted.wait(seconds)

    def _check_aborted(self, url: str) -> None:
        if self._aborted.is_set():
            raise FetchError(f"cannot fetch {url}: fetching was stopped (closed or interrupted)")

    def pool(self) -> ThreadPoolExecutor:
        """The worker threads for concurrent range requests, started on first use."""
        with self._lock:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="drift-audit-fetch")
            return self._pool

    # ----------------------------------------------------------------------- byte ranges

    def fetch_tail(self, url: str, size: int, spill: Path, sha256: str | None) -> Tail:
        """The last `size` bytes of `url`, in one request (`bytes=-size`).

        A server that ignores Range answers with the whole file: it is streamed to `spill`,
        checked against `sha256`, and the Tail says so (`whole`).
        """

        def consume(resp: http.client.HTTPResponse, final: str) -> Tail:
            if resp.status == 200:
                before = self.bytes_fetched
                digest = self._save(resp, final, spill, limits.MAX_DOWNLOAD_BYTES)
                verify(url, spill, digest, sha256)
                whole = Downloaded(sha256=digest, network_bytes=self.bytes_fetched - before)
                return Tail(0, spill.stat().st_size, b"", whole=whole)
            start, end, total = _content_range(url, resp)
            body = self._read_body(resp, final, size, "a tail answer")
            if end != total - 1 or len(body) != end - start + 1:
                raise _Retryable(f"a short answer to a tail request ({len(body)} bytes)")
            return Tail(start, total, body)

        headers = {"Range": f"bytes=-{size}"}
        return self._request(url, headers, consume)

    def fetch_range(self, url: str, start: int, end: int) -> bytes:
        """The bytes [start, end) of `url`, in one single-range request."""

        def consume(resp: http.client.HTTPResponse, final: str) -> bytes:
            if resp.status == 200:
                resp.close()
                raise FetchError(
                    f"{_basename(url)}: the server stopped honouring byte ranges",
                    hint="retry; a proxy may strip Range headers",
                )
            got_start, got_end, _ = _content_range(url, resp)
            body = self._read_body(resp, final, end - start, "a range answer")
            if (got_start, got_end) != (start, end - 1) or len(body) != end - start:
                raise _Retryable(f"asked for bytes {start}-{end - 1}, got {got_start}-{got_end}")
            return body

        headers = {"Range": f"bytes={start}-{end - 1}"}
        return self._request(url, headers, consume)

    # ----------------------------------------------------------------------- requests

    def _request(
        self,
        url: str,
        extra: dict[str, str],
        consume: Callable[[http.client.HTTPResponse, str], T],
    ) -> T:
        """GET `url` with retries; `consume` reads the answer (status 200 or 206)."""
        import http.client

        url, auth = self._authorize(url)
        if self.offline:
            raise FetchError(f"{url} needs the network and --offline was given", hint=NETWORK_HINT)
        _check_http(url)
        # files and ranges: the bytes the index stores, never re-encoded (pages ask for gzip)
        headers = {**auth, "User-Agent": self._user_agent, "Accept-Encoding": "identity", **extra}
        failure: Exception | None = None
        for delay in self._delays():
            if failure is not None:
                log.info("retrying %s in %.1fs after: %s", url, delay, failure)
                self._pause(delay)
            self._check_aborted(url)
            try:
                return self._exchange(url, headers, consume, self._deadline(url))
            except _Expired as exc:
                raise FetchError(f"cannot fetch {url}: {exc}", hint=NETWORK_HINT) from None
            except _Retryable as exc:
                failure = exc
            except (OSError, http.client.HTTPException) as exc:
                self._drop_connection(self._moved.get(url, url))
                failure = exc
        raise FetchError(f"cannot fetch {url}: {_reason(failure)}", hint=NETWORK_HINT) from failure

    def _deadline(self, url: str) -> float:
        """When this request must be done by, before its bytes earn it more time: now plus
        REQUEST_FACTOR read timeouts; FetchError when the run's own deadline has passed."""
        now = time.monotonic()
        if now >= self._ends:
            raise FetchError(
                f"cannot fetch {url}: the run's network time limit of "
                f"{self._deadline_seconds:g} s ({DEADLINE_ENV}) is used up",
                hint=f"raise {DEADLINE_ENV}, or check the network and the index",
            )
        return now + REQUEST_FACTOR * self.timeout

    def _exchange(
        self,
        url: str,
        headers: dict[str, str],
        consume: Callable[[http.client.HTTPResponse, str], T],
        deadline: float,
    ) -> T:
        """One request, following redirects; 5xx is _Retryable, other errors raise."""
        target = self._moved.get(url, url)
        for _ in range(MAX_REDIRECTS + 1):
            conn = self._connection_for(target)
            watch = self._watchdog.watch(conn, deadline, self._ends, self._deadline_seconds)
            with watch as watched:
                self._local.watched = watched
                resp = self._send(conn, target, _for_origin(headers, url, target), watched)
                location = resp.getheader("Location")
                if resp.status in _REDIRECTS and location:
                    self._read_body(resp, target, 1 << 20, "a redirect")
                    target = _redirected(target, str(location))
                    continue
                if resp.status in (200, 206):
                    self._moved[url] = target
                    try:
                        return consume(resp, target)
                    except BaseException:
                        self._drop_connection(target)  # its answer may not be read to the end
                        raise
                self._read_body(resp, target, 1 << 20, "an error answer")
            if resp.status in (404, 410):
                raise NotFound(url)
            if resp.status >= 500:
                raise _Retryable(f"HTTP {resp.status} {resp.reason}")
            raise FetchError(
                f"{url} answered {resp.status} {resp.reason}",
                hint="check the index URL and its credentials (--index-url, pip config)",
            )
        raise FetchError(f"{url} redirects more than {MAX_REDIRECTS} times", hint=NETWORK_HINT)

    def _send(
        self,
        conn: http.client.HTTPConnection,
        url: str,
        headers: dict[str, str],
        watched: _Watched,
    ) -> http.client.HTTPResponse:
        """GET over a kept-alive connection to the host, reconnecting once if the server
        closed it since the last request. The socket is handed to the watchdog as soon as
        it exists (a response that closes its connection takes the socket from `conn`)."""
        import http.client

        path = _request_target(url)
        for attempt in (1, 2):
            reused = conn.sock is not None
            self._count_request()
            began = time.monotonic()
            try:
                conn.request("GET", path, headers=headers)
                if not reused and time.monotonic() - began > SLOW_CONNECT:
                    log.info(
                        "connecting to %s took %.1fs (slow DNS or network)",
                        urlsplit(url).hostname, time.monotonic() - began,
                    )  # fmt: skip
                watched.sock = conn.sock
                if self._aborted.is_set():  # its socket may postdate abort()'s sweep
                    conn.close()
                    self._check_aborted(url)
                return conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionError) as exc:
                conn.close()
                if not reused or attempt == 2:
                    raise _Retryable(str(exc) or type(exc).__name__) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _connection_for(self, url: str) -> http.client.HTTPConnection:
        parts = urlsplit(url)
        return self._connection(parts.scheme, parts.netloc)

    def _connection(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        conns: dict[tuple[str, str], http.client.HTTPConnection]
        conns = self._local.__dict__.setdefault("connections", {})
        conn = conns.get((scheme, netloc))
        if conn is None:
            conn = _connect(
                scheme, netloc, self._context if scheme == "https" else None, self.timeout
            )
            conns[scheme, netloc] = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _drop_connection(self, url: str) -> None:
        parts = urlsplit(url)
        conns = self._local.__dict__.get("connections", {})
        conn = conns.get((parts.scheme, parts.netloc))
        if conn is not None:
            conn.close()

    # ----------------------------------------------------------------------- bodies

    def _chunks(
        self, resp: http.client.HTTPResponse, url: str, limit: int, what: str
    ) -> Iterator[bytes]:
        """The body in pieces as they arrive (read1: one socket read each, so the watchdog
        and the deadline see every byte); FetchError past `limit`, _Retryable when a body
        with a Content-Length ends early."""
        declared = _content_length(resp)
        if declared is not None and declared > limit:
            resp.close()
            raise _too_big(url, what, limit)
        total = 0
        watched: _Watched | None = getattr(self._local, "watched", None)
        while chunk := resp.read1(CHUNK_BYTES):
            total += len(chunk)
            if total > limit:
                resp.close()
                raise _too_big(url, what, limit)
            self._count(len(chunk))
            if watched is not None:
                watched.received += len(chunk)  # more time, at MIN_RATE
            yield chunk
        if declared is not None and total != declared:
            raise _Retryable(f"the answer ended after {total} of {declared} bytes")
        resp.read()  # nothing is left: this marks the answer done, so the connection is reused

    def _read_body(self, resp: http.client.HTTPResponse, url: str, limit: int, what: str) -> bytes:
        return b"".join(self._chunks(resp, url, limit, what))

    def _save(self, resp: http.client.HTTPResponse, url: str, dest: Path, limit: int) -> str:
        digest = hashlib.sha256()
        with dest.open("wb") as out:
            for chunk in self._chunks(resp, url, limit, "the file"):
                out.write(chunk)
                digest.update(chunk)
        return digest.hexdigest()

    # ----------------------------------------------------------------------- credentials

    def _authorize(self, url: str) -> tuple[str, dict[str, str]]:
        """The URL without credentials, and the Authorization for its origin, if known."""
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        origin = (parts.scheme.lower(), host.lower())
        if parts.username is not None:
            user, password = unquote(parts.username), unquote(parts.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            self._auth[origin] = f"Basic {token}"
            url = urlunsplit(parts._replace(netloc=host))
        return url, ({"Authorization": self._auth[origin]} if origin in self._auth else {})

    def _count(self, n: int) -> None:
        with self._lock:
            self.bytes_fetched += n

    def _count_request(self) -> None:
        with self._lock:
            self.requests_made += 1

    def _delays(self) -> Iterator[float]:
        """0 for the first attempt, then the backoff before each retry."""
        schedule = RETRY_DELAYS or (0.0,)
        yield 0.0
        for i in range(self.retries):
            yield schedule[min(i, len(schedule) - 1)]


# --------------------------------------------------------------------------- settings


def _seconds_from_env(name: str, default: float, most: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= most:
        raise ConfigError(
            f"{name}={raw!r} is not a number of seconds from 0 to {most:g}",
            hint=f"set {name} to a positive number, e.g. 10, or unset it ({default:g} s)",
        )
    return value


def _retries_from_env() -> int:
    raw = os.environ.get(RETRIES_ENV, "").strip()
    if not raw:
        return len(RETRY_DELAYS)
    if not raw.isdigit() or int(raw) > MAX_RETRIES:
        raise ConfigError(
            f"{RETRIES_ENV}={raw!r} is not a number of retries from 0 to {MAX_RETRIES}",
            hint=f"set {RETRIES_ENV} to 0 to {MAX_RETRIES}, or unset it (3)",
        )
    return int(raw)


# --------------------------------------------------------------------------- helpers


def verify(url: str, dest: Path, digest: str, sha256: str | None) -> None:
    """ArchiveError (and `dest` removed) when `digest` is not the `sha256` the index gave."""
    if sha256 and digest != sha256.lower():
        dest.unlink(missing_ok=True)
        raise ArchiveError(
            f"{_basename(url)} does not match the sha256 the index gave "
            f"(expected {sha256[:16]}..., got {digest[:16]}...)",
            hint=CORRUPT_HINT,
        )


def _too_big(url: str, what: str, limit: int) -> FetchError:
    return FetchError(
        f"{_basename(url) or url}: {what} is over the limit of {limit} bytes",
        hint="the index serves more than a release or page can hold; check where it comes from",
    )


def _read_local_page(url: str) -> Page:
    """A page of a folder index; NotFound for a name no file can have (too long: a project
    name comes from the index's listing, which may be another index's, and hostile)."""
    path = local_path(url)
    try:
        if path.is_dir():
            path = path / "index.html"
        if not path.exists():
            raise NotFound(url)
        body = read_file(path, limit=limits.MAX_PAGE_BYTES)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise NotFound(url) from exc
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", hint=NETWORK_HINT) from exc
    kind = "application/vnd.pypi.simple.v1+json" if path.suffix == ".json" else "text/html"
    return Page(body, kind, path.as_uri())
