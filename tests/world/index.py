"""The package indexes pip is configured with, read without pip (the judge's own reads).

`index_urls(pip_python)` lists them in pip's order (index-url, pip's own default when none
is set, then each extra-index-url, then find-links folders); `candidates(index, name)` the
file URLs a project's page links to; `release_dates(pip_python, name)` the first upload time
of each release, from pages that give upload times (PEP 691 JSON with PEP 700's
`upload-time`; a page without them gives none). No host is written here: the URLs are pip's.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

PAGE_LIMIT = 64 * 1024 * 1024
_HREF = re.compile(r"""<a\s[^>]*href=["']([^"']+)["']""", re.IGNORECASE)
JSON_PAGE = "application/vnd.pypi.simple.v1+json"


class IndexError_(Exception):
    """A page or a file could not be read within its limit."""


def index_urls(pip_python: Path) -> list[str]:
    listed = subprocess.run(
        [str(pip_python), "-m", "pip", "config", "list"],
        capture_output=True, text=True, timeout=120, check=False,
    ).stdout.splitlines()  # fmt: skip
    values: dict[str, list[str]] = {"index-url": [], "extra-index-url": [], "find-links": []}
    for line in listed:
        key, _, value = line.partition("=")
        option = key.rpartition(".")[2]
        if option in values:
            values[option] += value.strip().strip("'\"").split()
    if not values["index-url"]:
        default = subprocess.run(
            [str(pip_python), "-c", "from pip._internal.models.index import PyPI; "
             "print(PyPI.simple_url)"],
            capture_output=True, text=True, timeout=60, check=False,
        ).stdout.strip()  # fmt: skip
        values["index-url"] = [default] if default else []
    links = [
        Path(p).resolve().as_uri() + "/" if not re.match(r"^[a-z]+:", p) else p
        for p in values["find-links"]
    ]
    return list(dict.fromkeys([*values["index-url"], *values["extra-index-url"], *links]))


def read(url: str, limit: int, accept: str = "text/html") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=60) as response:
        data = response.read(limit + 1)
    if len(data) > limit:
        raise IndexError_(f"{url.rsplit('/', 1)[-1]} is larger than {limit} bytes")
    return bytes(data)


def _page(index: str, name: str) -> str:
    return index.rstrip("/") + f"/{canonicalize_name(name)}/"


def candidates(index: str, name: str) -> list[str]:
    if index.startswith("file:") and not index.rstrip("/").endswith("simple"):
        folder = Path(urllib.parse.urlsplit(index).path)
        return [f.as_uri() for f in sorted(folder.glob("*"))] if folder.is_dir() else []
    page = _page(index, name)
    try:
        html = read(page, PAGE_LIMIT).decode("utf-8", "replace")
    except (OSError, ValueError, IndexError_):
        return []
    return [urllib.parse.urljoin(page, href) for href in _HREF.findall(html)]


def _version(filename: str) -> str | None:
    try:
        if filename.endswith(".whl"):
            return str(parse_wheel_filename(filename)[1])
        return str(parse_sdist_filename(filename)[1])
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None


def release_dates(pip_python: Path, name: str) -> dict[str, dt.datetime]:
    """Each release's first upload time (yanked files left out), from JSON pages."""
    return release_dates_at(index_urls(pip_python), name)


def release_dates_at(indexes: list[str], name: str) -> dict[str, dt.datetime]:
    """release_dates() on indexes already listed (index_urls runs pip once per call)."""
    dates: dict[str, dt.datetime] = {}
    for index in indexes:
        if index.startswith("file:"):
            continue
        try:
            page = json.loads(read(_page(index, name), PAGE_LIMIT, JSON_PAGE))
        except (OSError, ValueError, IndexError_):
            continue
        for entry in page.get("files", []) if isinstance(page, dict) else []:
            stamp, version = entry.get("upload-time"), _version(str(entry.get("filename", "")))
            if not isinstance(stamp, str) or version is None or entry.get("yanked"):
                continue
            when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            dates[version] = min(dates.get(version, when), when)
    return dates
