# Maintainers: the on-disk cache, so that a repeated audit downloads nothing.
#
# Owns: the cache folder (argument > $DRIFT_AUDIT_CACHE_DIR > the user cache dir) and its layout:
#     trees/<name>/<version>-<sha256[:16]>/   extracted sources + release.json (what we know)
#     trees/<name>/index.json                 version -> tree folder, for lookups without network
#     local/<sha256[:16]>/                    the same for local wheels/sdists (direct references)
#     members/<sha256>/listing.json           a wheel read by ranges: its members and where they lie
#     members/<sha256>/files/<member path>    the members read so far (verified, inflated)
#     pages/<hash of index URL>/<name>.json   parsed project pages, fresh for PAGE_TTL_SECONDS
#     tmp/                                    downloads and extractions in progress
# Every write is atomic: files via temp + os.replace; trees are built in tmp/ and renamed into
# place with their release.json and manifest.json (sha256 of every file) inside, so a tree
# folder that exists is complete. What is read back is checked: a tree against its manifest,
# a listing against the sha256 it carries, a member against its size and CRC (remote.py);
# a damaged entry is a miss (a warning), fetched again and replaced. A wheel read
# by ranges has a tree folder holding only release.json (extra["members"] names its members/
# folder); its members arrive one by one, each written atomically, and are read from there.
# Takes: records and staged folders. Gives: records, tree folders, cached pages, Releases.
"""The local cache of extracted source trees and index pages."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from auditor.errors import FetchError
from auditor.sources import Release
from auditor.sources.simple import DistFile
from auditor.sources.trees import FolderTree

if TYPE_CHECKING:
    from collections.abc import Iterator

log = logging.getLogger("drift_audit")

CACHE_ENV = "DRIFT_AUDIT_CACHE_DIR"
PAGE_TTL_SECONDS = 600.0
STALE_TMP_SECONDS = 86400.0
RECORD = "release.json"
MANIFEST = "manifest.json"
LISTING = "listing.json"
CACHE_HINT = f"pass --cache-dir (or set {CACHE_ENV}) to a writable folder"


def cache_root(cache_dir: str | Path | None = None) -> Path:
    """The cache folder: the argument, else $DRIFT_AUDIT_CACHE_DIR, else the user cache dir."""
    chosen = cache_dir or os.environ.get(CACHE_ENV)
    if not chosen:
        import platformdirs

        chosen = platformdirs.user_cache_dir("drift-audit")
    return Path(chosen).expanduser()


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
        return cls(
            name=str(data["name"]),
            version=data["version"],
            root=str(data["root"]),
            import_names=tuple(data["import_names"]),
            requires=tuple(data["requires"]),
            origin=str(data["origin"]),
            extra=dict(data["extra"]),
        )

    def release(self, tree_dir: Path, bytes_fetched: int = 0) -> Release:
        """The Release this record describes, reading from `tree_dir`."""
        root = tree_dir / self.root
        return Release(
            name=self.name,
            version=self.version,
            tree=FolderTree(root, packages=self.import_names),
            origin=self.origin,
            import_names=self.import_names,
            requires=self.requires,
            bytes_fetched=bytes_fetched,
            extra={**self.extra, "root": str(root)},
        )


@dataclass(frozen=True)
class CachedPage:
    files: list[DistFile]
    age: float  # seconds since it was fetched


class Cache:
    """Trees, pages and staging folders under one root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # ----------------------------------------------------------------------- trees

    def find_tree(self, name: str, version: str) -> tuple[Path, TreeRecord] | None:
        """The cached tree of `name` at a version equal to `version` (PEP 440), if any."""
        folder = self.root / "trees" / name
        for cached, dirname in _read_json(folder / "index.json").items():
            if same_version(cached, version) and (found := _load_tree(folder / str(dirname))):
                return found
        return None

    def find_local(self, sha256: str) -> tuple[Path, TreeRecord] | None:
        """The tree extracted earlier from a local archive with this hash."""
        return _load_tree(self.root / "local" / sha256[:16])

    def publish_tree(self, staged: Path, record: TreeRecord, sha256: str) -> Path:
        """Move a staged index tree into place and list it in the project's index.json."""
        folder = self.root / "trees" / record.name
        dirname = f"{record.version}-{sha256[:16]}"
        dest = self._publish(staged, record, folder / dirname)
        index = _read_json(folder / "index.json")
        index[str(record.version)] = dirname
        self._write_json(folder / "index.json", index)
        return dest

    def members(self, key: str) -> MemberStore:
        """The store of members read by ranges from the archive with this key (its sha256)."""
        return MemberStore(self.root / "members" / key)

    def publish_local(self, staged: Path, record: TreeRecord, sha256: str) -> Path:
        return self._publish(staged, record, self.root / "local" / sha256[:16])

    def _publish(self, staged: Path, record: TreeRecord, dest: Path) -> Path:
        try:
            (staged / MANIFEST).write_text(json.dumps(_manifest(staged)), encoding="utf-8")
            (staged / RECORD).write_text(json.dumps(record.to_json(), indent=1), encoding="utf-8")
            dest.parent.mkdir(parents=True, exist_ok=True)
            self._discard_damaged(dest)
            staged.replace(dest)
        except OSError as exc:
            if _load_tree(dest, quiet=True):  # another run got there first: theirs is complete
                return dest
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc}", hint=CACHE_HINT
            ) from exc
        return dest

    def _discard_damaged(self, dest: Path) -> None:
        """Move a damaged tree out of the way (into tmp/, then delete it)."""
        if not dest.exists() or _load_tree(dest, quiet=True):
            return
        aside = Path(tempfile.mkdtemp(dir=self.root / "tmp", prefix="damaged-"))
        with contextlib.suppress(OSError):  # another run may have moved it first
            dest.replace(aside / "tree")
        shutil.rmtree(aside, ignore_errors=True)

    @contextlib.contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh folder on the cache's file system (so the final rename is atomic)."""
        tmp = self.root / "tmp"
        try:
            tmp.mkdir(parents=True, exist_ok=True)
            _sweep(tmp)
            work = Path(tempfile.mkdtemp(dir=tmp))
        except OSError as exc:
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc}", hint=CACHE_HINT
            ) from exc
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # ----------------------------------------------------------------------- pages

    def load_page(self, index_url: str, name: str) -> CachedPage | None:
        data = _read_json(self._page_path(index_url, name))
        try:
            files = [DistFile.from_json(f) for f in data["files"]]
            return CachedPage(files, time.time() - float(data["fetched"]))
        except (KeyError, TypeError, ValueError):
            return None

    def store_page(self, index_url: str, name: str, files: list[DistFile]) -> None:
        data = {"index": index_url, "fetched": time.time(), "files": [f.to_json() for f in files]}
        try:
            self._write_json(self._page_path(index_url, name), data)
        except FetchError as exc:  # a page cache we cannot write only costs a later request
            log.warning("%s", exc.message)

    def _page_path(self, index_url: str, name: str) -> Path:
        key = hashlib.sha256(index_url.rstrip("/").encode()).hexdigest()[:16]
        return self.root / "pages" / key / f"{name}.json"

    def _write_json(self, path: Path, data: dict[str, Any]) -> None:
        try:
            write_json_atomic(path, data)
        except OSError as exc:
            raise FetchError(
                f"cannot write to the cache at {self.root}: {exc}", hint=CACHE_HINT
            ) from exc


class MemberStore:
    """members/<key>/: listing.json and files/<member path>, each written atomically.

    A store that cannot be written is not an error: the members stay in memory for this run
    (one warning), and the next run fetches them again.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._warned = False

    def load_listing(self) -> dict[str, Any]:
        """The stored listing; {} when there is none or it fails its own sha256."""
        data = _read_json(self.folder / LISTING)
        digest = data.pop("sha256", None)
        if data and digest != _digest(data):
            log.warning("the cached listing %s is damaged; reading it again", self.folder)
            return {}
        return data

    def save_listing(self, data: dict[str, Any]) -> None:
        sealed = {**data, "sha256": _digest(data)}
        self.write(LISTING, json.dumps(sealed, separators=(",", ":")).encode(), root=True)

    def read(self, name: str) -> bytes | None:
        try:
            return (self.folder / "files" / name).read_bytes()
        except OSError:
            return None

    def has(self, name: str) -> bool:
        return (self.folder / "files" / name).is_file()

    def write(self, name: str, data: bytes, *, root: bool = False) -> bool:
        """Store one member (or, `root`, a file of the store itself); False when the cache
        could not be written."""
        path = self.folder / name if root else self.folder / "files" / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                Path(tmp).replace(path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self._warn(exc)
            return False
        return True

    def _warn(self, exc: OSError) -> None:
        if not self._warned:
            self._warned = True
            log.warning("cannot write to the cache at %s: %s (%s)", self.folder, exc, CACHE_HINT)


# --------------------------------------------------------------------------- info and clear

CACHE_FOLDERS = ("trees", "members", "local", "pages", "tmp")  # all `clear` ever removes


@dataclass(frozen=True)
class CacheEntry:
    """One cached release: extracted whole, or read by ranges (members so far)."""

    name: str
    version: str
    how: str  # "extracted" or "ranges"
    files: int
    size: int  # bytes on disk


@dataclass(frozen=True)
class CacheUsage:
    """What the cache holds: releases, plus index pages and local archives."""

    root: Path
    entries: tuple[CacheEntry, ...]
    pages: int
    local: int  # local wheels/sdists extracted for direct references
    size: int  # bytes on disk in all of the cache's folders


def cache_usage(root: Path) -> CacheUsage:
    """Walk the cache folder (nothing is written or fetched)."""
    entries = []
    for folder in sorted(_subfolders(root / "trees")):
        for version, dirname in sorted(_read_json(folder / "index.json").items()):
            entries.append(_entry(root, folder.name, str(version), folder / str(dirname)))
    pages = sum(1 for _ in (root / "pages").glob("*/*.json"))
    local = sum(1 for _ in _subfolders(root / "local"))
    size = sum(_disk_usage(root / name)[1] for name in CACHE_FOLDERS)
    return CacheUsage(root, tuple(entries), pages, local, size)


def clear_cache(root: Path) -> int:
    """Remove what drift-audit keeps under `root` (only its own folders); the bytes freed."""
    freed = 0
    for name in CACHE_FOLDERS:
        folder = root / name
        freed += _disk_usage(folder)[1]
        try:
            shutil.rmtree(folder)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise FetchError(f"cannot clear the cache at {root}: {exc}", hint=CACHE_HINT) from exc
    return freed


def _entry(root: Path, name: str, version: str, tree_dir: Path) -> CacheEntry:
    extra = _read_json(tree_dir / RECORD).get("extra")
    key = extra.get("members") if isinstance(extra, dict) else None
    if key:
        files, size = _disk_usage(root / "members" / str(key) / "files")
        return CacheEntry(name, version, "ranges", files, size)
    files, size = _disk_usage(tree_dir)
    own = sum((tree_dir / n).is_file() for n in (RECORD, MANIFEST))  # ours, not the release's
    return CacheEntry(name, version, "extracted", max(files - own, 0), size)


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []


def _disk_usage(folder: Path) -> tuple[int, int]:
    """(files, bytes) under a folder; (0, 0) when it does not exist."""
    files = size = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                size += (Path(parent) / name).stat().st_size
                files += 1
    return files, size


def same_version(a: str, b: str) -> bool:
    """PEP 440 equality (`0.17` is `0.17.0`), falling back to the literal text."""
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to a temp file beside `path`, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _load_tree(tree_dir: Path, *, quiet: bool = False) -> tuple[Path, TreeRecord] | None:
    """A cached tree and its record; None when it is missing, unreadable or damaged (a file
    missing or not matching its manifest)."""
    data = _read_json(tree_dir / RECORD)
    try:
        record = TreeRecord.from_json(data) if data else None
    except (KeyError, TypeError, ValueError):
        log.debug("ignoring a cache entry with an unreadable %s: %s", RECORD, tree_dir)
        return None
    if record is None:
        return None
    damage = _damage(tree_dir)
    if damage is not None:
        if not quiet:
            log.warning("the cached tree %s is damaged (%s); fetching it again", tree_dir, damage)
        return None
    return tree_dir, record


def _manifest(folder: Path) -> dict[str, str]:
    """posix path -> sha256 of every file under `folder`."""
    found = {}
    for parent, _, names in os.walk(folder):
        for name in names:
            path = Path(parent) / name
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(
                path.read_bytes()
            ).hexdigest()
    return found


def _damage(tree_dir: Path) -> str | None:
    """What is wrong with a tree against its manifest, or None when it matches."""
    try:
        manifest = json.loads((tree_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no readable {MANIFEST}"
    if not isinstance(manifest, dict):
        return f"no readable {MANIFEST}"
    for rel, digest in manifest.items():
        try:
            data = (tree_dir / rel).read_bytes()
        except OSError:
            return f"{rel} is missing"
        if hashlib.sha256(data).hexdigest() != digest:
            return f"{rel} does not match its sha256"
    return None


def _digest(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _sweep(tmp: Path) -> None:
    """Remove staging folders left behind by runs that were killed more than a day ago."""
    cutoff = time.time() - STALE_TMP_SECONDS
    for entry in tmp.iterdir():
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
