# Maintainers: the simple repository API, as data.
#
# Owns: a project's page URL (PEP 503 name normalisation), parsing the page as PEP 691 JSON or
#       PEP 503 HTML (sha256 fragments, data-requires-python, data-yanked), the version of each
#       file from its name, and which file of a release to read (pure wheel > wheel for this
#       platform > any wheel > sdist: every wheel carries the same .py files).
#       The index root too (`parse_root`: every project's name, PEP 691 `projects` or PEP 503
#       anchors), and whether a file's core metadata is served beside it (PEP 658/714:
#       `core-metadata` / `dist-info-metadata` keys, `data-core-metadata` /
#       `data-dist-info-metadata` attributes, with the sha256 of `<file>.metadata` if given).
# Takes: page bytes. Gives: DistFile records (also what the page cache stores, as JSON), with
# the file's size when the JSON page gives it (PEP 700): small wheels are then read whole.
# Files whose names do not parse as a wheel or a .tar.gz/.zip sdist (eggs, installers) are
# skipped: they cannot be read without building or running something.
"""Simple repository API pages: parsing, file versions and file choice."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from auditor.errors import FetchError
from auditor.jsontext import loads

if TYPE_CHECKING:
    from packaging.tags import Tag

log = logging.getLogger("drift_audit")

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
ACCEPT = f"{JSON_TYPE}, text/html;q=0.1"


@dataclass(frozen=True)
class DistFile:
    """One file of one release, as the index lists it."""

    filename: str
    url: str
    version: str  # normalised PEP 440, from the file name
    sha256: str | None = None
    requires_python: str | None = None
    yanked: bool = False
    size: int | None = None  # bytes, when the index says (PEP 700)
    core_metadata: bool = False  # `<url>.metadata` holds the file's METADATA (PEP 658/714)
    core_metadata_sha256: str | None = None  # that file's sha256, when the index gives it
    upload_time: float | None = None  # seconds since the epoch, when the index says (PEP 700)

    def to_json(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "url": self.url,
            "version": self.version,
            "sha256": self.sha256,
            "requires_python": self.requires_python,
            "yanked": self.yanked,
            "size": self.size,
            "core_metadata": self.core_metadata,
            "core_metadata_sha256": self.core_metadata_sha256,
            "upload_time": self.upload_time,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], index_url: str) -> DistFile:
        """A row of the page cache; ValueError when a field is not what to_json writes, or
        the URL is one the index may not name (see `allowed_file_url`)."""
        if not isinstance(data, dict) or set(data) not in _ROW_SHAPES:
            raise ValueError("not a page cache row")
        texts = ("filename", "url", "version")
        if not all(isinstance(data[k], str) for k in texts):
            raise ValueError("a text field is not a string")
        if not all(data[k] is None or isinstance(data[k], str) for k in ("requires_python",)):
            raise ValueError("requires_python is not a string")
        size = data["size"]
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
            raise ValueError("size is not a number of bytes")
        if not isinstance(data["yanked"], bool) or not _sha256_or_none(data["sha256"]):
            raise ValueError("yanked or sha256 is malformed")
        if not allowed_file_url(index_url, data["url"]):
            raise ValueError("a file URL the index may not name")
        if not isinstance(data.get("core_metadata", False), bool):
            raise ValueError("core_metadata is not a boolean")
        if not _sha256_or_none(data.get("core_metadata_sha256")):
            raise ValueError("core_metadata_sha256 is malformed")
        if _seconds(data.get("upload_time")) != data.get("upload_time"):
            raise ValueError("upload_time is not a time")
        return cls(**data)


_OLD_FIELDS = ("filename", "url", "version", "sha256", "requires_python", "yanked", "size")
_PEP658_FIELDS = (*_OLD_FIELDS, "core_metadata", "core_metadata_sha256")  # rows before 658: old
_FIELDS = (*_PEP658_FIELDS, "upload_time")  # rows written before upload times: PEP 658's
_ROW_SHAPES = (set(_FIELDS), set(_PEP658_FIELDS), set(_OLD_FIELDS))
_LATEST_UPLOAD = 4102444800.0  # 2100-01-01: a time past it is not an upload time


def _seconds(value: object) -> float | None:
    """An upload time kept in the page cache: a number of seconds, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < _LATEST_UPLOAD else None


def _upload_time(value: object) -> float | None:
    """PEP 700's `upload-time` (ISO 8601, UTC, `Z`), as seconds; None when absent or odd."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return _seconds(when.timestamp())


_HEX64 = frozenset("0123456789abcdef")


def is_sha256(value: object) -> bool:
    """Whether `value` is a sha256 as hex text (64 lowercase hex digits)."""
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX64


def _sha256_or_none(value: object) -> bool:
    return value is None or is_sha256(value)


def allowed_file_url(index_url: str, file_url: str) -> bool:
    """Whether an index at `index_url` may send us to `file_url`: an index over HTTP(S) may
    name only HTTP(S) files (never file:// paths on this machine, such as /dev/zero or a
    FIFO); a local (file://) index may name local files too."""
    try:
        scheme = urlsplit(file_url).scheme.lower()
        index_scheme = urlsplit(index_url).scheme.lower()
    except ValueError:
        return False
    if scheme in ("http", "https"):
        return True
    return scheme == "file" and index_scheme == "file"


def project_url(index_url: str, name: str) -> str:
    """`<index>/<normalised-name>/`, as PEP 503 spells a project page."""
    return f"{index_url.rstrip('/')}/{canonicalize_name(name)}/"


def root_url(index_url: str) -> str:
    """`<index>/`: the page listing every project (PEP 503 root, PEP 691 `projects`)."""
    return f"{index_url.rstrip('/')}/"


def metadata_url(file: DistFile) -> str:
    """Where a file's core metadata is served when the page says so: `<url>.metadata`."""
    return f"{urldefrag(file.url)[0]}.metadata"


def parse_page(body: bytes, content_type: str, base_url: str) -> list[DistFile]:
    """The files on a project page, JSON (PEP 691) or HTML (PEP 503).

    Rows that are malformed or name a file the index may not (`allowed_file_url`) are left
    out with a warning; a page that is not a simple-API page at all (an empty answer
    included: never kept as a page that lists nothing) is a FetchError.
    """
    _not_empty(body, base_url, "project page")
    if content_type == JSON_TYPE or body.lstrip().startswith(b"{"):
        found = _from_json(body, base_url)
    else:
        anchors = _anchors(body.decode("utf-8", errors="replace"))
        found = [f for a in anchors if (f := _from_anchor(a, base_url)) is not None]
    kept = [f for f in found if allowed_file_url(base_url, f.url)]
    if len(kept) < len(found):
        log.warning(
            "%s lists %d file(s) that are not on HTTP(S); they are left out",
            base_url, len(found) - len(kept),
        )  # fmt: skip
    return kept


def _not_empty(body: bytes, base_url: str, what: str) -> None:
    """FetchError for an answer with nothing in it: a simple-API page always says something
    (JSON has its keys, HTML its document), so an empty one is a failure, not a page."""
    if not body.strip():
        raise FetchError(
            f"{base_url} sent an empty answer for its {what}",
            hint="retry; if it persists, check that --index-url points at a simple repository",
        )


def _json_list(body: bytes, key: str, base_url: str, what: str) -> list[Any]:
    """The list under `key` of a PEP 691 JSON page; FetchError when the page is not one."""
    try:
        items = loads(body)[key]
        if not isinstance(items, list):
            raise TypeError(f"{key} is not a list")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise FetchError(
            f"{base_url} sent {what} that is not PEP 691 JSON",
            hint="check that --index-url points at a simple repository (PEP 503/691)",
        ) from exc
    return items


def _from_json(body: bytes, base_url: str) -> list[DistFile]:
    files = _json_list(body, "files", base_url, "a project page")
    rows = [_from_json_item(item, base_url) for item in files]
    if bad := sum(1 for row in rows if row is _MALFORMED):
        log.warning("%s: %d malformed file row(s) left out", base_url, bad)
    return [row for row in rows if isinstance(row, DistFile)]


_MALFORMED = object()


def _from_json_item(item: object, base_url: str) -> DistFile | object | None:
    """A DistFile; None for a file we do not read (eggs...); _MALFORMED for a row that is not
    a PEP 691 file object."""
    if not isinstance(item, dict) or not isinstance(item.get("filename"), str):
        return _MALFORMED
    filename = item["filename"]
    version = file_version(filename)
    if version is None:
        return None
    hashes, url = item.get("hashes", {}), item.get("url", filename)
    yanked, size = item.get("yanked", False), item.get("size")
    requires_python = item.get("requires-python")
    if not isinstance(hashes, dict) or not isinstance(url, str):
        return _MALFORMED
    sha256 = hashes.get("sha256")
    sha256 = sha256.lower() if isinstance(sha256, str) else None
    try:
        full_url = urljoin(base_url, url)
    except ValueError:
        return _MALFORMED
    served, metadata_sha256 = _json_core_metadata(item)
    return DistFile(
        filename=filename,
        url=full_url,
        version=version,
        sha256=sha256 if _sha256_or_none(sha256) else None,
        requires_python=requires_python if isinstance(requires_python, str) else None,
        yanked=yanked is True or isinstance(yanked, str),
        size=size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None,
        core_metadata=served,
        core_metadata_sha256=metadata_sha256,
        upload_time=_upload_time(item.get("upload-time")),
    )


def _json_core_metadata(item: dict[str, Any]) -> tuple[bool, str | None]:
    """(served, sha256) of a file's `.metadata`: PEP 714's `core-metadata` first, then the
    older `dist-info-metadata`; each true, a mapping of hashes, or false/absent."""
    value = item["core-metadata"] if "core-metadata" in item else item.get("dist-info-metadata")
    if not isinstance(value, dict):
        return value is True, None
    digest = value.get("sha256")
    digest = digest.lower() if isinstance(digest, str) else None
    return True, digest if _sha256_or_none(digest) else None


def _anchor_core_metadata(attrs: dict[str, str | None]) -> tuple[bool, str | None]:
    """(served, sha256) from `data-core-metadata` (else `data-dist-info-metadata`): `true`
    or `<hash name>=<hex>` (PEP 658/714)."""
    key = "data-core-metadata" if "data-core-metadata" in attrs else "data-dist-info-metadata"
    if key not in attrs:
        return False, None
    value = (attrs[key] or "true").strip()
    algo, sep, digest = value.partition("=")
    digest = digest.lower()
    if algo.lower() == "sha256" and _sha256_or_none(digest):
        return True, digest
    return value.lower() == "true" or bool(sep and digest), None


def _from_anchor(attrs: dict[str, str | None], base_url: str) -> DistFile | None:
    href = attrs.get("href")
    if not href:
        return None
    try:
        url, fragment = urldefrag(urljoin(base_url, href))
        filename = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    except ValueError:
        return None
    version = file_version(filename)
    if version is None:
        return None
    algo, _, digest = fragment.partition("=")
    digest = digest.lower()
    served, metadata_sha256 = _anchor_core_metadata(attrs)
    return DistFile(
        filename=filename,
        url=url,
        version=version,
        sha256=digest if algo == "sha256" and _sha256_or_none(digest) else None,
        requires_python=attrs.get("data-requires-python"),
        yanked="data-yanked" in attrs,
        core_metadata=served,
        core_metadata_sha256=metadata_sha256,
    )


def parse_root(body: bytes, content_type: str, base_url: str) -> list[str]:
    """The canonical name of every project on the index's root page, sorted, each once:
    PEP 691 JSON (`projects`) or PEP 503 HTML (one anchor per project, the name its last path
    component). Rows that are not a project name are left out with a warning; a page that is
    not a simple-API root at all (or empty) is a FetchError."""
    _not_empty(body, base_url, "project list")
    if content_type == JSON_TYPE or body.lstrip().startswith(b"{"):
        raw = _root_from_json(body, base_url)
    else:
        anchors = _anchors(body.decode("utf-8", errors="replace"))
        raw = [_name_from_anchor(a, base_url) for a in anchors]
    names = {canonicalize_name(n) for n in raw if isinstance(n, str) and _PROJECT.fullmatch(n)}
    if bad := sum(1 for n in raw if not (isinstance(n, str) and _PROJECT.fullmatch(n))):
        log.warning("%s: %d malformed project row(s) left out", base_url, bad)
    return sorted(names)


_PROJECT = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508 names


def _root_from_json(body: bytes, base_url: str) -> list[object]:
    projects = _json_list(body, "projects", base_url, "an index root")
    return [row.get("name") if isinstance(row, dict) else None for row in projects]


def _name_from_anchor(attrs: dict[str, str | None], base_url: str) -> str | None:
    href = attrs.get("href")
    if not href:
        return None
    try:
        path = urlsplit(urljoin(base_url, href)).path
    except ValueError:
        return None
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


def _anchors(html: str) -> list[dict[str, str | None]]:
    """The attributes of every <a> tag (html.parser imported here: JSON pages skip it)."""
    from html.parser import HTMLParser

    anchors: list[dict[str, str | None]] = []

    class AnchorParser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a":
                anchors.append(dict(attrs))

    parser = AnchorParser(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    return anchors


def file_version(filename: str) -> str | None:
    """The normalised version in a wheel or sdist file name; None for anything else."""
    try:
        if filename.endswith(".whl"):
            return str(parse_wheel_filename(filename)[1])
        if filename.endswith((".tar.gz", ".zip")):
            return str(parse_sdist_filename(filename)[1])
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        log.debug("skipping file with an unparsable name: %s", filename)
    return None


def sort_versions(versions: set[str]) -> list[str]:
    """PEP 440 order, oldest first."""
    return sorted(versions, key=Version)


def choose_file(files: list[DistFile]) -> DistFile | None:
    """The file to read for one release: unyanked first, then by format preference."""
    if not files:
        return None
    return min(files, key=lambda f: (f.yanked, _format_rank(f.filename), f.filename))


def rank_files(files: list[DistFile]) -> list[DistFile]:
    """The files of one release, best first, in the order `choose_file` prefers them."""
    return sorted(files, key=lambda f: (f.yanked, _format_rank(f.filename), f.filename))


def _format_rank(filename: str) -> int:
    if filename.endswith(".tar.gz"):
        return 3
    if not filename.endswith(".whl"):
        return 4
    tags = parse_wheel_filename(filename)[3]
    if any(_is_pure_py3(t) for t in tags):
        return 0
    return 1 if tags & _supported_tags() else 2


def _is_pure_py3(tag: Tag) -> bool:
    return tag.abi == "none" and tag.platform == "any" and tag.interpreter.startswith("py3")


@lru_cache(maxsize=1)
def _supported_tags() -> frozenset[Tag]:
    from packaging.tags import sys_tags

    return frozenset(sys_tags())
