# Maintainers: the projects on an index that depend on a provider (`ecosystem --dependents`).
#
# Owns: `find_dependents`: the index's project list (Index.project_names: the root page,
#       cached like a project page), then for each project, in name order (`limit` of them),
#       its newest release (Index's own order: final releases preferred, pre-releases only
#       when a project has nothing else, yanked files never) and that release's Requires-Dist,
#       from the cheapest source the index offers for it:
#       1. `<file>.metadata`, when the page advertises it (PEP 658/714), checked against the
#          sha256 the page gives for it (a mismatch is an ArchiveError: see Errors);
#          a file advertised but missing (404) falls back to reading the file itself;
#       2. a wheel's `*.dist-info/METADATA`, read by byte ranges (remote.open_wheel: its tail
#          request usually holds it), or from the whole wheel when the wheel is small (the
#          tail is all of it), the server ignores Range, or the index is a folder: METADATA
#          alone is read, within limits.py and checked against RECORD, like a ranged member
#          (so a wheel whose other members are corrupt still says what it requires);
#       3. an sdist's PKG-INFO (or pyproject.toml), extracted as archive.py does, when the
#          sdist is cheap (a local file, or at most CHEAP_BYTES by the page).
#       Else the project is skipped with a debug log.
#       What each file requires is cached by (index, file name, sha256) (indexcache.py): a
#       rerun while the pages are fresh makes no request at all.
# Errors: one project never fails the discovery. A release whose metadata fails an integrity
# check (ArchiveError: a .metadata or METADATA that does not match its hash, a corrupt or
# hostile archive) may well require the provider: it is a Dependent with `error` set (the
# ecosystem's `error` row), never left out. A page or file that cannot be fetched
# (FetchError, a project listed but without a page) is an info log and the project is
# skipped. An index that cannot be listed raises FetchError, and so does one that
# stops answering: MAX_FAILURES project pages in a row that cannot be fetched (name order), or
# every page examined (the index went down, or the run's network time is up). Offline, a page
# missing from the cache is only a skip.
# Projects are examined on WORKERS threads through the Index's one Fetcher (thread-safe), at
# most WINDOW in flight; the answer does not depend on the threads: sorted by name.
# Takes: an Index and a provider name. Gives: Dependent records (name, version, requirements).
"""Finding the projects on a package index that depend on a provider."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import zlib
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.errors import ArchiveError, AuditError, FetchError, PackageNotFoundError
from auditor.sources import limits
from auditor.sources.archive import fetch_sources
from auditor.sources.cache import member_key
from auditor.sources.fetch import CORRUPT_HINT, WORKERS, NotFound
from auditor.sources.indexcache import load_requires, store_requires
from auditor.sources.remote import Opened, open_wheel
from auditor.sources.simple import metadata_url, rank_files, sort_versions
from auditor.sources.specs import is_local_url
from auditor.sources.trees import MAX_METADATA_BYTES, decode_source, read_core_metadata
from auditor.sources.zipdir import Unsupported, check_record, parse_record

if TYPE_CHECKING:
    import zipfile
    from collections.abc import Callable, Generator, Iterable
    from concurrent.futures import Future
    from pathlib import Path

    from auditor.sources.cache import MemberStore
    from auditor.sources.fetch import Downloaded
    from auditor.sources.index import Index
    from auditor.sources.simple import DistFile

T = TypeVar("T")
Item = TypeVar("Item")
log = logging.getLogger("drift_audit")

CHEAP_BYTES = 2 << 20  # an sdist (or a wheel we cannot read by ranges) read whole, at most
MAX_FAILURES = 5  # project pages in a row that cannot be fetched: the index stopped answering
WINDOW = 4 * WORKERS  # projects in flight at most
ANY = "*/*"


@dataclass(frozen=True, slots=True)
class Dependent:
    """A project whose newest release requires the provider (or may: `error`)."""

    name: str  # canonical project name
    version: str  # its newest release (normalised PEP 440)
    requires: tuple[str, ...]  # its Requires-Dist lines naming the provider, as written
    error: str | None = None  # its metadata failed an integrity check: it may require it


class _Looked(NamedTuple):
    dependent: Dependent | None
    page_failure: FetchError | None = None  # the project's page could not be fetched
    asked: bool = True  # its page was asked for (not the provider itself)


def find_dependents(index: Index, provider: str, *, limit: int | None = None) -> list[Dependent]:
    """Every project on the index whose newest release requires `provider`, sorted by name;
    and each whose newest release's metadata failed an integrity check (`error` set).

    Args:
        index: the index to list (its extra indexes too), through its cache and fetcher.
        provider: the provider's name (any spelling; compared canonicalised). It is never
            its own dependent.
        limit: examine only this many projects, the first in name order (tests, cheap runs).

    Raises:
        FetchError: the index cannot be listed, or stops answering during the discovery.
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be at least 0, not {limit}")
    wanted = canonicalize_name(provider)
    names = index.project_names()
    examined = names if limit is None else names[:limit]

    def look(name: str) -> _Looked:
        return _look(index, name, wanted)

    with contextlib.closing(_in_order(look, examined, WORKERS)) as looked:
        found = _collect(index, looked)
    unchecked = sum(1 for d in found if d.error is not None)
    log.info(
        "examined %d of the %d projects on the index: %d depend on %s, %d may (unreadable)",
        len(examined), len(names), len(found) - unchecked, wanted, unchecked,
    )  # fmt: skip
    return found


def _collect(index: Index, looked: Iterable[_Looked]) -> list[Dependent]:
    """The dependents found; FetchError when the project pages stop answering."""
    found: list[Dependent] = []
    in_a_row = pages = 0
    last: FetchError | None = None
    for result in looked:
        if not result.asked:
            continue
        if result.page_failure is None or index.offline:
            in_a_row, pages = 0, pages + 1
        else:
            in_a_row, last = in_a_row + 1, result.page_failure
            if in_a_row >= MAX_FAILURES:
                raise _stopped(last, in_a_row)
        if result.dependent is not None:
            found.append(result.dependent)
    if pages == 0 and last is not None:
        raise _stopped(last, in_a_row)
    return sorted(found, key=lambda d: d.name)


def _stopped(failure: FetchError, count: int) -> FetchError:
    error = FetchError(
        f"the index stopped answering while its dependents were looked for ({count} project "
        f"page(s) in a row failed); the last: {failure.message}",
        hint=failure.hint,
    )
    error.__cause__ = failure
    return error


# --------------------------------------------------------------------------- one project


def _look(index: Index, name: str, provider: str) -> _Looked:
    """Whether the newest release of `name` requires `provider` (skips logged here)."""
    if name == provider:
        return _Looked(None, asked=False)
    try:
        index_url, files = index.project(name)
    except PackageNotFoundError as exc:
        log.info("skipping %s: %s", name, exc.message)
        return _Looked(None)
    except FetchError as exc:
        log.info("skipping %s: %s", name, exc.message)
        return _Looked(None, page_failure=exc)
    version = newest_version(files)
    if version is None:
        log.debug("skipping %s: no release that is not yanked", name)
        return _Looked(None)
    release = [f for f in files if f.version == version and not f.yanked]
    try:
        requires = _release_requires(index, name, index_url, release)
    except ArchiveError as exc:
        log.info("%s %s may require %s: %s", name, version, provider, exc.message)
        return _Looked(Dependent(name, version, (), error=exc.message))
    except AuditError as exc:
        log.info("skipping %s %s: %s", name, version, exc.message)
        return _Looked(None)
    if requires is None:
        return _Looked(None)
    naming = tuple(r for r in requires if _names(r, provider))
    return _Looked(Dependent(name, version, naming) if naming else None)


def newest_version(files: list[DistFile]) -> str | None:
    """The newest version among files not yanked: a final release when there is one."""
    versions = sort_versions({f.version for f in files if not f.yanked})
    finals = [v for v in versions if not Version(v).is_prerelease]
    chosen = finals or versions
    return chosen[-1] if chosen else None


def _names(requirement: str, provider: str) -> bool:
    try:
        return canonicalize_name(Requirement(requirement).name) == provider
    except InvalidRequirement:
        log.debug("ignoring unparsable requirement %r", requirement)
        return False


# --------------------------------------------------------------------------- metadata


def _release_requires(
    index: Index, name: str, index_url: str, files: list[DistFile]
) -> tuple[str, ...] | None:
    """The Requires-Dist of one release, from the cache or its cheapest file; None when no
    file of it can be read cheaply."""
    file = _cheapest(files)
    if file is None:
        log.debug("skipping %s: no .metadata, no wheel and no small sdist to read", name)
        return None
    cached = load_requires(index.cache, index_url, file)
    if cached is not None:
        return cached
    if file.core_metadata:
        requires = _from_metadata_file(index, name, index_url, file)
    else:
        requires = _from_archive(index, name, index_url, file)
    if requires is None:
        return None
    store_requires(index.cache, index_url, file, requires)
    return requires


def _cheapest(files: list[DistFile]) -> DistFile | None:
    """The file to read: one with a `.metadata`, else the best wheel, else a cheap sdist."""
    ranked = rank_files(files)
    with_metadata = [f for f in ranked if f.core_metadata]
    wheels = [f for f in ranked if f.filename.endswith(".whl")]
    sdists = [f for f in ranked if not f.filename.endswith(".whl") and _cheap(f)]
    return next(iter(with_metadata or wheels or sdists), None)


def _cheap(file: DistFile) -> bool:
    return is_local_url(file.url) or (file.size is not None and file.size <= CHEAP_BYTES)


def _from_metadata_file(
    index: Index, name: str, index_url: str, file: DistFile
) -> tuple[str, ...] | None:
    """Requires-Dist from `<file>.metadata` (PEP 658), checked against its advertised hash."""
    url = metadata_url(file)
    try:
        body = index.fetcher.get(url, ANY).body
    except NotFound:
        log.debug("%s.metadata is advertised but missing; reading the file", file.filename)
        return _from_archive(index, name, index_url, file)
    digest = hashlib.sha256(body).hexdigest()
    expected = file.core_metadata_sha256
    if expected is not None and digest != expected:
        raise ArchiveError(
            f"{file.filename}.metadata does not match the sha256 the index gave "
            f"(expected {expected[:16]}..., got {digest[:16]}...)",
            hint=CORRUPT_HINT,
        )
    if len(body) > MAX_METADATA_BYTES:
        raise ArchiveError(f"{file.filename}.metadata is over {MAX_METADATA_BYTES} bytes")
    return read_core_metadata(body.decode("utf-8", errors="replace")).requires


def _from_archive(
    index: Index, name: str, index_url: str, file: DistFile
) -> tuple[str, ...] | None:
    """Requires-Dist from the file itself: a remote wheel's METADATA by ranges, else from the
    whole file when it is cheap (small, local, or sent whole by a server ignoring Range)."""
    is_wheel = file.filename.endswith(".whl")
    remote_wheel = is_wheel and file.url.startswith(("http://", "https://"))
    if not remote_wheel and not _cheap(file):
        log.debug("skipping %s: %s is not small enough to read whole", name, file.filename)
        return None
    with index.cache.staging() as work:
        if not is_wheel:  # an sdist: PKG-INFO or pyproject.toml, as extraction reads them
            layout, _ = fetch_sources(index.fetcher, file, work, name)
            return layout.metadata.requires
        archive = work / "download"
        opened = _open_by_ranges(index, name, index_url, file, work) if remote_wheel else None
        if isinstance(opened, Opened):
            return opened.metadata.requires
        if opened is None:
            if not _cheap(file):
                log.debug("skipping %s: %s is too big to read whole", name, file.filename)
                return None
            _download(index, file, archive)
        return _wheel_metadata(archive, file.filename)


def _download(index: Index, file: DistFile, dest: Path) -> None:
    try:
        index.fetcher.download(file.url, dest, file.sha256, file.size)
    except NotFound as exc:
        raise FetchError(
            f"the index lists {file.filename} but the file is not there (404)",
            hint="retry later, or pass --index-url of a complete index",
        ) from exc


def _wheel_metadata(archive: Path, filename: str) -> tuple[str, ...]:
    """Requires-Dist from a whole wheel on disk: its `*.dist-info/METADATA` alone, within the
    limits and checked against RECORD as a member read by ranges is (the rest is not read)."""
    import zipfile

    try:
        with zipfile.ZipFile(archive) as zf:
            infos = sorted(
                (i for i in zf.infolist() if _is_dist_info(i.filename)), key=lambda i: i.filename
            )
            metadata = next((i for i in infos if i.filename.endswith("/METADATA")), None)
            if metadata is None:
                return ()
            data = _read_member(zf, metadata, filename)
            beside = metadata.filename.removesuffix("METADATA") + "RECORD"
            record = next((i for i in infos if i.filename == beside), None)
            if record is not None:
                hashes = parse_record(decode_source(_read_member(zf, record, filename)))
                check_record(metadata.filename, data, hashes, filename)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise ArchiveError(
            f"{filename} is not a readable archive (corrupt or truncated): {exc}",
            hint=CORRUPT_HINT,
        ) from exc
    return read_core_metadata(decode_source(data)).requires


def _is_dist_info(name: str) -> bool:
    parts = name.split("/")
    return (
        len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] in ("METADATA", "RECORD")
    )


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, filename: str) -> bytes:
    if info.flag_bits & 0x1:
        raise ArchiveError(f"the zip member {info.filename!r} of {filename} is encrypted")
    if info.file_size > MAX_METADATA_BYTES:
        raise ArchiveError(f"{info.filename} in {filename} is over {MAX_METADATA_BYTES} bytes")
    limits.check_ratio(info.filename, filename, info.file_size, info.compress_size)
    return zf.read(info)


def _open_by_ranges(
    index: Index, name: str, index_url: str, file: DistFile, work: Path
) -> Opened | Downloaded | None:
    """The wheel's directory and METADATA by ranges (members kept as Index keeps them); the
    whole file when the server sent it; None for a zip the range reader does not handle."""

    def stores(key: str) -> MemberStore:
        return index.cache.members(member_key(index_url, key))

    try:
        return open_wheel(index.fetcher, file, stores, work / "download", name)
    except Unsupported as exc:
        log.debug("cannot read %s by ranges: %s", file.filename, exc)
        return None


# --------------------------------------------------------------------------- threads


def _in_order(fn: Callable[[Item], T], items: list[Item], workers: int) -> Generator[T, None, None]:
    """`fn` over `items` on `workers` threads, the results in the items' order, at most
    WINDOW submitted ahead. Leaving early cancels what has not started."""
    from concurrent.futures import ThreadPoolExecutor

    if not items:
        return
    pool = ThreadPoolExecutor(min(workers, len(items)), thread_name_prefix="drift-audit-deps")
    pending: deque[Future[T]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= WINDOW:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # a Ctrl-C never waits on a server
        raise
    pool.shutdown(wait=True)
