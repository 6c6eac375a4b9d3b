# Maintainers: HTTP connections, through the proxy the environment names.
#
# Owns: opening an http.client connection for a scheme and host (directly, through an HTTP
#       proxy, or tunnelled with CONNECT for https, with the proxy's own credentials), the
#       TLS context (a CA file when configured), the request target a proxy or a server
#       expects, a response class that refuses an answer cut inside its headers, and reading
#       Content-Length and Content-Range. Part of fetch.py, the one network client: nothing
#       else opens a socket.
# Takes: scheme, netloc, TLS context, timeout. Gives: http.client connections; values of
# headers, or FetchError.
"""HTTP(S) connections and response headers, for fetch.py."""

from __future__ import annotations

import base64
import functools
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit, urlunsplit

from auditor.errors import FetchError
from auditor.sources.urls import NETWORK_HINT, _basename

if TYPE_CHECKING:
    import http.client
    import socket
    import ssl
    from io import BufferedReader


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
