# Maintainers: the simple repository API, as data.
#
# Owns: a project's page URL (PEP 503 name normalisation), parsing the page as PEP 691 JSON or
#       PEP 503 HTML (sha256 fragments, data-requires-python, data-yanked), the version of each
#       file from its name, and which file of a release to read (pure wheel > wheel for this
#       platform > any wheel > sdist: every wheel carries the same .py files).
# Takes: page bytes. Gives: DistFile records (also what the page cache stores, as JSON), with
# the file's size when the JSON page gives it (PEP 700): small wheels are then read whole.
# Files whose names do not parse as a wheel or a .tar.gz/.zip sdist (eggs, installers) are
# skipped: they cannot be read without building or running something.
"""Simple repository API pages: parsing, file versions and file choice."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
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

    def to_json(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "url": self.url,
            "version": self.version,
            "sha256": self.sha256,
            "requires_python": self.requires_python,
            "yanked": self.yanked,
            "size": self.size,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DistFile:
        return cls(**data)


def project_url(index_url: str, name: str) -> str:
    """`<index>/<normalised-name>/`, as PEP 503 spells a project page."""
    return f"{index_url.rstrip('/')}/{canonicalize_name(name)}/"


def parse_page(body: bytes, content_type: str, base_url: str) -> list[DistFile]:
    """The files on a project page, JSON (PEP 691) or HTML (PEP 503)."""
    if content_type == JSON_TYPE or body.lstrip().startswith(b"{"):
        return _from_json(body, base_url)
    anchors = _anchors(body.decode("utf-8", errors="replace"))
    return [f for a in anchors if (f := _from_anchor(a, base_url)) is not None]


def _from_json(body: bytes, base_url: str) -> list[DistFile]:
    try:
        files = json.loads(body)["files"]
    except (ValueError, KeyError, TypeError) as exc:
        raise FetchError(
            f"{base_url} sent a project page that is not PEP 691 JSON",
            hint="check that --index-url points at a simple repository (PEP 503/691)",
        ) from exc
    return [f for item in files if (f := _from_json_item(item, base_url)) is not None]


def _from_json_item(item: dict[str, Any], base_url: str) -> DistFile | None:
    filename = str(item.get("filename", ""))
    version = file_version(filename)
    if version is None:
        return None
    yanked = item.get("yanked", False)
    sha256 = (item.get("hashes") or {}).get("sha256")
    size = item.get("size")
    return DistFile(
        filename=filename,
        url=urljoin(base_url, str(item.get("url", filename))),
        version=version,
        sha256=str(sha256).lower() if sha256 else None,
        requires_python=item.get("requires-python"),
        yanked=yanked is True or isinstance(yanked, str),
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
    )


def _from_anchor(attrs: dict[str, str | None], base_url: str) -> DistFile | None:
    href = attrs.get("href")
    if not href:
        return None
    url, fragment = urldefrag(urljoin(base_url, href))
    filename = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    version = file_version(filename)
    if version is None:
        return None
    algo, _, digest = fragment.partition("=")
    return DistFile(
        filename=filename,
        url=url,
        version=version,
        sha256=digest.lower() if algo == "sha256" and digest else None,
        requires_python=attrs.get("data-requires-python"),
        yanked="data-yanked" in attrs,
    )


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
