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
"""Fetching URLs: index pages and archives (whole or by byte ranges), over HTTP(S) or file://."""

from __future__ import annotations

import base64
import contextlib
import errno
import functools
import hashlib
import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from auditor.errors import ArchiveError, ConfigError, FetchError
from auditor.files import open_regular, read_file
from auditor.sources import limits
from auditor.sources.specs import is_local_url, local_path

if TYPE_CHECKING:
    import http.client
    import socket
    import ssl
    from collections.abc import Callable, Iterable, Iterator
    from concurrent.futures import ThreadPoolExecutor
    from io import BufferedReader

T = TypeVar("T")
log = logging.getLogger("drift_audit")

TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 3600.0
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.5, 4.0)  # three retries after the first attempt
MAX_RETRIES = 10
DEADLINE_SECONDS = 1800.0  # the network time of one run, at most
REQUEST_FACTOR = 10.0  # one request may take this many read timeouts in all
MIN_RATE = 64 * 1024  # bytes per second a big download is given time for, at least
TIMEOUT_ENV = "DRIFT_AUDIT_TIMEOUT"
RETRIES_ENV = "DRIFT_AUDIT_RETRIES"
DEADLINE_ENV = "DRIFT_AUDIT_DEADLINE"
CHUNK_BYTES = 1 << 20
WORKERS = 8  # concurrent range requests (each worker keeps its own connection per host)
MAX_REDIRECTS = 5
NETWORK_HINT = (
    "check the network (and any proxy), pass --index-url for a reachable index, "
    "or --offline to use only the cache"
)
SLOW_CONNECT = 1.0  # seconds to resolve and connect past which -v says so
CORRUPT_HINT = "retry; if it persists the index or a proxy serves a corrupt file"
INDEX_URL_HINT = (
    "pass the index's simple-API URL, e.g. https://host/simple (a space as %20), or a local "
    "folder laid out the same way (a path, or file:///abs/path)"
)
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


class _Expired(Exception):
    """The watchdog cut a request off at its deadline (never retried: it would only wait
    again)."""


@dataclass(frozen=True)
class Page:
    body: bytes
    content_type: str
    url: str  # after redirects: relative links resolve against it


@dataclass(frozen=True)
class Downloaded:
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


# --------------------------------------------------------------------------- the watchdog


@dataclass(eq=False)  # kept in a set by identity
class _Watched:
    """One request the watchdog looks after: its deadline and what to shut."""

    deadline: float  # before any byte arrives
    hard: float  # the run's own deadline: never later than this
    conn: http.client.HTTPConnection
    sock: socket.socket | None = None
    received: int = 0  # body bytes so far (each buys 1/MIN_RATE s)
    fired: bool = False
    why: str = ""

    def due(self) -> float:
        return min(self.deadline + self.received / MIN_RATE, self.hard)

    def shut(self) -> None:
        import socket

        for sock in (self.sock, self.conn.sock):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One thread that shuts the socket of any request still running at its deadline.

    A per-read timeout cannot stop a server that sends one byte a second; this does. It is
    started by the first request (a run from the cache never starts it)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: set[_Watched] = set()
        self._thread: threading.Thread | None = None
        self._stopped = False

    @contextlib.contextmanager
    def watch(
        self, conn: http.client.HTTPConnection, deadline: float, hard: float, run_limit: float
    ) -> Iterator[_Watched]:
        watched = _Watched(deadline, hard, conn)
        self._arm(watched)
        try:
            yield watched
        except Exception:
            if self._disarm(watched):
                raise _Expired(_expired_reason(watched, run_limit)) from None
            raise
        if self._disarm(watched):
            raise _Expired(_expired_reason(watched, run_limit))

    def _arm(self, watched: _Watched) -> None:
        with self._cond:
            self._armed.add(watched)
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(
                    target=self._run, name="drift-audit-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def _disarm(self, watched: _Watched) -> bool:
        """Forget a request; whether the watchdog had cut it off."""
        with self._cond:
            self._armed.discard(watched)
            return watched.fired

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                for watched in [w for w in self._armed if w.due() <= now]:
                    self._armed.discard(watched)
                    watched.fired = True
                    watched.shut()
                upcoming = [w.due() for w in self._armed]
                self._cond.wait(max(min(upcoming) - now, 0.01) if upcoming else None)


def _expired_reason(watched: _Watched, run_limit: float) -> str:
    if watched.due() >= watched.hard:
        return (
            f"the run's network time limit ({DEADLINE_ENV}={run_limit:g} s) ran out during "
            "the request"
        )
    return (
        f"the request took longer than its deadline ({REQUEST_FACTOR:g} read timeouts, plus "
        f"time for what arrived at {MIN_RATE // 1024} KiB/s): the server is too slow or "
        "trickles its answer"
    )


def _shut(conn: http.client.HTTPConnection) -> None:
    _Watched(0.0, 0.0, conn).shut()


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


def check_index_url(url: str, *, origin: str | None = None) -> str:
    """The index URL to use: an http(s) URL with a host or a file URL as given, or an existing
    folder as a file:// URL. ConfigError for anything else (a malformed URL, one without a
    host, with a space or a control character in it, a missing path, ftp:), naming `origin`
    (`--index-url`, `PIP_INDEX_URL`, ...) when given."""
    text = url.strip()
    shown = repr(redact_text(text)) + (f" (from {origin})" if origin else "")
    try:
        parts = urlsplit(text)
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise _bad_index(f"the index URL {shown} is not a URL: {exc}") from None
    if parts.scheme in ("http", "https", "file") and (odd := _odd_character(text)):
        raise _bad_index(f"the index URL {shown} contains {odd}")
    if parts.scheme in ("http", "https"):
        if not parts.hostname:
            raise _bad_index(f"the index URL {shown} has no host")
        return text
    if parts.scheme == "file":
        return text
    if len(parts.scheme) <= 1:  # a path (or a Windows drive letter)
        folder = Path(text).expanduser()
        if folder.is_dir():
            return folder.resolve().as_uri()
        raise _bad_index(f"the index {shown} is neither a URL nor a folder")
    raise _bad_index(f"the index URL {shown} is not http(s) or file")


def _odd_character(text: str) -> str | None:
    """What makes `text` no URL as typed: a space or another character a URL cannot hold."""
    for char in text:
        if char.isspace():
            return "a space" if char == " " else f"a blank character ({char!r})"
        if ord(char) < 32 or ord(char) == 127:
            return f"a control character ({char!r})"
    return None


def _bad_index(message: str) -> ConfigError:
    return ConfigError(message, hint=INDEX_URL_HINT)


# --------------------------------------------------------------------------- helpers


def _basename(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def redact(url: str) -> str:
    """The URL without its password (for messages)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return redact_text(url)
    if password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def redact_text(text: str) -> str:
    """`user:secret@` in text that may not parse as a URL becomes `user:***@`."""
    head, at, tail = text.rpartition("@")
    if not at or ":" not in head:
        return text
    scheme, sep, userinfo = head.rpartition("//")
    user = userinfo.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{tail}"


def without_credentials(url: str) -> str:
    """The URL without user:password (what the cache may keep; the index URL supplies them)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def verify(url: str, dest: Path, digest: str, sha256: str | None) -> None:
    """ArchiveError (and `dest` removed) when `digest` is not the `sha256` the index gave."""
    if sha256 and digest != sha256.lower():
        dest.unlink(missing_ok=True)
        raise ArchiveError(
            f"{_basename(url)} does not match the sha256 the index gave "
            f"(expected {sha256[:16]}..., got {digest[:16]}...)",
            hint=CORRUPT_HINT,
        )


def _check_http(url: str) -> None:
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise FetchError(f"cannot fetch {url}: not an http(s) URL", hint=INDEX_URL_HINT)


def _redirected(current: str, location: str) -> str:
    """Where a redirect leads; FetchError when that is not http(s) (a file:// URL, say)."""
    try:
        target = urljoin(current, location)
        scheme = urlsplit(target).scheme.lower()
    except ValueError as exc:
        raise FetchError(
            f"{current} redirects to a malformed URL: {exc}", hint=NETWORK_HINT
        ) from None
    if scheme not in ("http", "https"):
        raise FetchError(
            f"{current} redirects to a {scheme or 'relative'}: URL, which is never followed",
            hint=NETWORK_HINT,
        )
    return target


def _too_big(url: str, what: str, limit: int) -> FetchError:
    return FetchError(
        f"{_basename(url) or url}: {what} is over the limit of {limit} bytes",
        hint="the index serves more than a release or page can hold; check where it comes from",
    )


def _content_length(resp: http.client.HTTPResponse) -> int | None:
    value = resp.getheader("Content-Length")
    return int(value) if value is not None and value.strip().isdigit() else None


def _reason(exc: Exception | None) -> str:
    import socket

    if isinstance(exc, (TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return str(exc) or type(exc).__name__


def _content_range(url: str, resp: http.client.HTTPResponse) -> tuple[int, int, int]:
    """(first, last, total) from a 206's Content-Range: `bytes 100-199/1000`."""
    value = str(resp.getheader("Content-Range") or "")
    unit, _, rest = value.partition(" ")
    span, _, total = rest.partition("/")
    first, _, last = span.partition("-")
    if unit != "bytes" or not (first.isdigit() and last.isdigit() and total.isdigit()):
        resp.close()
        raise FetchError(
            f"{_basename(url)}: a partial answer without a usable Content-Range ({value!r})",
            hint=NETWORK_HINT,
        )
    return int(first), int(last), int(total)


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.rpartition("@")[2].lower()


def _for_origin(headers: dict[str, str], original: str, target: str) -> dict[str, str]:
    """The headers for `target`: no Authorization once a redirect leaves the original
    scheme, host and port."""
    if _origin(original) == _origin(target):
        return headers
    return {k: v for k, v in headers.items() if k.lower() != "authorization"}


def _request_target(url: str) -> str:
    parts = urlsplit(url)
    if _proxy_for(parts.scheme, parts.hostname or "") and parts.scheme == "http":
        return urlunsplit(parts._replace(fragment=""))  # a plain-HTTP proxy takes the whole URL
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _connect(
    scheme: str, netloc: str, context: ssl.SSLContext | None, timeout: float
) -> http.client.HTTPConnection:
    """A connection to `netloc`, through the proxy the environment names for it, if any,
    whose answers must end their headers (`_response_class`)."""
    conn = _open(scheme, netloc, context, timeout)
    conn.response_class = _response_class()
    return conn


def _open(
    scheme: str, netloc: str, context: ssl.SSLContext | None, timeout: float
) -> http.client.HTTPConnection:
    import http.client

    parts = urlsplit(f"//{netloc}")
    host, port = parts.hostname or "", parts.port
    proxy = _proxy_for(scheme, host)
    if proxy is None:
        if scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        return http.client.HTTPConnection(host, port, timeout=timeout)
    via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    auth = {}
    if via.username is not None:
        token = base64.b64encode(f"{unquote(via.username)}:{unquote(via.password or '')}".encode())
        auth["Proxy-Authorization"] = f"Basic {token.decode()}"
    if scheme == "https":
        conn = http.client.HTTPSConnection(
            via.hostname or "", via.port or 80, timeout=timeout, context=context
        )
        conn.set_tunnel(host, port, headers=auth)
        return conn
    return http.client.HTTPConnection(via.hostname or "", via.port or 80, timeout=timeout)


class _HeaderWatch:
    """A response's stream that notes a line ending where the stream does (no newline): the
    connection closed inside the status line or the headers."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.cut = False

    def readline(self, limit: int = -1) -> bytes:
        line = self._stream.readline(limit)
        if not line.endswith(b"\n"):
            self.cut = True
        return line

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


@functools.cache
def _response_class() -> type[http.client.HTTPResponse]:
    """http.client's response, except that an answer cut inside its headers is an error.

    http.client takes the end of the connection for the blank line that ends the headers:
    `HTTP/1.1 200 OK`, part of a header, then a close reads as a complete answer with an
    empty body, which would be kept as a page with no files. Here it is a failure (retried,
    then a FetchError), never an answer."""
    import http.client

    class Response(http.client.HTTPResponse):
        def __init__(self, sock: socket.socket, *args: Any, **kwargs: Any) -> None:
            super().__init__(sock, *args, **kwargs)
            self._watch = _HeaderWatch(self.fp)
            self.fp = cast("BufferedReader", self._watch)

        def begin(self) -> None:
            super().begin()
            if self._watch.cut:
                self.close()
                raise http.client.HTTPException("the answer ended inside its headers")

    return Response


def _proxy_for(scheme: str, host: str) -> str | None:
    from urllib.request import getproxies, proxy_bypass

    proxy = getproxies().get(scheme)
    if not proxy or proxy_bypass(host):
        return None
    return proxy


def _ssl_context(cafile: str | None) -> ssl.SSLContext:
    import ssl

    if cafile and Path(cafile).is_file():
        return ssl.create_default_context(cafile=cafile)
    return ssl.create_default_context()


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


def _gunzip(chunks: Iterable[bytes], url: str, limit: int) -> bytes:
    """A gzip body decoded, never to more than `limit` bytes (a small answer that inflates
    without end is refused as it grows, not after); FetchError when it is not gzip or ends
    early."""
    import zlib

    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    size = 0
    try:
        for chunk in chunks:
            piece = decoder.decompress(chunk, limit - size + 1)
            size += len(piece)
            if size > limit or decoder.unconsumed_tail:
                raise FetchError(
                    f"{url}: the page is over {limit} bytes once decompressed",
                    hint="check the index URL; a project page is far smaller",
                )
            out.append(piece)
        out.append(decoder.flush())
    except zlib.error as exc:
        raise FetchError(f"{url}: the gzip answer is corrupt ({exc})", hint=NETWORK_HINT) from exc
    if not decoder.eof:
        raise FetchError(f"{url}: the gzip answer ends early", hint=NETWORK_HINT)
    return b"".join(out)


def _copy_local(url: str, dest: Path) -> str:
    path = local_path(url)
    try:
        with open_regular(path, limit=limits.MAX_DOWNLOAD_BYTES) as source, dest.open("wb") as out:
            digest = _stream(source, out)
    except FileNotFoundError as exc:
        raise FetchError(
            f"the index lists {path} but the file is missing", hint=NETWORK_HINT
        ) from exc
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", hint=NETWORK_HINT) from exc
    return digest


def _stream(source: IO[bytes], out: IO[bytes]) -> str:
    digest = hashlib.sha256()
    size = 0
    while chunk := source.read(CHUNK_BYTES):
        size += len(chunk)
        if size > limits.MAX_DOWNLOAD_BYTES:  # a file that grows while it is copied
            raise OSError(27, "over the download limit")
        out.write(chunk)
        digest.update(chunk)
    return digest.hexdigest()
