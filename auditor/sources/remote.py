# Maintainers: a wheel on the index read by byte ranges: only the members an audit asks for.
#
# Owns: `open_wheel` (one tail request for the end records and the central directory, a second
#       one only when the directory is bigger than the tail, then the wheel's METADATA,
#       top_level.txt and RECORD, usually already inside the tail), the `Listing` of the
#       members a tree can show (what `_wheel_target` would have extracted), and `WheelTree`:
#       a SourceTree whose `read_text` reads a member from the member store, else fetches and
#       inflates just that member, and whose `prefetch` fetches the listed members concurrently
#       on the fetcher's worker threads, merging members closer than MERGE_GAP into one range.
#       Every member fetched is checked against the wheel's RECORD (sha256) and its CRC; one
#       read back from the member store, against its size and CRC (else fetched again).
#       The limits of limits.py hold as for extraction: checked on the listing, before any
#       member is fetched (an oversized member is left out, a bomb is an ArchiveError).
# Takes: a DistFile, a Fetcher and a MemberStore. Gives: Opened (listing, metadata, names) or,
# when the server ignores Range, the whole file already on disk (the caller extracts it).
# A layout this reader does not handle raises zipdir.Unsupported: the caller downloads whole.
# Offline, a member that is not in the store is a FetchError naming the member.
"""Wheels read member by member over HTTP range requests."""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from auditor.errors import ArchiveError, FetchError
from auditor.sources import limits, text_sha256
from auditor.sources.archive import extension_paths, wheel_rel, wheel_target
from auditor.sources.fetch import Downloaded, NotFound, verify
from auditor.sources.simple import is_sha256
from auditor.sources.trees import (
    PY_SUFFIXES,
    Metadata,
    all_clean,
    decode_source,
    import_form,
    read_core_metadata,
    read_top_level,
    safe_relative,
)
from auditor.sources.urls import without_credentials
from auditor.sources.zipdir import (
    Directory,
    Member,
    Span,
    check_readable,
    check_record,
    find_directory,
    member_bytes,
    merge_spans,
    parse_directory,
    parse_record,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from concurrent.futures import Future
    from pathlib import Path

    from auditor.sources.cache import MemberStore
    from auditor.sources.fetch import Fetcher
    from auditor.sources.simple import DistFile

log = logging.getLogger("drift_audit")

TAIL_BYTES = 256 * 1024  # wheels end with .dist-info, then the central directory: both, usually
MERGE_GAP = 4 * 1024  # members closer than this are fetched in one range
WHOLE_BELOW = 2 * TAIL_BYTES  # a wheel this small is downloaded whole, in one request
OFFLINE_HINT = "run once without --offline to fill the cache, or pass --cache-dir of a filled cache"
LISTING_VERSION = 4  # 3: the extension modules are listed; 4: by columns
DIGESTS_VERSION = 1  # digests.json: [member, crc, size, sha256 of its text]


def wants_ranges(file: DistFile) -> bool:
    """Whether to read this index file by ranges: a remote wheel not known to be small."""
    remote = file.url.startswith(("http://", "https://"))
    small = file.size is not None and file.size <= WHOLE_BELOW
    return remote and file.filename.endswith(".whl") and not small


@dataclass(frozen=True)
class Listing:
    """What the cache keeps of a wheel read by ranges: where each member we may read lies."""

    filename: str
    url: str
    size: int
    members: tuple[Member, ...]  # the members a tree shows, and RECORD
    paths: dict[str, Member] = field(hash=False, compare=False)  # tree path -> member
    extensions: frozenset[str] = frozenset()  # extension modules (`pkg/mod`), never fetched

    @classmethod
    def build(
        cls,
        filename: str,
        url: str,
        size: int,
        members: tuple[Member, ...],
        extensions: Iterable[str] = (),
    ) -> Listing:
        return cls(filename, url, size, members, _tree_paths(members), frozenset(extensions))

    def to_json(self) -> dict[str, Any]:
        """By columns: the members' names, then each numeric field of them all; each
        member's tree path, null where it is the member's name, false where it has none."""
        where = {m.name: path for path, m in self.paths.items()}
        columns = list(zip(*self.members, strict=True)) if self.members else [()] * _FIELDS
        return {
            "version": LISTING_VERSION,
            "filename": self.filename,
            "url": self.url,
            "size": self.size,
            "names": list(columns[0]),
            "columns": [list(c) for c in columns[1:]],
            "paths": [_path_json(where.get(m.name), m.name) for m in self.members],
            "extensions": sorted(self.extensions),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Listing | None:
        """The listing a cache file holds; None when it is unreadable, of another version, or
        holds anything this code would not have written (a member name that climbs out of
        the store, a negative offset, a URL that is not HTTP(S))."""
        try:
            version = data.get("version")
            if version == LISTING_VERSION:
                members, clean = _members_from_columns(data["names"], data["columns"])
                paths = _paths_from_json(data["paths"], members)
                # a null path is the member's name: checked with the names when all are clean
                checked = [p for p in data["paths"] if isinstance(p, str)] if clean else [*paths]
            elif version == 3:  # by rows, a tree path or null for each (read, not written)
                members = _members_from_rows(data["members"])
                if not all(isinstance(p, str) or p is None for p in data["paths"]):
                    return None
                paths = {
                    p: m for p, m in zip(data["paths"], members, strict=True) if isinstance(p, str)
                }
                checked = [*paths]
            else:
                return None
            if not all_clean(checked) and not all(safe_relative(p) == p for p in paths):
                return None
            url, size = data["url"], data["size"]
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                return None
            if not isinstance(size, int) or size < 0:
                return None
            extensions = data["extensions"]
            if not isinstance(extensions, list) or any(
                not isinstance(e, str) or safe_relative(e) != e for e in extensions
            ):
                return None
            return cls(str(data["filename"]), url, size, members, paths, frozenset(extensions))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


_FIELDS = len(Member._fields)
_member = functools.partial(tuple.__new__, Member)  # Member._make without its frame


def _members_from_columns(names: object, columns: object) -> tuple[tuple[Member, ...], bool]:
    """The members of a listing by columns, and whether every name is clean (as safe_relative
    leaves it); ValueError unless every name is safe to store under and every field is a
    non-negative integer, for every member."""
    if not isinstance(names, list) or not isinstance(columns, list):
        raise ValueError("not member columns")
    if len(columns) != _FIELDS - 1 or not all(
        isinstance(c, list) and len(c) == len(names) for c in columns
    ):
        raise ValueError("member columns of unequal lengths")
    clean = _check_members(names, columns) if names else True
    return tuple(map(_member, zip(names, *columns, strict=True))), clean


def _members_from_rows(rows: object) -> tuple[Member, ...]:
    """The members of a version 3 listing, a row each; ValueError as above."""
    if not isinstance(rows, list):
        raise ValueError("not a member list")
    if not all(type(row) is list and len(row) == _FIELDS for row in rows):
        raise ValueError("not a member row")
    if not rows:
        return ()
    names, *numbers = zip(*rows, strict=True)
    _check_members(names, numbers)
    return tuple(map(_member, rows))


def _check_members(names: Sequence[Any], numbers: Sequence[Sequence[Any]]) -> bool:
    """ValueError as above; whether every name is clean."""
    for column in numbers:  # column by column, at C speed: thousands a release
        if set(map(type, column)) != {int} or min(column) < 0:  # type(): no bools
            raise ValueError("a member field is not a non-negative integer")
    if set(map(type, names)) != {str}:
        raise ValueError("a member name is not text")
    if all_clean(names):
        return True
    if not all(map(safe_relative, names)):
        raise ValueError("an unsafe member name")
    return False


def _path_json(path: str | None, name: str) -> str | bool | None:
    return False if path is None else None if path == name else path


def _paths_from_json(rows: object, members: tuple[Member, ...]) -> dict[str, Member]:
    """Tree path -> member from to_json's `paths` (null: the member's name; false: none)."""
    if not isinstance(rows, list) or len(rows) != len(members):
        raise ValueError("not a path for each member")
    paths: dict[str, Member] = {}
    for path, member in zip(rows, members, strict=True):
        if path is None:
            paths[member.name] = member
        elif isinstance(path, str):
            paths[path] = member
        elif path is not False:
            raise ValueError("not a tree path")
    return paths


@dataclass(frozen=True)
class Opened:
    """A wheel opened by ranges: its listing, what it says about itself, its import names."""

    key: str  # the member store's key: the archive's sha256 (or cd-<sha256 of the directory>)
    listing: Listing
    metadata: Metadata
    import_names: tuple[str, ...]


# --------------------------------------------------------------------------- opening


@dataclass
class _Bytes:
    """A contiguous piece of the archive: data[0] is byte `start`."""

    start: int
    data: bytes

    def covers(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.start + len(self.data)

    def slice(self, start: int, end: int) -> bytes:
        return self.data[start - self.start : end - self.start]


def open_wheel(
    fetcher: Fetcher,
    file: DistFile,
    stores: Callable[[str], MemberStore],
    spill: Path,
    project: str,
) -> Opened | Downloaded:
    """Read a remote wheel's directory and metadata; or the whole file when Range is ignored.

    Raises:
        zipdir.Unsupported: a zip this reader does not handle (download it whole instead).
        ArchiveError: the archive is corrupt. FetchError: the network failed.
    """
    url = file.url
    try:
        tail = fetcher.fetch_tail(url, TAIL_BYTES, spill, file.sha256)
        if tail.whole is not None:
            return tail.whole
        if tail.start == 0:  # smaller than the tail: this is the whole file
            return _whole(tail.body, spill, file)
        buffer = _Bytes(tail.start, tail.body)
        directory = _directory(fetcher, url, buffer, tail.total)
        central = buffer.slice(directory.offset, directory.offset + directory.size)
        listing = _listing(file, tail.total, parse_directory(central, directory))
        key = file.sha256 or f"cd-{hashlib.sha256(central).hexdigest()}"
        store = stores(key)
        texts = _read_metadata(fetcher, listing, buffer, store)
    except NotFound as exc:
        raise _gone(file.filename) from exc
    store.save_listing(listing.to_json())
    info = _dist_info(listing)
    metadata = read_core_metadata(texts.get(f"{info}/METADATA", ""))
    listed = read_top_level(texts.get(f"{info}/top_level.txt", ""))
    names = WheelTree(listing, store, fetcher).import_names(listed, project)
    return Opened(key, listing, metadata, names)


def _whole(body: bytes, spill: Path, file: DistFile) -> Downloaded:
    spill.write_bytes(body)
    digest = hashlib.sha256(body).hexdigest()
    verify(file.url, spill, digest, file.sha256)
    return Downloaded(sha256=digest, network_bytes=len(body))


def _directory(fetcher: Fetcher, url: str, buffer: _Bytes, total: int) -> Directory:
    """The central directory's place; `buffer` grows back to cover it (at most twice)."""
    for _ in range(2):
        found = find_directory(buffer.data, buffer.start, total)
        want = found if isinstance(found, int) else found.offset
        if want < buffer.start:
            buffer.data = fetcher.fetch_range(url, want, buffer.start) + buffer.data
            buffer.start = want
        if not isinstance(found, int):
            return found
    raise ArchiveError("the zip64 end records point at each other in a loop")


def _listing(file: DistFile, size: int, members: list[Member]) -> Listing:
    """The members a tree shows (as extraction would keep them), plus the wheel's RECORD."""
    kept: list[Member] = []
    seen: dict[str, Member] = {}
    budget = limits.SizeBudget(file.filename)
    for member in members:
        rel = safe_relative(member.name)
        if rel is None:
            log.warning("skipping unsafe member %r in %s", member.name, file.filename)
            continue
        if member.is_dir or not rel or (wheel_target(rel) is None and not _is_record(rel)):
            continue
        if member.is_link:
            log.warning("skipping link member %r in %s", member.name, file.filename)
            continue
        if not _within_limits(member, file.filename):
            continue
        check_readable(member)
        budget.add(member.size)
        if rel in seen:
            log.warning("duplicate member %r in %s: the last one is read", rel, file.filename)
        seen[rel] = member
        kept.append(member)
    extensions = extension_paths(
        wheel_rel(rel) for m in members if not m.is_dir and (rel := safe_relative(m.name))
    )
    return Listing.build(
        file.filename, without_credentials(file.url), size, tuple(kept), extensions
    )


def _within_limits(member: Member, filename: str) -> bool:
    """False (with a warning) for a member over the per-file limit; ArchiveError for a bomb."""
    limits.check_ratio(member.name, filename, member.size, member.compressed)
    if limits.too_big(member.size) or limits.too_big(member.compressed):
        log.warning(
            "skipping member %r in %s: %d bytes, over the limit of %d for a source file",
            member.name, filename, member.size, limits.MAX_FILE_BYTES,
        )  # fmt: skip
        return False
    return True


def _is_record(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "RECORD"


def _dist_info(listing: Listing) -> str:
    """The first top folder (sorted) named `*.dist-info`."""
    infos = {n.split("/", 1)[0] for m in listing.members if ".dist-info/" in (n := m.name)}
    return min((i for i in infos if i.endswith(".dist-info")), default="missing.dist-info")


def _read_metadata(
    fetcher: Fetcher, listing: Listing, buffer: _Bytes, store: MemberStore
) -> dict[str, str]:
    """METADATA, top_level.txt and RECORD: from the tail when it holds them, else fetched in
    as few ranges as possible; checked against RECORD and stored."""
    info = _dist_info(listing)
    wanted = [m for m in listing.members if m.name.split("/", 1)[0] == info]
    _extend_back(fetcher, listing.url, buffer, [m for m in wanted if m.offset < buffer.start])
    content: dict[str, bytes] = {}
    for member in wanted:
        if buffer.covers(member.offset, member.end):
            content[member.name] = member_bytes(member, buffer.data, buffer.start)
    missing = [m for m in wanted if m.name not in content]
    for span in merge_spans(missing, MERGE_GAP):
        blob = fetcher.fetch_range(listing.url, span.start, span.end)
        content.update({m.name: member_bytes(m, blob, span.start) for m in span.members})
    record = content.get(f"{info}/RECORD")
    hashes = parse_record(decode_source(record)) if record is not None else {}
    for name, data in content.items():
        if not name.endswith("/RECORD"):
            check_record(name, data, hashes, listing.filename)
        store.write(name, data)
    return {name: decode_source(data) for name, data in content.items()}


def _extend_back(fetcher: Fetcher, url: str, buffer: _Bytes, before: list[Member]) -> None:
    """Grow the tail back over members just before it (wheels end with .dist-info), when the
    bytes in between are mostly those members: one request, nothing fetched twice."""
    if not before:
        return
    start = min(m.offset for m in before)
    needed = sum(min(m.end, buffer.start) - m.offset for m in before)
    if buffer.start - start <= needed + MERGE_GAP:
        buffer.data = fetcher.fetch_range(url, start, buffer.start) + buffer.data
        buffer.start = start


def _gone(filename: str) -> FetchError:
    return FetchError(
        f"the index lists {filename} but the file is not there (404)",
        hint="retry later, or pass --index-url of a complete index",
    )


# --------------------------------------------------------------------------- the tree


class WheelTree:
    """A SourceTree over a remote wheel: members come from the store, else from the network.

    `strict`: decode as Python would, raising UnicodeDecodeError (a consumer's tree)."""

    def __init__(
        self,
        listing: Listing,
        store: MemberStore,
        fetcher: Fetcher,
        packages: Iterable[str] | None = None,
    ) -> None:
        self.listing = listing
        self.packages = tuple(packages) if packages is not None else None
        self._store = store
        self._fetcher = fetcher
        self._paths = listing.paths
        info = _dist_info(listing)
        self._record = next((m for m in listing.members if m.name == f"{info}/RECORD"), None)
        self._pending: dict[str, Future[dict[str, bytes]]] = {}
        self._held: dict[str, bytes] = {}  # fetched but not stored (an unwritable cache)
        self._hashes: dict[str, bytes] | None = None
        self._hashes_lock = threading.Lock()
        self._digests: dict[str, str] | None = None  # member -> text sha256 (digests.json)
        self._digested = 0  # how many of them were read from digests.json
        self._asked: set[str] = set()  # the paths prefetch() was given
        self.strict = False

    def __repr__(self) -> str:
        return f"WheelTree({self.listing.filename!r})"

    # ----------------------------------------------------------------------- SourceTree

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else decode_source(data, strict=self.strict)

    def read_bytes(self, path: str) -> bytes | None:
        member = self._member(path)
        return None if member is None else self._content(member)

    def digest(self, path: str) -> str | None:
        """sources.file_digest() of a member without reading it when it was digested before
        (in any run: the store keeps them, see keep_digests); None when there is no such
        file. A kept digest counts only for the member of the same CRC and size."""
        member = self._member(path)
        if member is None:
            return None
        digests = self._known_digests()
        found = digests.get(member.name)
        if found is None:
            text = self.read_text(path)
            if text is None:
                return None
            found = digests[member.name] = text_sha256(text)
        return found

    def keep_digests(self) -> None:
        """Store the digests this run added, with any another run kept meanwhile (an
        unwritable store keeps none: only slower)."""
        if self._digests is None or len(self._digests) == self._digested:
            return
        by_name = self._by_name
        kept = _digests_from_json(self._store.load_digests(), by_name)
        digests = {**kept, **self._digests}
        rows = [  # every name is a member's: kept ones were checked, new ones were read
            [name, by_name[name].crc, by_name[name].size, digest]
            for name, digest in sorted(digests.items())
        ]
        self._store.save_digests({"version": DIGESTS_VERSION, "members": rows})

    def _known_digests(self) -> dict[str, str]:
        if self._digests is None:
            self._digests = _digests_from_json(self._store.load_digests(), self._by_name)
            self._digested = len(self._digests)
        return self._digests

    @functools.cached_property
    def _by_name(self) -> dict[str, Member]:
        return {m.name: m for m in self.listing.members}

    def is_dir(self, path: str) -> bool:
        rel = safe_relative(path)
        return rel is not None and rel in self._dirs

    def has_extension(self, base: str) -> bool:
        """Whether the wheel holds an extension module `base` (`pkg/mod`: `pkg/mod.*.so`...)."""
        return safe_relative(base) in self.listing.extensions

    @functools.cached_property
    def _dirs(self) -> frozenset[str]:
        dirs = {""}
        for path in self._paths:  # each path's folders, up to the first one already seen
            folder = path.rpartition("/")[0]
            while folder not in dirs:
                dirs.add(folder)
                folder = folder.rpartition("/")[0]
        return frozenset(dirs)

    def entries(self, path: str) -> tuple[str, ...]:
        """sources.folder_entries(): the names in a folder of the wheel that may be modules,
        from its listing (nothing is fetched)."""
        from auditor.sources import module_entries

        rel = safe_relative(path)
        if not rel or rel not in self._dirs:
            return ()
        inside = (p[len(rel) + 1 :] for p in self._paths if p.startswith(f"{rel}/"))
        return module_entries(p.split("/", 1)[0] for p in inside)

    def walk(self) -> Iterator[str]:
        """Every .py/.pyi under the import names; fetched ahead, since a walk reads them all."""
        tops = set(self.packages if self.packages is not None else self.import_names(()))
        found = sorted(
            p for p in self._paths if p.endswith(PY_SUFFIXES) and _top(p) in tops and not _hidden(p)
        )
        self.prefetch(found)
        yield from found

    def prefetch(self, paths: Iterable[str]) -> None:
        """Fetch the listed members among `paths` that are neither stored nor on their way."""
        if self._fetcher.offline:
            return
        wanted: dict[str, Member] = {}
        asked = self._asked
        for path in paths:
            if path in asked:  # stored, on its way, digested or absent: as it was then
                continue
            asked.add(path)
            member = self._member(path)
            if member is None or member.name in wanted or self._known(member.name):
                continue
            wanted[member.name] = member
        if not wanted:
            return
        pool = self._fetcher.pool()
        for span in merge_spans(wanted.values(), MERGE_GAP):
            future = pool.submit(self._fetch_span, span)
            self._pending.update(dict.fromkeys((m.name for m in span.members), future))

    # ----------------------------------------------------------------------- import names

    def import_names(self, listed: Iterable[str], project: str | None = None) -> tuple[str, ...]:
        """The listed top-level names that exist, else every importable top-level name."""
        present = tuple(n for n in dict.fromkeys(listed) if self._top_exists(n))
        if present:
            return present
        prefer = import_form(project) if project else None
        names = [_top(p) for p in sorted(self._paths) if p.endswith(PY_SUFFIXES)]
        return tuple(n for n in dict.fromkeys(names) if _importable(n, prefer))

    def _top_exists(self, name: str) -> bool:
        return name in self._dirs or any(f"{name}{s}" in self._paths for s in PY_SUFFIXES)

    # ----------------------------------------------------------------------- members

    def _member(self, path: str) -> Member | None:
        rel = safe_relative(path)
        return None if rel is None else self._paths.get(rel)

    def _known(self, name: str) -> bool:
        """Stored, on its way, or digested before (it was read, so stored: one that is gone
        since is fetched when it is read)."""
        return (
            name in self._pending
            or name in self._held
            or name in self._known_digests()
            or self._store.has(name)
        )

    def _content(self, member: Member) -> bytes:
        future = self._pending.pop(member.name, None)
        if future is not None:
            return future.result()[member.name]
        data = self._held.get(member.name)
        if data is None:
            data = self._stored(member)
        if data is not None:
            return data
        if self._fetcher.offline:
            raise FetchError(
                f"{member.name} of {self.listing.filename} is not in the cache "
                "and --offline was given",
                hint=OFFLINE_HINT,
            )
        return self._fetch_span(Span(member.offset, member.end, (member,)))[member.name]

    def _stored(self, member: Member) -> bytes | None:
        """The member from the store; None when it is not there or fails its size or CRC
        (a truncated or damaged cache file: it is fetched again)."""
        data = self._store.read(member.name)
        if data is None or (len(data) == member.size and zlib.crc32(data) == member.crc):
            return data
        log.warning(
            "%s of %s in the cache is damaged; reading it again", member.name, self.listing.filename
        )
        return None

    def _fetch_span(self, span: Span) -> dict[str, bytes]:
        """Fetch one range, inflate and check its members, store them (runs on any thread)."""
        try:
            blob = self._fetcher.fetch_range(self.listing.url, span.start, span.end)
        except NotFound as exc:
            raise _gone(self.listing.filename) from exc
        hashes = self._record_hashes()
        found: dict[str, bytes] = {}
        for member in span.members:
            data = member_bytes(member, blob, span.start)
            check_record(member.name, data, hashes, self.listing.filename)
            if not self._store.write(member.name, data):
                self._held[member.name] = data
            found[member.name] = data
        return found

    def _record_hashes(self) -> dict[str, bytes]:
        with self._hashes_lock:
            if self._hashes is None:
                self._hashes = self._load_record()
            return self._hashes

    def _load_record(self) -> dict[str, bytes]:
        if self._record is None:
            log.warning("%s has no RECORD: members are checked by CRC only", self.listing.filename)
            return {}
        data = self._stored(self._record)
        if data is None:
            record = self._record
            try:
                blob = self._fetcher.fetch_range(self.listing.url, record.offset, record.end)
            except NotFound as exc:
                raise _gone(self.listing.filename) from exc
            data = member_bytes(record, blob, record.offset)
            self._store.write(record.name, data)
        return parse_record(decode_source(data))


def _digests_from_json(data: dict[str, Any], by_name: dict[str, Member]) -> dict[str, str]:
    """Member -> text digest, from digests.json: only rows of the right shape whose member
    the listing has (`by_name`) with the same CRC and size (anything else is left out: read
    again)."""
    rows = data.get("members") if data.get("version") == DIGESTS_VERSION else None
    if not isinstance(rows, list):
        return {}
    found: dict[str, str] = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4):
            continue
        name, crc, size, digest = row
        member = by_name.get(name) if isinstance(name, str) else None
        if member is not None and (crc, size) == (member.crc, member.size) and is_sha256(digest):
            found[name] = digest
    return found


def _tree_paths(members: Iterable[Member]) -> dict[str, Member]:
    """Tree path -> member, as extraction would lay them out (a later member wins)."""
    paths: dict[str, Member] = {}
    for member in members:
        rel = safe_relative(member.name)
        target = wheel_target(rel) if rel else None
        if target is not None:
            paths[target] = member
    return paths


def _top(path: str) -> str:
    first = path.split("/", 1)[0]
    return first.rsplit(".", 1)[0] if "/" not in path and first.endswith(PY_SUFFIXES) else first


def _hidden(path: str) -> bool:
    folders = path.split("/")[:-1]
    return any(f.startswith(".") or f == "__pycache__" for f in folders)


def _importable(name: str, prefer: str | None) -> bool:
    from auditor.sources.trees import SKIP_NAMES

    if name.startswith(".") or not name.isidentifier():
        return False
    return name not in SKIP_NAMES or name == prefer
