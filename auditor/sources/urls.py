# Maintainers: URLs as the network client checks, redacts and follows them; no I/O.
#
# Owns: checking an index URL (`check_index_url`: http(s) with a host, or file, or an existing
#       folder; no space or control character), keeping credentials out of what is shown or
#       kept (`redact`, `redact_text`, `without_credentials`), where a redirect may lead (only
#       http(s)), the origin (scheme, host and port) credentials are bound to, and the hints
#       a network or index-URL error carries.
# Takes: URL strings. Gives: URL strings, or ConfigError / FetchError; pure, used by fetch.py.
"""URL checks and credential redaction for the network client."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from auditor.errors import ConfigError, FetchError

NETWORK_HINT = (
    "check the network (and any proxy), pass --index-url for a reachable index, "
    "or --offline to use only the cache"
)
INDEX_URL_HINT = (
    "pass the index's simple-API URL, e.g. https://host/simple (a space as %20), or a local "
    "folder laid out the same way (a path, or file:///abs/path)"
)


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


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.rpartition("@")[2].lower()


def _for_origin(headers: dict[str, str], original: str, target: str) -> dict[str, str]:
    """The headers for `target`: no Authorization once a redirect leaves the original
    scheme, host and port."""
    if _origin(original) == _origin(target):
        return headers
    return {k: v for k, v in headers.items() if k.lower() != "authorization"}
