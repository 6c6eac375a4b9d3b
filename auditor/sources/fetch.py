# Maintainers: the only code that touches the network (and file:// URLs the same way).
#
# Owns: HTTP GET with a User-Agent, a timeout and retries with backoff on connection errors,
#       timeouts and 5xx (DRIFT_AUDIT_TIMEOUT seconds per socket operation, default 30;
#       DRIFT_AUDIT_RETRIES retries, default 3, backoff 0.5 s, 1.5 s, 4 s, then 4 s each);
#       streaming a download to a file while hashing it; single-range GETs (`fetch_tail`,
#       `fetch_range`) over kept-alive connections, one per host per thread, with a small
#       thread pool for concurrent member fetches; the byte and request counts of this run.
# Takes: URLs. Gives: Page (body, content type, final URL), a file on disk plus its sha256, or
# the bytes of one range. `abort_all` (Ctrl-C) stops every fetcher at once: queued range
# requests are cancelled and sockets shut, so worker threads blocked on a slow server end and
# the process can exit now, not after the timeout. A 404/410 is `NotFound` (the index
# decides what it means); other failures are FetchError; a hash mismatch is ArchiveError.
# With offline=True a network URL is refused outright. Credentials in an index URL
# (https://user:token@host/simple) become a Basic Authorization header, reused for files on
# the same host, never sent to another host after a redirect, and never shown in messages
# (`redact`).
# Never a multi-range request (`bytes=a-b,c-d`): some servers answer it with the whole body.
# A ranged request answered 200 (the server ignores Range) is the whole file: `fetch_tail`
# streams it to disk for the caller to use as a whole download. The network modules (ssl,
# http.client, urllib.request) are imported on first use, so a run from the cache skips them.
"""Fetching URLs: index pages and archives (whole or by byte ranges), over HTTP(S) or file://."""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import logging
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from auditor.errors import ArchiveError, ConfigError, FetchError
from auditor.sources.specs import is_local_url, local_path

if TYPE_CHECKING:
    import http.client
    import ssl
    from collections.abc import Callable
    from concurrent.futures import ThreadPoolExecutor
    from urllib.request import OpenerDirector

T = TypeVar("T")
log = logging.getLogger("drift_audit")

TIMEOUT_SECONDS = 30.0
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.5, 4.0)  # three retries after the first attempt
TIMEOUT_ENV = "DRIFT_AUDIT_TIMEOUT"
RETRIES_ENV = "DRIFT_AUDIT_RETRIES"
CHUNK_BYTES = 1 << 20
WORKERS = 8  # concurrent range requests (each worker keeps its own connection per host)
MAX_REDIRECTS = 5
NETWORK_HINT = (
    "check the network (and any proxy), pass --index-url for a reachable index, "
    "or --offline to use only the cache"
)
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
    """A failure worth another attempt (connection trouble, a 5xx)."""


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
    ) -> None:
        """`timeout` (seconds per socket operation) and `retries` default to
        $DRIFT_AUDIT_TIMEOUT and $DRIFT_AUDIT_RETRIES, else 30 s and 3."""
        self.offline = offline
        self.timeout = timeout if timeout is not None else _timeout_from_env()
        self.retries = retries if retries is not None else _retries_from_env()
        self.bytes_fetched = 0
        self.requests_made = 0
        self._cafile = cafile
        self._auth: dict[str, str] = {}  # host -> Authorization header
        self._lock = threading.Lock()
        self._local = threading.local()  # per thread: (scheme, netloc) -> connection
        self._connections: list[http.client.HTTPConnection] = []
        self._moved: dict[str, str] = {}  # URL -> where it redirected to last time
        self._pool: ThreadPoolExecutor | None = None
        self._aborted = threading.Event()
        _LIVE.add(self)

    @functools.cached_property
    def _user_agent(self) -> str:
        return _user_agent()

    @functools.cached_property
    def _context(self) -> ssl.SSLContext:
        return _ssl_context(self._cafile)

    @functools.cached_property
    def _opener(self) -> OpenerDirector:
        from urllib.request import HTTPSHandler, build_opener

        return build_opener(HTTPSHandler(context=self._context))

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

    def abort(self) -> None:
        """Cancel queued range requests and shut every kept-alive socket, waking the threads
        that wait on them; from now on every request fails at once."""
        import socket

        self._aborted.set()
        with self._lock:
            pool, connections = self._pool, list(self._connections)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for conn in connections:
            sock = conn.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

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

        def consume(resp: http.client.HTTPResponse) -> Tail:
            if resp.status == 200:
                before = self.bytes_fetched
                digest = self._save(resp, spill)
                verify(url, spill, digest, sha256)
                whole = Downloaded(sha256=digest, network_bytes=self.bytes_fetched - before)
                return Tail(0, spill.stat().st_size, b"", whole=whole)
            start, end, total = _content_range(url, resp)
            body = self._read_body(resp)
            if end != total - 1 or len(body) != end - start + 1:
                raise _Retryable(f"a short answer to a tail request ({len(body)} bytes)")
            return Tail(start, total, body)

        return self._ranged(url, f"bytes=-{size}", consume)

    def fetch_range(self, url: str, start: int, end: int) -> bytes:
        """The bytes [start, end) of `url`, in one single-range request."""

        def consume(resp: http.client.HTTPResponse) -> bytes:
            if resp.status == 200:
                resp.close()
                raise FetchError(
                    f"{_basename(url)}: the server stopped honouring byte ranges",
                    hint="retry; a proxy may strip Range headers",
                )
            got_start, got_end, _ = _content_range(url, resp)
            body = self._read_body(resp)
            if (got_start, got_end) != (start, end - 1) or len(body) != end - start:
                raise _Retryable(f"asked for bytes {start}-{end - 1}, got {got_start}-{got_end}")
            return body

        return self._ranged(url, f"bytes={start}-{end - 1}", consume)

    def _ranged(
        self, url: str, byte_range: str, consume: Callable[[http.client.HTTPResponse], T]
    ) -> T:
        import http.client

        url, auth = self._authorize(url)
        if self.offline:
            raise FetchError(f"{url} needs the network and --offline was given", hint=NETWORK_HINT)
        headers = {**auth, "User-Agent": self._user_agent, "Range": byte_range}
        headers["Accept-Encoding"] = "identity"  # ranges of the stored bytes, never re-encoded
        failure: Exception | None = None
        for delay in self._delays():
            if failure is not None:
                log.debug("retrying %s in %.1fs after: %s", url, delay, failure)
                self._pause(delay)
            self._check_aborted(url)
            try:
                return self._exchange(url, headers, consume)
            except _Retryable as exc:
                failure = exc
            except (OSError, http.client.HTTPException) as exc:
                self._drop_connection(self._moved.get(url, url))
                failure = exc
        raise FetchError(f"cannot fetch {url}: {_reason(failure)}", hint=NETWORK_HINT) from failure

    def _exchange(
        self, url: str, headers: dict[str, str], consume: Callable[[http.client.HTTPResponse], T]
    ) -> T:
        """One request, following redirects; 5xx is _Retryable, other errors raise."""
        target = self._moved.get(url, url)
        for _ in range(MAX_REDIRECTS + 1):
            resp = self._send(target, _for_host(headers, url, target))
            if resp.status in _REDIRECTS and resp.getheader("Location"):
                resp.read()
                target = urljoin(target, str(resp.getheader("Location")))
                continue
            if resp.status in (200, 206):
                self._moved[url] = target
                try:
                    return consume(resp)
                except BaseException:
                    self._drop_connection(target)  # its answer may not have been read to the end
                    raise
            resp.read()
            if resp.status in (404, 410):
                raise NotFound(url)
            if resp.status >= 500:
                raise _Retryable(f"HTTP {resp.status} {resp.reason}")
            raise FetchError(
                f"{url} answered {resp.status} {resp.reason}",
                hint="check the index URL and its credentials (--index-url, pip config)",
            )
        raise FetchError(f"{url} redirects more than {MAX_REDIRECTS} times", hint=NETWORK_HINT)

    def _send(self, url: str, headers: dict[str, str]) -> http.client.HTTPResponse:
        """GET over this thread's kept-alive connection to the host, reconnecting once if the
        server closed it since the last request."""
        import http.client

        parts = urlsplit(url)
        conn, path = self._connection(parts.scheme, parts.netloc), _request_target(url)
        for attempt in (1, 2):
            reused = conn.sock is not None
            self._count_request()
            try:
                conn.request("GET", path, headers=headers)
                if self._aborted.is_set():  # its socket may postdate abort()'s sweep
                    conn.close()
                    self._check_aborted(url)
                return conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionError) as exc:
                conn.close()
                if not reused or attempt == 2:
                    raise _Retryable(str(exc) or type(exc).__name__) from exc
        raise AssertionError("unreachable")  # pragma: no cover

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

    def _read_body(self, resp: http.client.HTTPResponse) -> bytes:
        body = resp.read()
        self._count(len(body))
        return body

    # ----------------------------------------------------------------------- urllib

    def _read_page(self, resp: http.client.HTTPResponse) -> Page:
        body = self._read_body(resp)
        return Page(body, resp.headers.get_content_type(), resp.geturl())

    def _save(self, resp: http.client.HTTPResponse, dest: Path) -> str:
        import http.client

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
        with self._lock:
            self.bytes_fetched += n

    def _count_request(self) -> None:
        with self._lock:
            self.requests_made += 1

    def _with_retries(
        self, url: str, accept: str, consume: Callable[[http.client.HTTPResponse], T]
    ) -> T:
        import http.client
        from urllib.error import HTTPError, URLError
        from urllib.request import Request

        url, headers = self._authorize(url)
        if self.offline:
            raise FetchError(f"{url} needs the network and --offline was given", hint=NETWORK_HINT)
        request = Request(
            url, headers={**headers, "User-Agent": self._user_agent, "Accept": accept}
        )
        failure: Exception | None = None
        for delay in self._delays():
            if failure is not None:
                log.debug("retrying %s in %.1fs after: %s", url, delay, failure)
                self._pause(delay)
            self._check_aborted(url)
            self._count_request()
            try:
                with self._opener.open(request, timeout=self.timeout) as resp:
                    return consume(resp)
            except HTTPError as exc:
                exc.close()
                _raise_unless_retryable(url, exc.code, str(exc.reason), exc)
                failure = exc
            except (URLError, OSError, http.client.HTTPException) as exc:
                failure = exc
        raise FetchError(f"cannot fetch {url}: {_reason(failure)}", hint=NETWORK_HINT) from failure

    def _delays(self) -> tuple[float, ...]:
        """0 for the first attempt, then the backoff before each retry."""
        schedule = RETRY_DELAYS or (0.0,)
        return (0.0, *(schedule[min(i, len(schedule) - 1)] for i in range(self.retries)))


def _timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return TIMEOUT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ConfigError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds",
            hint=f"set {TIMEOUT_ENV} to a positive number, e.g. 10, or unset it (30 s)",
        )
    return value


def _retries_from_env() -> int:
    raw = os.environ.get(RETRIES_ENV, "").strip()
    if not raw:
        return len(RETRY_DELAYS)
    if not raw.isdigit():
        raise ConfigError(
            f"{RETRIES_ENV}={raw!r} is not a number of retries",
            hint=f"set {RETRIES_ENV} to 0 or more, or unset it (3)",
        )
    return int(raw)


def _basename(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def redact(url: str) -> str:
    """The URL without its password (for messages and the cache)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def without_credentials(url: str) -> str:
    """The URL without user:password (what the cache may keep; the index URL supplies them)."""
    parts = urlsplit(url)
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


def _raise_unless_retryable(url: str, code: int, reason: str, exc: Exception) -> None:
    if code in (404, 410):
        raise NotFound(url) from None
    if code < 500:
        raise FetchError(
            f"{url} answered {code} {reason}",
            hint="check the index URL and its credentials (--index-url, pip config)",
        ) from exc


def _reason(exc: Exception | None) -> str:
    from urllib.error import HTTPError, URLError

    if isinstance(exc, HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, URLError):
        return str(exc.reason)
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


def _for_host(headers: dict[str, str], original: str, target: str) -> dict[str, str]:
    """The headers for `target`: no Authorization once a redirect leaves the original host."""
    if urlsplit(original).netloc == urlsplit(target).netloc:
        return headers
    return {k: v for k, v in headers.items() if k != "Authorization"}


def _request_target(url: str) -> str:
    parts = urlsplit(url)
    if _proxy_for(parts.scheme, parts.hostname or "") and parts.scheme == "http":
        return urlunsplit(parts._replace(fragment=""))  # a plain-HTTP proxy takes the whole URL
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _connect(
    scheme: str, netloc: str, context: ssl.SSLContext | None, timeout: float
) -> http.client.HTTPConnection:
    """A connection to `netloc`, through the proxy the environment names for it, if any."""
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
