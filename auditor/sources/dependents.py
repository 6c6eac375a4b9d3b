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
#          tail is all of it), the server ignores Range, the range reader cannot read that
#          zip, or the index is a folder: METADATA alone is read, within limits.py and checked
#          against RECORD, like a ranged member (so a wheel whose other members are corrupt
#          still says what it requires);
#       3. an sdist's PKG-INFO (or pyproject.toml), extracted as archive.py does (downloaded
#          whole, within limits.py, whatever its size: a project left unread could be a
#          dependent).
#       What each file requires is cached by (index, file name, sha256) (indexcache.py): a
#       rerun while the pages are fresh makes no request at all.
# Errors: one project never fails the discovery, and none is left out unread. A project the
# index lists that cannot be examined may well require the provider: it is a Dependent with
# `error` set (the ecosystem's `error` row, which fails the run), never "not a dependent":
# its page missing (404 on every index) or failing (5xx, a timeout, a body cut short, a cold
# cache offline: `version` is then None), its `.metadata` failing (not a 404) or not matching
# its hash, its file gone (404) or failing, its archive corrupt or hostile, or no wheel or
# sdist to read. Only a project with no release at all (none, or every file yanked) and the
# provider itself are not candidates. An index that cannot be listed raises FetchError, and
# so does one that stops answering: MAX_FAILURES project pages in a row that cannot be
# fetched (name order; not a 404, not offline), or every page examined (the index went down,
# or the run's network time is up).
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
from auditor.sources.archive import fetch_sources, is_archive_name
from auditor.sources.cache import member_key
from auditor.sources.fetch import CORRUPT_HINT, WORKERS, NotFound
from auditor.sources.indexcache import load_requires, store_requires
from auditor.sources.remote import Opened, open_wheel
from auditor.sources.simple import metadata_url, rank_files, sort_versions
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

MAX_FAILURES = 5  # project pages in a row that cannot be fetched: the index stopped answering
WINDOW = 4 * WORKERS  # projects in flight at most
ANY = "*/*"


@dataclass(frozen=True, slots=True)
class Dependent:
    """A project whose newest release requires the provider (or may: `error`)."""

    name: str  # canonical project name
    version: str | None  # its newest release (normalised PEP 440); None: its page unread
    requires: tuple[str, ...]  # its Requires-Dist lines naming the provider, as written
    error: str | None = None  # it could not be examined (why): it may require the provider

    @property
    def spec(self) -> str:
        """The consumer spec of its row: `name==version`, or the name when no page was read."""
        return self.name if self.version is None else f"{self.name}=={self.version}"


class _Looked(NamedTuple):
    dependent: Dependent | None
    page_failure: FetchError | None = None  # the project's page could not be fetched
    asked: bool = True  # its page was asked for (not the provider itself)


def find_dependents(index: Index, provider: str, *, limit: int | None = None) -> list[Dependent]:
    """Every project on the index whose newest release requires `provider`, sorted by name;
    and each that could not be examined (`error` set: its page, its metadata or its file
    could not be read, or failed an integrity check), which may require it.

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
    """Whether the newest release of `name` requires `provider`; a Dependent with `error`
    when that cannot be known (each logged here)."""
    if name == provider:
        return _Looked(None, asked=False)
    try:
        index_url, files = index.project(name)
    except PackageNotFoundError:
        why = f"the index lists {name} but serves no project page for it (404)"
        return _Looked(_unexamined(name, None, provider, why))
    except FetchError as exc:
        why = f"its project page could not be read: {exc.message}"
        return _Looked(_unexamined(name, None, provider, why), page_failure=exc)
    version = newest_version(files)
    if version is None:
        log.debug("skipping %s: no release that is not yanked", name)
        return _Looked(None)
    release = [f for f in files if f.version == version and not f.yanked]
    try:
        requires = _release_requires(index, name, index_url, release)
    except AuditError as exc:  # ArchiveError (integrity), FetchError (gone, failing)
        return _Looked(_unexamined(name, version, provider, exc.message))
    naming = tuple(r for r in requires if _names(r, provider))
    return _Looked(Dependent(name, version, naming) if naming else None)


def _unexamined(name: str, version: str | None, provider: str, why: str) -> Dependent:
    """A project that may require `provider`: its `error` row says why it was not examined."""
    log.info("%s%s may require %s: %s", name, f" {version}" if version else "", provider, why)
    return Dependent(name, version, (), error=f"could not be examined as a dependent: {why}")


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
) -> tuple[str, ...]:
    """The Requires-Dist of one release, from the cache or its cheapest file.

    Raises:
        AuditError: it cannot be read (ArchiveError: no file to read, or one failing an
            integrity check; FetchError: a file gone or failing).
    """
    file = _cheapest(files)
    if file is None:
        raise ArchiveError(f"{name} {files[0].version} has no wheel or sdist to read")
    cached = load_requires(index.cache, index_url, file)
    if cached is not None:
        return cached
    if file.core_metadata:
        requires = _from_metadata_file(index, name, index_url, file)
    else:
        requires = _from_archive(index, name, index_url, file)
    store_requires(index.cache, index_url, file, requires)
    return requires


def _cheapest(files: list[DistFile]) -> DistFile | None:
    """The file to read: one with a `.metadata`, else the best wheel, else an sdist."""
    ranked = rank_files(files)
    with_metadata = [f for f in ranked if f.core_metadata]
    archives = [f for f in ranked if is_archive_name(f.filename)]  # wheels rank first
    return next(iter(with_metadata or archives), None)


def _from_metadata_file(index: Index, name: str, index_url: str, file: DistFile) -> tuple[str, ...]:
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


def _from_archive(index: Index, name: str, index_url: str, file: DistFile) -> tuple[str, ...]:
    """Requires-Dist from the file itself: a remote wheel's METADATA by ranges, else from the
    whole file (an sdist, a local wheel, a zip the range reader cannot read, or a wheel sent
    whole by a server ignoring Range)."""
    is_wheel = file.filename.endswith(".whl")
    remote_wheel = is_wheel and file.url.startswith(("http://", "https://"))
    with index.cache.staging() as work:
        if not is_wheel:  # an sdist: PKG-INFO or pyproject.toml, as extraction reads them
            layout, _ = fetch_sources(index.fetcher, file, work, name)
            return layout.metadata.requires
        archive = work / "download"
        opened = _open_by_ranges(index, name, index_url, file, work) if remote_wheel else None
        if isinstance(opened, Opened):
            return opened.metadata.requires
        if opened is None:
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
