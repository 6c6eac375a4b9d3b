# Maintainers: a package index as a provider of releases: spec in, extracted source trees out.
#
# Owns: `open_index` (settings, cache, fetcher) and `Index`: matching specs against the versions
#       on the index (newest last; pre-releases only when asked or named; yanked files only for
#       an exact pin), the primary index with extra indexes as fallbacks, the page cache TTL
#       and stale pages when offline or unreachable, and turning a chosen file into a cached
#       tree through `archive.fetch_sources` (the one place bytes of a release arrive).
# Takes: PEP 508 specs or (name, version). Gives: Releases whose tree reads the cached sources.
# An exact pin already in the cache is answered without any network request. What the cache
# holds is scoped by index (the rule is in cache.py's header): a tree, page or member store is
# looked up only under the key of an index given for this run, so a release cached from index
# A is never the answer when B is given: B is asked, and an unreachable B is a FetchError.
# The index URLs are checked here, before any use (urls.check_index_url: http(s) with a
# host, a file URL or an existing folder, no spaces), naming where each came from.
# The index root (`project_names`, for finding dependents) is fetched and cached the way a
# project page is: the same client, size limit, TTL and stale fallback (kept by indexcache.py).
"""The package index: which releases match a spec, and their sources."""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.errors import ArchiveError, FetchError, PackageNotFoundError, VersionNotFoundError
from auditor.sources import Release
from auditor.sources.archive import fetch_sources
from auditor.sources.cache import (
    PAGE_TTL_SECONDS,
    Cache,
    TreeRecord,
    extensions_entry,
    member_key,
    same_version,
)
from auditor.sources.fetch import Fetcher, NotFound
from auditor.sources.indexcache import load_projects, store_projects
from auditor.sources.local import direct_reference
from auditor.sources.pipconf import IndexSettings, default_index_url, read_index_settings
from auditor.sources.remote import (
    LISTING_VERSION,
    Listing,
    Opened,
    WheelTree,
    open_wheel,
    wants_ranges,
)
from auditor.sources.root import cache_root
from auditor.sources.simple import (
    ACCEPT,
    choose_file,
    parse_page,
    parse_root,
    project_url,
    root_url,
    sort_versions,
)
from auditor.sources.specs import exact_pin, is_local_url, parse_spec
from auditor.sources.urls import check_index_url, redact, without_credentials
from auditor.sources.zipdir import Unsupported

if TYPE_CHECKING:
    from pathlib import Path

    from packaging.specifiers import SpecifierSet

    from auditor.sources.cache import MemberStore
    from auditor.sources.fetch import Downloaded
    from auditor.sources.simple import DistFile

log = logging.getLogger("drift_audit")
RELEASE_WORKERS = 4  # releases of a range opened at once (their requests are sequential)

OFFLINE_HINT = "run once without --offline to fill the cache, or pass --cache-dir of a filled cache"


def open_index(
    index_url: str | None = None, cache_dir: str | Path | None = None, offline: bool = False
) -> Index:
    """The configured package index with its local cache.

    Args:
        index_url: the simple-API URL; default PIP_INDEX_URL, pip's config, then pip's default.
        cache_dir: where trees and pages are kept; default $DRIFT_AUDIT_CACHE_DIR or the user
            cache folder.
        offline: never touch the network; answer from the cache (and file:// indexes) only.
    """
    settings = read_index_settings(index_url)
    primary, origin = settings.index_url, settings.index_origin
    settings = replace(
        settings,
        index_url=check_index_url(primary, origin=origin) if primary else None,
        extra_index_urls=tuple(
            check_index_url(u, origin=settings.extra_origin) for u in settings.extra_index_urls
        ),
    )
    fetcher = Fetcher(offline=offline, cafile=settings.cert)
    return Index(settings, Cache(cache_root(cache_dir)), fetcher, offline=offline)


class Index:
    """Releases from a simple-API index (and its extra indexes), through the cache."""

    def __init__(
        self, settings: IndexSettings, cache: Cache, fetcher: Fetcher, *, offline: bool = False
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.offline = offline
        self._fetcher = fetcher
        self._pages: dict[str, tuple[str, list[DistFile]]] = {}
        self._trees: list[WheelTree] = []  # the wheels read by ranges, to keep their digests

    @property
    def bytes_fetched(self) -> int:
        """Bytes downloaded over the network by this Index (and its trees) so far."""
        return self._fetcher.bytes_fetched

    @property
    def requests_made(self) -> int:
        """HTTP requests sent by this Index (and its trees) so far, retries included."""
        return self._fetcher.requests_made

    def close(self) -> None:
        """Stop background fetches and close kept-alive connections, and keep the member
        digests the wheels read by ranges computed (optional)."""
        for tree in self._trees:
            tree.keep_digests()
        self._fetcher.close()

    @property
    def fetcher(self) -> Fetcher:
        """The one network client of this Index, for the readers in sources/ that fetch
        beside it (dependents.py: a file's `.metadata`, a wheel's METADATA by ranges)."""
        return self._fetcher

    @functools.cached_property
    def urls(self) -> tuple[str, ...]:
        """The primary index URL first, then the extra indexes."""
        primary = self.settings.index_url or default_index_url()
        extras = (u for u in self.settings.extra_index_urls if u.rstrip("/") != primary.rstrip("/"))
        return (primary, *extras)

    def releases(self, spec: str, *, pre: bool = False) -> list[Release]:
        """Every release matching a PEP 508 spec, newest last (a bare name: the newest)."""
        req = parse_spec(spec)
        if req.url:
            return [direct_reference(req, self.cache)]
        name = canonicalize_name(req.name)
        pin = exact_pin(req.specifier)
        if pin is not None:
            return [self.release(name, pin)]
        versions = self._matching(name, req.specifier, pre=pre)
        # The cached ones first, one after another (reading them is the processor's work:
        # threads would only take turns); then the others side by side, since opening a
        # wheel is a few requests one after another (its tail, the rest of its directory,
        # its metadata), waiting on the network, not the processor.
        found: dict[str, Release] = {}
        for version in versions:
            if (cached := self._from_cache(name, version)) is not None:
                found[version] = cached
        missing = [v for v in versions if v not in found]
        if len(missing) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(RELEASE_WORKERS, thread_name_prefix="drift-audit-open") as pool:
                opened = pool.map(lambda v: self._open(name, v), missing)
                found.update(zip(missing, opened, strict=True))
        else:
            found.update((v, self._open(name, v)) for v in missing)
        return [found[v] for v in versions]

    def release(self, name: str, version: str) -> Release:
        """One release by exact version (PEP 440 equality), from the cache when it is there."""
        name = canonicalize_name(name)
        return self._from_cache(name, version) or self._open(name, version)

    def _from_cache(self, name: str, version: str) -> Release | None:
        for url in self.urls:  # a tree is reused only for the index it came from
            found = self.cache.find_tree(url, name, version)
            cached = self._cached_release(*found) if found is not None else None
            if cached is not None:
                return cached
        return None

    def _open(self, name: str, version: str) -> Release:
        """One release from the index (not in the cache)."""
        try:
            index_url, files = self._project(name)
        except FetchError as exc:
            if self.offline:
                raise _offline_miss(f"{name}=={version}") from exc
            raise
        chosen = choose_file([f for f in files if same_version(f.version, version)])
        if chosen is None:
            raise _no_match(name, f"=={version}", files, prereleases=[])
        return self._fetch(name, chosen, index_url)

    def project(self, name: str) -> tuple[str, list[DistFile]]:
        """(index URL, files) of a project from the first index that has it, through the page
        cache; PackageNotFoundError when no index has it."""
        return self._project(canonicalize_name(name))

    def project_names(self) -> list[str]:
        """Every project on the index and its extra indexes (canonical names, sorted, once),
        from each root page (`<index>/`), cached like a project page. An index that cannot be
        listed is a warning while another one can; FetchError when none can."""
        names: set[str] = set()
        failures: list[FetchError] = []
        for url in self.urls:
            try:
                names.update(self._root(url))
            except FetchError as exc:
                failures.append(exc)
        if failures and len(failures) == len(self.urls):
            raise failures[0]
        if failures:
            log.warning("%s; listing the other index(es) only", failures[0].message)
        return sorted(names)

    def versions(self, name: str, *, pre: bool = False) -> list[str]:
        """Versions on the index, oldest first; yanked ones left out, pre-releases if `pre`."""
        _, files = self._project(canonicalize_name(name))
        return [v for v in _available(files) if pre or not Version(v).is_prerelease]

    def uploaded(self, name: str, version: str) -> float | None:
        """When a release was first uploaded (its earliest file, PEP 700), if the index says."""
        _, files = self._project(canonicalize_name(name))
        times = [f.upload_time for f in files if same_version(f.version, version)]
        known = [t for t in times if t is not None]
        return min(known) if known and len(known) == len(times) else None

    def newest_before(
        self, name: str, when: float, specifier: SpecifierSet | None = None
    ) -> str | None:
        """The newest final release (not yanked) whose every file was uploaded before `when`
        and that `specifier` admits: what a release published at `when` was made against."""
        _, files = self._project(canonicalize_name(name))
        first: dict[str, float] = {}
        for file in files:
            if file.yanked or file.upload_time is None:
                continue
            first[file.version] = min(first.get(file.version, file.upload_time), file.upload_time)
        candidates = [v for v, t in first.items() if t < when and not Version(v).is_prerelease]
        if specifier is not None:
            candidates = list(specifier.filter(candidates))
        ordered = sort_versions(set(candidates))
        return ordered[-1] if ordered else None

    # ----------------------------------------------------------------------- matching

    def _matching(self, name: str, specifier: SpecifierSet, *, pre: bool) -> list[str]:
        _, files = self._project(name)
        available = _available(files)
        allow_pre = pre or bool(specifier.prereleases)
        matched = sort_versions(set(specifier.filter(available, prereleases=allow_pre)))
        if not matched:
            would = [] if allow_pre else list(specifier.filter(available, prereleases=True))
            raise _no_match(name, str(specifier), files, prereleases=would)
        return matched if str(specifier) else matched[-1:]

    # ----------------------------------------------------------------------- pages

    def _project(self, name: str) -> tuple[str, list[DistFile]]:
        """(index URL, files) from the first index that has the project."""
        if name in self._pages:
            return self._pages[name]
        failures: list[FetchError] = []
        for url in self.urls:
            try:
                files = self._page(url, name)
            except FetchError as exc:
                failures.append(exc)
                continue
            if files is not None:
                if failures:
                    log.warning("%s; using %s instead", failures[0].message, url)
                self._pages[name] = (url, files)
                return url, files
        if failures:
            raise failures[0]
        raise PackageNotFoundError(
            f"no project named {name!r} on the index {redact(self.urls[0])}"
            + (f" (nor on {len(self.urls) - 1} extra index(es))" if len(self.urls) > 1 else ""),
            hint="check the spelling; for a private project pass --index-url or set PIP_INDEX_URL",
        )

    def _page(self, index_url: str, name: str) -> list[DistFile] | None:
        """The project's files on one index; None when that index does not have it."""
        if is_local_url(index_url):
            self.cache.unreplayable = "a local index is read afresh on every run"
            return self._get_page(index_url, name)
        cached = self.cache.load_page(index_url, name)
        if cached is not None and (self.offline or cached.age < PAGE_TTL_SECONDS):
            if not self.offline:  # an offline run never asks again: the page holds
                self.cache.note_fresh_until(time.time() - cached.age + PAGE_TTL_SECONDS)
            return cached.files
        if self.offline:
            raise _offline_miss(f"the project page of {name}")
        try:
            files = self._get_page(index_url, name)
        except FetchError as exc:
            if cached is None:
                raise
            log.warning(
                "%s; using the project page cached %d min ago", exc.message, cached.age // 60
            )
            self.cache.unreplayable = "a stale project page was used"
            return cached.files
        if files is not None:
            self.cache.store_page(index_url, name, files)
            self.cache.note_fresh_until(time.time() + PAGE_TTL_SECONDS)
        else:  # not on this index: asked again on every run (another index may answer)
            self.cache.unreplayable = f"{name} is not on {redact(index_url)}"
        return files

    def _root(self, index_url: str) -> list[str]:
        """The project names on one index, by the rules of `_page`."""
        if is_local_url(index_url):
            return self._get_root(index_url)
        cached = load_projects(self.cache, index_url)
        if cached is not None and (self.offline or cached.age < PAGE_TTL_SECONDS):
            return cached.names
        if self.offline:
            raise _offline_miss(f"the project list of {redact(index_url)}")
        try:
            names = self._get_root(index_url)
        except FetchError as exc:
            if cached is None:
                raise
            log.warning(
                "%s; using the project list cached %d min ago", exc.message, cached.age // 60
            )
            return cached.names
        store_projects(self.cache, index_url, names)
        return names

    def _get_root(self, index_url: str) -> list[str]:
        try:
            page = self._fetcher.get(root_url(index_url), ACCEPT)
        except NotFound as exc:
            raise FetchError(
                f"the index {redact(index_url)} has no project list (its root page is missing)",
                hint="pass --index-url of a simple repository that lists its projects",
            ) from exc
        return parse_root(page.body, page.content_type, page.url)

    def _get_page(self, index_url: str, name: str) -> list[DistFile] | None:
        try:
            page = self._fetcher.get(project_url(index_url, name), ACCEPT)
        except NotFound:
            return None
        return parse_page(page.body, page.content_type, page.url)

    # ----------------------------------------------------------------------- trees

    def _cached_release(
        self, tree_dir: Path, record: TreeRecord, files: list[str]
    ) -> Release | None:
        """A cached tree as a Release; None when a ranged wheel's listing is gone."""
        if not record.import_names:
            return None  # an entry from before such releases were refused: fetch it again
        key = record.extra.get("members")
        if not key:
            return record.release(tree_dir, files)
        store = self.cache.members(key)
        data = store.load_listing()
        listing = Listing.from_json(data)
        if listing is None:
            return None
        if data.get("version") != LISTING_VERSION:  # an older form, still read: kept anew
            store.save_listing(listing.to_json())
        for url in (self.settings.index_url, *self.settings.extra_index_urls):
            if url:  # members not cached yet may need the index's credentials
                self._fetcher.remember_credentials(url)
        return self._wheel_release(record, listing, store)

    def _wheel_release(
        self, record: TreeRecord, listing: Listing, store: MemberStore, bytes_fetched: int = 0
    ) -> Release:
        tree = WheelTree(listing, store, self._fetcher, packages=record.import_names)
        self._trees.append(tree)
        return Release(
            name=record.name,
            version=record.version,
            tree=tree,
            origin=record.origin,
            import_names=record.import_names,
            requires=record.requires,
            bytes_fetched=bytes_fetched,
            extra=dict(record.extra),
        )

    def _fetch(self, name: str, file: DistFile, index_url: str) -> Release:
        if self.offline and not is_local_url(file.url):
            raise _offline_miss(f"{name}=={file.version}")
        if file.yanked:
            log.warning("%s %s was yanked from the index; reading it anyway", name, file.version)
        log.info("fetching %s", file.filename)
        before = self._fetcher.bytes_fetched
        with self.cache.staging() as work:
            opened = self._open_by_ranges(name, file, index_url, work)
            if isinstance(opened, Opened):
                spent = self._fetcher.bytes_fetched - before
                return self._publish_wheel(name, file, index_url, opened, work, spent)
            layout, got = fetch_sources(self._fetcher, file, work, name, downloaded=opened)
            _check_sources(name, file, layout.import_names)
            record = TreeRecord(
                name=name,
                version=file.version,
                root=layout.root,
                import_names=layout.import_names,
                requires=layout.metadata.requires,
                origin="index",
                extra={
                    "index": without_credentials(index_url),
                    "filename": file.filename,
                    "sha256": got.sha256,
                    **extensions_entry(layout.extensions),
                },
            )
            tree_dir, files = self.cache.publish_tree(index_url, work / "tree", record, got.sha256)
        return record.release(tree_dir, files, bytes_fetched=got.network_bytes)

    def _open_by_ranges(
        self, name: str, file: DistFile, index_url: str, work: Path
    ) -> Opened | Downloaded | None:
        """A remote wheel opened by ranges (its members kept under `index_url`'s key); the
        whole file when the server ignored Range; None to download it whole (not a remote
        wheel, small, or a zip we cannot read so)."""
        if not wants_ranges(file):
            return None

        def stores(key: str) -> MemberStore:
            return self.cache.members(member_key(index_url, key))

        try:
            return open_wheel(self._fetcher, file, stores, work / "download", name)
        except Unsupported as exc:
            log.info("reading %s whole: %s", file.filename, exc)
            return None

    def _publish_wheel(
        self, name: str, file: DistFile, index_url: str, opened: Opened, work: Path, spent: int
    ) -> Release:
        _check_sources(name, file, opened.import_names)
        members = member_key(index_url, opened.key)
        extra = {
            "index": without_credentials(index_url),
            "filename": file.filename,
            "members": members,
        }
        if file.sha256:
            extra["sha256"] = file.sha256
        record = TreeRecord(
            name=name,
            version=file.version,
            root="",
            import_names=opened.import_names,
            requires=opened.metadata.requires,
            origin="index",
            extra=extra,
        )
        (work / "tree").mkdir()
        self.cache.publish_tree(index_url, work / "tree", record, opened.key)
        store = self.cache.members(members)
        return self._wheel_release(record, opened.listing, store, bytes_fetched=spent)


def _check_sources(name: str, file: DistFile, import_names: tuple[str, ...]) -> None:
    """ArchiveError for a release with no Python source at all: auditing it would be a pass
    that means nothing (an empty or zeroed archive, or compiled modules only)."""
    if not import_names:
        raise ArchiveError(
            f"{name} {file.version} ({file.filename}) holds no Python source: there is nothing "
            "to audit statically",
            hint="check the file on the index: it may be empty or corrupt, or hold compiled "
            "modules only",
        )


def _available(files: list[DistFile]) -> list[str]:
    return sort_versions({f.version for f in files if not f.yanked})


def _offline_miss(what: str) -> FetchError:
    return FetchError(f"{what} is not in the cache and --offline was given", hint=OFFLINE_HINT)


LISTED = 5  # versions named when a spec matches none


def _nearest(available: list[str], wanted: str) -> tuple[list[str], str]:
    """The LISTED versions nearest the one asked for, in version order (those around where
    it would sort), and what they are ("nearest"); the newest when the spec names no
    version to be near (`available` is sorted oldest first)."""
    reference = _reference_version(wanted)
    if reference is None or len(available) <= LISTED:
        return available[-LISTED:], "newest"
    import bisect

    place = bisect.bisect_left([Version(v) for v in available], reference)
    start = max(0, min(place - LISTED // 2, len(available) - LISTED))
    return available[start : start + LISTED], "nearest"


def _reference_version(wanted: str) -> Version | None:
    """The version a spec is about: that of its first clause (`==1.2.*` -> 1.2)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion

    try:
        clauses = list(SpecifierSet(wanted))
    except InvalidSpecifier:
        return None
    for clause in clauses:
        try:
            return Version(clause.version.removesuffix(".*"))
        except InvalidVersion:
            continue
    return None


def _no_match(
    name: str, wanted: str, files: list[DistFile], *, prereleases: list[str]
) -> VersionNotFoundError:
    available = _available(files)
    shown, which = _nearest(available, wanted)
    listed = ", ".join(shown)
    more = f" (the {len(shown)} {which} of {len(available)})" if len(shown) < len(available) else ""
    message = f"no release of {name} matches '{name}{wanted}'"
    message += (
        f"; the index has {listed}{more}" if available else "; the index lists no readable files"
    )
    if prereleases:
        hint = f"pre-releases match ({', '.join(prereleases[-3:])}): pass --pre to include them"
    else:
        hint = "pick one of the versions listed, or widen the specifier"
    return VersionNotFoundError(message, hint=hint)
