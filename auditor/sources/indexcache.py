# Maintainers: what finding dependents keeps in the cache, beside cache.py's project pages.
#
# Owns: two kinds of entry, both inside the index's own pages folder, so they follow cache.py's
#       index scoping (used only when that index is given again) and `drift-audit cache clear`
#       removes them with the pages:
#     pages/<index key>/_projects.json            the index root's project names, and when
#     pages/<index key>/_requires/<sha256>.json   one release file's Requires-Dist, keyed by
#                                                 (index, file name, the file's sha256)
# (`_` is in no canonical project name: neither can be taken for a project's page.)
# The project list is fresh for PAGE_TTL_SECONDS, as a page is (index.py applies the rule);
# a file's Requires-Dist never goes stale: the index's sha256 names that file's bytes. A file
# the index gives no sha256 for is not kept (its bytes could change under the same name).
# The cache is untrusted input: an entry that is not what this code writes (a name that is
# not canonical, a requirement that is not a string, another file's name) is a miss.
# A cache that cannot be written costs requests on the next run, never this run (a warning).
# Takes: a Cache, an index URL, names or a DistFile. Gives: what was stored, or None.
"""The cached project list of an index, and each release file's Requires-Dist."""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.sources.cache import MAX_LISTING_BYTES, MAX_RECORD_BYTES, index_key
from auditor.sources.urls import without_credentials

if TYPE_CHECKING:
    from collections.abc import Mapping

    from auditor.sources.cache import Cache
    from auditor.sources.simple import DistFile

log = logging.getLogger("drift_audit")

PROJECTS = "_projects.json"
REQUIRES = "_requires"
_CANONICAL = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class CachedProjects:
    """The index's project list from the cache, and how old it is."""

    names: list[str]  # canonical, sorted
    age: float  # seconds since the root page was fetched


def load_projects(cache: Cache, index_url: str) -> CachedProjects | None:
    """The index's project list as stored; None when absent or not what this code writes."""
    data = cache.fs.read_json(_projects_path(index_url), limit=MAX_LISTING_BYTES)
    names, fetched = data.get("names"), data.get("fetched")
    if not isinstance(names, list) or not isinstance(fetched, (int, float)):
        return None
    if not all(isinstance(n, str) and _CANONICAL.fullmatch(n) for n in names):
        log.warning("ignoring the cached project list of %s: not drift-audit's", index_url)
        return None
    return CachedProjects(sorted(set(names)), time.time() - float(fetched))


def store_projects(cache: Cache, index_url: str, names: list[str]) -> None:
    data = {"index": without_credentials(index_url), "fetched": time.time(), "names": names}
    _write(cache, _projects_path(index_url), data)


def load_requires(cache: Cache, index_url: str, file: DistFile) -> tuple[str, ...] | None:
    """The Requires-Dist stored for this file of this index; None when it is not there."""
    rel = _requires_path(index_url, file)
    if rel is None:
        return None
    data = cache.fs.read_json(rel, limit=MAX_RECORD_BYTES)
    requires = data.get("requires")
    if data.get("filename") != file.filename or data.get("sha256") != file.sha256:
        return None
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        return None
    return tuple(requires)


def store_requires(cache: Cache, index_url: str, file: DistFile, requires: tuple[str, ...]) -> None:
    """Keep a file's Requires-Dist (nothing is kept for a file without a sha256)."""
    rel = _requires_path(index_url, file)
    if rel is None:
        log.debug("not caching the requirements of %s: the index gives no sha256", file.filename)
        return
    data = {"filename": file.filename, "sha256": file.sha256, "requires": list(requires)}
    _write(cache, rel, data)


def _projects_path(index_url: str) -> str:
    return f"pages/{index_key(index_url)}/{PROJECTS}"


def _requires_path(index_url: str, file: DistFile) -> str | None:
    if file.sha256 is None or not _SHA256.fullmatch(file.sha256):
        return None
    return f"pages/{index_key(index_url)}/{REQUIRES}/{file.sha256}.json"


def _write(cache: Cache, rel: str, data: Mapping[str, object]) -> None:
    try:
        cache.fs.write(rel, json.dumps(data, indent=1, sort_keys=True).encode())
    except OSError as exc:
        log.warning("cannot write to the cache at %s: %s", cache.root, exc.strerror or exc)
