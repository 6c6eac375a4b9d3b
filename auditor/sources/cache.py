# Maintainers: the on-disk cache, so that a repeated audit downloads nothing.
#
# Owns: the cache folder (argument > $DRIFT_AUDIT_CACHE_DIR > the user cache dir) and its layout:
#     trees/<index key>/<name>/<version>-<sha256[:16]>/  extracted sources + release.json
#     trees/<index key>/<name>/index.json      version -> tree folder, for lookups without network
#     local/<sha256[:16]>/                    the same for local wheels/sdists (direct references)
#     members/<index key>/<sha256>/listing.json  a wheel read by ranges: members, where they lie
#     members/<index key>/<sha256>/files/<path>  the members read so far (verified, inflated)
#     members/<index key>/<sha256>/digests.json  each member's text sha256, once computed
#     pages/<index key>/<name>.json           parsed project pages, fresh for PAGE_TTL_SECONDS
#     resolutions/, chains/                   the provider lookup memo and the call-chain memo
#     tmp/                                    downloads and extractions in progress
#     CACHEDIR.TAG                            written by files.Confined when it makes the folder
# Index scoping, the rule: everything that came from an index (trees, pages, the members and
# listing of a wheel read by ranges, whose URL is where missing members are fetched from) is
# kept under that index's key, a hash of its URL without credentials (`index_key`), and is
# used only when that same index is given again (--index-url, PIP_INDEX_URL, pip's config or
# an extra index). Given another index B, nothing of A's is answered: B is asked, and an
# unreachable B fails the audit as a cold cache would (FetchError). For the index it came
# from, an exact pin in the cache is answered without any request (a warm run makes 0) and a
# page is reused for PAGE_TTL_SECONDS; an older page is fetched again, and only when that
# index is then unreachable is the old page used, with a warning. The resolutions/ memo is
# keyed by the sha256 of the provider files it read and chains/ by the consumer's graph, so
# they hold no index's answers. Credentials never reach a key, a record, a page or a listing.
# The cache is untrusted input (a CI cache restored from a pull request's run): every path is
# reached through files.Confined, which walks from the root without following links, and every
# name read back from a record or listing is checked before use; an entry that is not what
# this code writes is a miss (a warning), fetched again and replaced. So whatever the cache
# holds, nothing is read or written outside it.
# Every write is atomic: files via temp + rename; trees are built in tmp/ and renamed into
# place with their release.json and manifest.json (sha256 of every file) inside, so a tree
# folder that exists is complete. What is read back is checked: a tree against its manifest,
# a listing (and digests.json) against the sha256 it carries, a member against its size and CRC
# (remote.py).
# A tree's files are read through its manifest: one that vanishes during the audit (another
# process cleared the cache) is an error, never an absent module. A wheel read by ranges has a
# tree folder holding only release.json (extra["members"] names its members/ folder); its
# members arrive one by one, each written atomically, and are read from there.
# Whose folder it is, and `drift-audit cache info|clear`: sources/cachedir.py.
# Takes: records and staged folders. Gives: records, tree folders, cached pages, Releases.
"""The local cache of extracted source trees and index pages."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from auditor.errors import FetchError
from auditor.files import Confined, Signature
from auditor.jsontext import loads
from auditor.sources import Release
from auditor.sources.root import CACHE_ENV
from auditor.sources.simple import DistFile
from auditor.sources.trees import FolderTree, safe_relative

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

log = logging.getLogger("drift_audit")

PAGE_TTL_SECONDS = 600.0
STALE_TMP_SECONDS = 86400.0
RECORD = "release.json"
MANIFEST = "manifest.json"
EXTENSIONS = "extensions"  # a record's extra: the extension modules of an extracted tree
LISTING = "listing.json"
DIGESTS = "digests.json"  # beside a listing: its members' text digests (remote.WheelTree)
CACHE_HINT = f"pass --cache-dir (or set {CACHE_ENV}) to a writable folder"
MAX_RECORD_BYTES = 16 << 20  # release.json, manifest.json, index.json: small JSON
MAX_LISTING_BYTES = 256 << 20  # a listing of every member of a big wheel, or a page
_KEY = re.compile(r"([0-9a-f]{16}/)?(cd-)?[0-9a-f]{64}")  # [index key/]archive sha256


def index_key(index_url: str) -> str:
    """The folder name of an index in the cache: a hash of its URL without credentials."""
    from auditor.sources.urls import without_credentials

    return hashlib.sha256(without_credentials(index_url).rstrip("/").encode()).hexdigest()[:16]


def member_key(index_url: str, archive_key: str) -> str:
    """The members/ folder of an archive read by ranges from `index_url`: `<index key>/<key>`
    (`archive_key` is the archive's sha256, or `cd-` and the sha256 of its directory)."""
    return f"{index_key(index_url)}/{archive_key}"


def is_member_key(key: object) -> bool:
    """Whether `key` names a members/ folder as this code makes them, or made them before
    members were kept per index (a bare sha256)."""
    return isinstance(key, str) and _KEY.fullmatch(key) is not None


class OutdatedRecord(ValueError):
    """A release.json an older drift-audit wrote, in a form this one no longer reads: a miss,
    fetched again and replaced (not a sign of tampering, so only logged at info level)."""


@dataclass(frozen=True)
class TreeRecord:
    """What we know about an extracted tree, stored beside it as release.json."""

    name: str
    version: str | None
    root: str  # the import root, posix, relative to the tree folder
    import_names: tuple[str, ...]
    requires: tuple[str, ...] = ()
    origin: str = "index"
    extra: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "root": self.root,
            "import_names": list(self.import_names),
            "requires": list(self.requires),
            "origin": self.origin,
            "extra": dict(self.extra),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeRecord:
        """The record; ValueError when any field is not what this code writes (an import
        root that leaves the tree, import names that are not identifiers, a members key that
        is not a hash...)."""
        version, root, extra = data["version"], data["root"], data["extra"]
        names, requires = data["import_names"], data["requires"]
        if not (_strings(names) and _strings(requires) and isinstance(extra, dict)):
            raise ValueError("a field has the wrong type")
        if not all(isinstance(n, str) and n.isidentifier() for n in names):
            raise ValueError("an import name is not an identifier")
        if not isinstance(root, str) or (root and safe_relative(root) != root):
            raise ValueError("the import root leaves the tree")
        if version is not None and not isinstance(version, str):
            raise ValueError("the version is not a string")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in extra.items()):
            raise ValueError("extra holds something else than strings")
        if "members" in extra and not is_member_key(extra["members"]):
            raise ValueError("the members key is not a sha256")
        if "members" in extra and "/" not in extra["members"]:
            raise OutdatedRecord("its members were kept before they were kept per index")
        if "members" not in extra and EXTENSIONS not in extra:
            raise OutdatedRecord("it was extracted before extension modules were noted")
        if any(safe_relative(e) != e for e in extensions_of(extra)):
            raise ValueError("an extension module's path leaves the tree")
        return cls(
            name=str(data["name"]),
            version=version,
            root=root,
            import_names=tuple(names),
            requires=tuple(requires),
            origin=str(data["origin"]),
            extra=dict(extra),
        )

    def release(
        self, tree: Path, files: Iterable[str] | None = None, bytes_fetched: int = 0
    ) -> Release:
        """The Release this record describes, reading from the folder `tree`; with `files`
        (the manifest's paths, relative to `tree`) only those are read, and one that vanishes
        is an error."""
        root = tree / self.root if self.root else tree
        listed = None
        if files is not None:
            prefix = f"{self.root}/" if self.root else ""
            listed = [f[len(prefix) :] for f in files if f.startswith(prefix)]
        return Release(
            name=self.name,
            version=self.version,
            tree=CachedTree(
                root, packages=self.import_names, files=listed, extensions=extensions_of(self.extra)
            ),
            origin=self.origin,
            import_names=self.import_names,
            requires=self.requires,
            bytes_fetched=bytes_fetched,
            extra={**self.extra, "root": str(root)},
        )


def extensions_of(extra: dict[str, str]) -> list[str]:
    """The extension modules an extracted tree's record notes (`pkg/mod`, one per line)."""
    return [line for line in extra.get(EXTENSIONS, "").split("\n") if line]


def extensions_entry(paths: Iterable[str]) -> dict[str, str]:
    """The record's note of a tree's extension modules (always there, empty when none)."""
    return {EXTENSIONS: "\n".join(paths)}


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


class CachedTree(FolderTree):
    """A tree in the cache: no link below it is followed; with a file list (its manifest), a
    listed file that cannot be read any more means the cache changed under the audit."""

    links = False

    def read_bytes(self, path: str) -> bytes | None:
        data = super().read_bytes(path)
        if data is None and self.files is not None and safe_relative(path) in self.files:
            raise FetchError(
                f"{path} vanished from the cached tree {self.root} during the audit",
                hint="another drift-audit (or `drift-audit cache clear`) changed the cache; "
                "run the audit again",
            )
        return data


@dataclass(frozen=True)
class CachedPage:
    """A project page from the cache, and how old it is."""

    files: list[DistFile]
    age: float  # seconds since it was fetched


class Cache:
    """Trees, pages and staging folders under one root, reached only through `fs`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.fs = Confined(root)
        # What this run's answers rest on, for a replay of the run (replay.py): every
        # record, index and page read (its signature, None when absent), and until when the
        # pages read are fresh; `unreplayable` says why the run cannot be replayed at all.
        self._index_lock = threading.Lock()
        self.consulted: dict[str, Signature | None] = {}
        self.entries_read: dict[str, dict[str, str]] = {}  # a trees index.json -> entries used
        self.fresh_until = math.inf
        self.unreplayable = ""

    def note_fresh_until(self, when: float) -> None:
        """An answer of this run holds only until `when` (a cached page's freshness)."""
        self.fresh_until = min(self.fresh_until, when)

    # ----------------------------------------------------------------------- trees

    def find_tree(
        self, index_url: str, name: str, version: str
    ) -> tuple[Path, TreeRecord, list[str]] | None:
        """The tree of `name` at a version equal to `version` (PEP 440) fetched from
        `index_url` earlier: (folder, record, its files), if any."""
        folder = f"trees/{index_key(index_url)}/{name}"
        rel = f"{folder}/index.json"
        matched: dict[str, str] = {}
        for cached, dirname in self._read_json(rel, record=False).items():
            if not (is_component(dirname) and same_version(cached, version)):
                continue
            matched[cached] = dirname
            if (found := self._load_tree(f"{folder}/{dirname}")) is not None:
                # the answer rests on these entries, not on the others (other versions
                # published later leave it as it is)
                self.entries_read.setdefault(rel, {}).update(matched)
                return found
        self.consulted[rel] = self.fs.signature(rel)  # none: any change may make one
        return None

    def find_local(self, sha256: str) -> tuple[Path, TreeRecord, list[str]] | None:
        """The tree extracted earlier from a local archive with this hash."""
        return self._load_tree(f"local/{sha256[:16]}")

    def publish_tree(
        self, index_url: str, staged: Path, record: TreeRecord, sha256: str
    ) -> tuple[Path, list[str]]:
        """Move a staged index tree into place and list it in the project's index.json."""
        folder = f"trees/{index_key(index_url)}/{record.name}"
        dirname = f"{record.version}-{sha256[:16]}"
        published = self._publish(staged, record, f"{folder}/{dirname}")
        rel = f"{folder}/index.json"
        with self._index_lock:  # releases of one project are fetched side by side
            index = self._read_json(rel, record=False)
            index[str(record.version)] = dirname
            self._write_json(rel, index)
            # this run's answer for the release rests on the entry written, not the file
            self.consulted.pop(rel, None)
            self.entries_read.setdefault(rel, {})[str(record.version)] = dirname
        return published

    def publish_local(
        self, staged: Path, record: TreeRecord, sha256: str
    ) -> tuple[Path, list[str]]:
        return self._publish(staged, record, f"local/{sha256[:16]}")

    def members(self, key: str) -> MemberStore:
        """The store of members read by ranges from the archive with this key
        (`member_key`: the index's key and the archive's sha256)."""
        if not is_member_key(key):
            raise ValueError(f"not a members key: {key!r}")
        return MemberStore(self.fs, f"members/{key}")

    def _publish(self, staged: Path, record: TreeRecord, dest: str) -> tuple[Path, list[str]]:
        src = self._rel(staged)
        try:
            manifest = self._manifest(src)
            self.fs.write(f"{src}/{MANIFEST}", json.dumps(manifest).encode())
            self.fs.write(f"{src}/{RECORD}", json.dumps(record.to_json(), indent=1).encode())
            self._discard_damaged(dest)
            self.fs.rename(src, dest)
        except OSError as exc:
            if (theirs := self._load_tree(dest, quiet=True)) is not None:
                return theirs[0], theirs[2]  # another run got there first: theirs is complete
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc.strerror or exc}", hint=CACHE_HINT
            ) from exc
        return self.fs.path(dest), sorted(manifest)

    def _discard_damaged(self, dest: str) -> None:
        """Move a damaged tree (or anything else in its place) out of the way, then delete it."""
        if self.fs.lstat(dest) is None or self._load_tree(dest, quiet=True):
            return
        aside = self._rel(self.fs.mkdtemp("tmp", prefix="damaged-"))
        with contextlib.suppress(OSError):  # another run may have moved it first
            self.fs.rename(dest, f"{aside}/tree")
        self.fs.remove(aside)

    @contextlib.contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh folder on the cache's file system (so the final rename is atomic)."""
        try:
            self._sweep()
            work = self.fs.mkdtemp("tmp")
        except OSError as exc:
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc.strerror or exc}", hint=CACHE_HINT
            ) from exc
        try:
            yield work
        finally:
            self.fs.remove(self._rel(work))

    def _sweep(self) -> None:
        """Remove staging folders left behind by runs that were killed more than a day ago."""
        cutoff = time.time() - STALE_TMP_SECONDS
        for name in self.fs.listdir("tmp"):
            info = self.fs.lstat(f"tmp/{name}")
            if info is not None and info.st_mtime < cutoff:
                self.fs.remove(f"tmp/{name}")

    def _load_tree(
        self, rel: str, *, quiet: bool = False
    ) -> tuple[Path, TreeRecord, list[str]] | None:
        """A cached tree, its record and its files; None when it is missing, unreadable or
        damaged (a field that is not what we write, a file missing or not matching its
        manifest)."""
        data = self._read_json(f"{rel}/{RECORD}")
        if not data:
            return None
        try:
            record = TreeRecord.from_json(data)
        except OutdatedRecord as exc:
            log.info("fetching %s again: %s", rel, exc)
            return None
        except (KeyError, TypeError, ValueError) as exc:
            log.warning(
                "ignoring the cache entry %s: its %s is not drift-audit's (%s)", rel, RECORD, exc
            )
            return None
        files, damage = self._check_manifest(rel)
        if damage is not None:
            if not quiet:
                log.warning(
                    "the cached tree %s is damaged (%s); fetching it again",
                    self.fs.path(rel),
                    damage,
                )
            return None
        return self.fs.path(rel), record, files

    def _check_manifest(self, rel: str) -> tuple[list[str], str | None]:
        """The tree's files, and what is wrong with it against its manifest (None: nothing)."""
        try:
            raw = self.fs.read(f"{rel}/{MANIFEST}", limit=MAX_LISTING_BYTES)
            manifest = loads(raw) if raw is not None else None
        except (OSError, ValueError, RecursionError):
            manifest = None
        if not isinstance(manifest, dict):
            return [], f"no readable {MANIFEST}"
        for path, digest in manifest.items():
            if (
                not isinstance(path, str)
                or safe_relative(path) != path
                or not isinstance(digest, str)
            ):
                return [], f"{MANIFEST} names {path!r}"
            try:
                data = self.fs.read(f"{rel}/{path}", limit=MAX_LISTING_BYTES)
            except OSError as exc:
                return [], f"{path}: {exc.strerror or exc}"
            if data is None:
                return [], f"{path} is missing"
            if hashlib.sha256(data).hexdigest() != digest:
                return [], f"{path} does not match its sha256"
        return sorted(manifest), None

    def _manifest(self, rel: str) -> dict[str, str]:
        """posix path -> sha256 of every file under root/rel."""
        found = {}
        for path, _ in self.fs.walk_files(rel):
            data = self.fs.read(f"{rel}/{path}", limit=MAX_LISTING_BYTES) or b""
            found[path] = hashlib.sha256(data).hexdigest()
        return found

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # ----------------------------------------------------------------------- pages

    def load_page(self, index_url: str, name: str) -> CachedPage | None:
        data = self._read_json(self._page_path(index_url, name), limit=MAX_LISTING_BYTES)
        try:
            files = [DistFile.from_json(f, index_url) for f in data["files"]]
            return CachedPage(files, time.time() - float(data["fetched"]))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def store_page(self, index_url: str, name: str, files: list[DistFile]) -> None:
        from auditor.sources.urls import without_credentials

        data = {
            "index": without_credentials(index_url),
            "fetched": time.time(),
            "files": [f.to_json() for f in files],
        }
        try:
            self._write_json(self._page_path(index_url, name), data)
        except FetchError as exc:  # a page cache we cannot write only costs a later request
            log.warning("%s", exc.message)

    def _page_path(self, index_url: str, name: str) -> str:
        return f"pages/{index_key(index_url)}/{name}.json"

    # ----------------------------------------------------------------------- JSON

    def _read_json(
        self, rel: str, *, limit: int = MAX_RECORD_BYTES, record: bool = True
    ) -> dict[str, Any]:
        """A JSON object from the cache; {} when it is absent, refused or not an object.
        `record`: what this run's answers rest on (else the caller records what it used)."""
        if record:
            self.consulted[rel] = self.fs.signature(rel)
        return self.fs.read_json(rel, limit=limit)

    def _write_json(self, rel: str, data: dict[str, Any]) -> None:
        try:
            self.fs.write(rel, json.dumps(data, indent=1, sort_keys=True).encode())
        except OSError as exc:
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc.strerror or exc}", hint=CACHE_HINT
            ) from exc
        if rel in self.consulted:  # read earlier in this run, written now: the new one counts
            self.consulted[rel] = self.fs.signature(rel)


def is_component(name: object) -> bool:
    """Whether `name` is one safe path component (a tree folder named in an index.json)."""
    return isinstance(name, str) and safe_relative(name) == name and "/" not in name


class MemberStore:
    """members/<key>/: listing.json and files/<member path>, each written atomically.

    A store that cannot be written is not an error: the members stay in memory for this run
    (one warning), and the next run fetches them again. Member names are checked before
    they become paths: one that is absolute or climbs out is never read or written.
    """

    def __init__(self, fs: Confined, folder: str) -> None:
        self.fs = fs
        self.folder = folder
        self._warned = False

    def __repr__(self) -> str:
        return f"MemberStore({str(self.fs.root / self.folder)!r})"

    def load_listing(self) -> dict[str, Any]:
        """The stored listing; {} when there is none or it fails its own sha256.

        The seal is the sha256 of the file's own bytes without it (`_save_sealed` writes it
        last), checked before parsing. A listing sealed the older way (the sha256 of its
        sorted JSON) is still read: only version 3 listings have that seal, and
        Index._cached_release keeps each of them again in the current form."""
        data, sealed = self._load_sealed(LISTING)
        if not data or sealed:
            return data
        if data.pop("sha256", None) != _digest(data):
            log.warning(
                "the cached listing %s is damaged; reading it again", self.fs.path(self.folder)
            )
            return {}
        return data

    def save_listing(self, data: dict[str, Any]) -> None:
        self._save_sealed(LISTING, data)

    def load_digests(self) -> dict[str, Any]:
        """What save_digests kept (each member's text digest); {} when absent or damaged."""
        data, sealed = self._load_sealed(DIGESTS)
        return data if sealed else {}

    def save_digests(self, data: dict[str, Any]) -> None:
        self._save_sealed(DIGESTS, data)

    def _load_sealed(self, name: str) -> tuple[dict[str, Any], bool]:
        """A stored JSON object, and whether it carries _save_sealed's seal of its bytes
        (then without the seal's key)."""
        try:
            raw = self.fs.read(f"{self.folder}/{name}", limit=MAX_LISTING_BYTES)
            data = loads(raw) if raw is not None else {}
        except (OSError, ValueError, RecursionError):
            return {}, False
        if not isinstance(data, dict) or raw is None:
            return {}, False
        if _sealed_bytes(raw, data.get("sha256")):
            del data["sha256"]
            return data, True
        return data, False

    def _save_sealed(self, name: str, data: dict[str, Any]) -> None:
        body = json.dumps(data, separators=(",", ":")).encode()
        seal = hashlib.sha256(body).hexdigest().encode()
        self._write(name, body[:-1] + _SEAL + seal + b'"}')

    def read(self, name: str) -> bytes | None:
        rel = self._member(name)
        if rel is None:
            return None
        try:
            return self.fs.read(rel, limit=MAX_LISTING_BYTES)
        except OSError:
            return None

    def has(self, name: str) -> bool:
        rel = self._member(name)
        info = self.fs.lstat(rel) if rel is not None else None
        return info is not None and info.st_mode & 0o170000 == 0o100000

    def write(self, name: str, data: bytes) -> bool:
        """Store one member; False when the cache could not be written (or the name is not
        a safe relative path)."""
        rel = self._member(name)
        if rel is None:
            log.warning("not storing the member %r: not a safe relative path", name)
            return False
        return self._write(rel.removeprefix(f"{self.folder}/"), data)

    def _write(self, rel: str, data: bytes) -> bool:
        try:
            self.fs.write(f"{self.folder}/{rel}", data)
        except OSError as exc:
            self._warn(exc)
            return False
        return True

    def _member(self, name: str) -> str | None:
        rel = safe_relative(name)
        return f"{self.folder}/files/{rel}" if rel else None

    def _warn(self, exc: OSError) -> None:
        if not self._warned:
            self._warned = True
            log.warning(
                "cannot write to the cache at %s: %s (%s)",
                self.fs.path(self.folder),
                exc,
                CACHE_HINT,
            )


def same_version(a: object, b: str) -> bool:
    """PEP 440 equality (`0.17` is `0.17.0`), falling back to the literal text."""
    if not isinstance(a, str):
        return False
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


_SEAL = b',"sha256":"'  # a listing's last key: the sha256 of the bytes before it, closed


def _sealed_bytes(raw: bytes | None, digest: object) -> bool:
    """Whether `raw` ends with save_listing's seal and the seal is its bytes' sha256."""
    if raw is None or not isinstance(digest, str):
        return False
    tail = _SEAL + digest.encode("ascii", "replace") + b'"}'
    if not raw.endswith(tail):
        return False
    body = raw[: -len(tail)] + b"}"
    return hashlib.sha256(body).hexdigest() == digest


def _digest(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
