# Maintainers: the cache folder as a whole: whose it is, what it holds, and emptying it.
#
# Owns: `ownership` (may `drift-audit cache clear` delete in this folder?), `cache_usage`
#       (`drift-audit cache info`) and `clear_cache` (`drift-audit cache clear`).
# Whose a folder is, decided before anything is deleted:
#   missing  the folder does not exist: nothing to count or clear (exit 0).
#   tagged   it holds drift-audit's CACHEDIR.TAG (a regular file whose first line is the
#            standard's signature and whose second is a comment naming drift-audit), which
#            files.Confined writes whenever it makes a cache folder. Everything in it is the
#            cache: clear removes every entry but the tag, so the folder stays a valid, empty
#            cache (and a run that is still going carries on writing into it).
#   legacy   no tag, but a cache an older drift-audit made: every entry at the top is a real
#            folder of the layout (LAYOUT below: trees, pages, members, local, resolutions,
#            chains, scan, fixes, replay, notes, tmp) holding only names drift-audit makes there
#            (index keys, archive hashes, project names, staging folders, temp files of
#            atomic writes). Clear
#            removes those folders, then writes the tag: from then on it is `tagged`.
#   empty    an existing folder with nothing in it: nothing to clear, left as it is.
#   foreign  anything else: $HOME, a project, another tool's cache (a CACHEDIR.TAG not
#            naming drift-audit), a file. Clear refuses it (NotACacheError, one line, exit 2)
#            before deleting anything; info counts nothing in it.
# Deleting goes through files.Confined.remove only: a link in the cache is removed itself,
# never followed, whatever the (untrusted) cache holds. Nothing here touches the network.
# Takes: a cache root. Gives: Ownership, CacheUsage, Cleared.
"""The cache folder as a whole: `drift-audit cache info` and `drift-audit cache clear`."""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from auditor.errors import FetchError, NotACacheError
from auditor.files import CACHEDIR_SIGNATURE, CACHEDIR_TAG, Confined, Refused, describe, safe_parts
from auditor.sources.cache import (
    CACHE_HINT,
    MANIFEST,
    MAX_RECORD_BYTES,
    RECORD,
    is_component,
    is_member_key,
)
from auditor.sources.root import CACHE_ENV

if TYPE_CHECKING:
    from pathlib import Path

_HEX16 = r"[0-9a-f]{16}"
_CANONICAL = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# what drift-audit makes directly inside each top-level folder, now or in earlier releases
LAYOUT = {
    "trees": re.compile(rf"{_HEX16}|{_CANONICAL}"),  # index keys; project names before them
    "pages": re.compile(_HEX16),
    "members": re.compile(rf"{_HEX16}|(?:cd-)?[0-9a-f]{{64}}"),  # index keys; bare hashes
    "local": re.compile(_HEX16),
    "resolutions": re.compile(_HEX16),  # the analysis version
    "chains": re.compile(r"[0-9a-f]{16,64}\.json"),
    "scan": re.compile(_HEX16),  # the scan version (scan/store.py)
    "fixes": re.compile(_HEX16),  # the version of the fix proposals kept (fixkeep.py)
    "replay": re.compile(r"[0-9a-f]{40}\.json"),  # runs kept for a replay (replay.py)
    "notes": re.compile(r"[0-9a-f]{40}"),  # notes said once (sources/notes.py)
    "tmp": re.compile(rf"(?:damaged-)?(?:{_HEX16}|tmp[a-z0-9_]{{8}})"),
}
# the temp file of an atomic write: files.Confined.write's, or tempfile's in older releases
_ATOMIC = re.compile(r"\..+\.[0-9a-f]{12}\.tmp|tmp[a-z0-9_]{8}\.tmp")
_TAG_LIMIT = 4096


class Owner(Enum):
    MISSING = "missing"
    TAGGED = "tagged"
    LEGACY = "legacy"
    EMPTY = "empty"
    FOREIGN = "foreign"


@dataclass(frozen=True)
class Ownership:
    owner: Owner
    why: str = ""  # FOREIGN: what shows it is not drift-audit's cache

    @property
    def is_cache(self) -> bool:
        """Whether the folder is drift-audit's to count and to clear."""
        return self.owner in (Owner.TAGGED, Owner.LEGACY)


def ownership(fs: Confined) -> Ownership:
    """Whose the folder at `fs.root` is (module header); nothing is written."""
    if not fs.root.exists():
        return Ownership(Owner.MISSING)
    if not fs.root.is_dir():
        return Ownership(Owner.FOREIGN, "it is not a folder")
    names = fs.listdir()
    if CACHEDIR_TAG in names:
        if _is_our_tag(fs):
            return Ownership(Owner.TAGGED)
        return Ownership(Owner.FOREIGN, f"its {CACHEDIR_TAG} is not drift-audit's")
    if not names:
        return Ownership(Owner.EMPTY)
    for name in names:
        if (why := _not_ours(fs, name)) is not None:
            return Ownership(Owner.FOREIGN, f"no {CACHEDIR_TAG}, and {why}")
    return Ownership(Owner.LEGACY)


def _is_our_tag(fs: Confined) -> bool:
    try:
        data = fs.read(CACHEDIR_TAG, limit=_TAG_LIMIT)
    except OSError:  # a link, a FIFO, too big, unreadable: not a tag we wrote
        return False
    lines = (data or b"").decode("utf-8", "replace").splitlines()
    return (
        len(lines) > 1
        and lines[0] == CACHEDIR_SIGNATURE
        and lines[1].startswith("#")
        and "drift-audit" in lines[1]
    )


def _not_ours(fs: Confined, name: str) -> str | None:
    """Why the top-level entry `name` is not one an older drift-audit made; None if it is."""
    pattern = LAYOUT.get(name)
    if pattern is None:
        return f"it holds {name!r}, which drift-audit does not make"
    info = fs.lstat(name)
    if info is None or not stat.S_ISDIR(info.st_mode):
        what = describe(info.st_mode) if info is not None else "unreadable"
        return f"{name!r} is {what}, not a folder drift-audit made"
    for child in fs.listdir(name):
        if not (pattern.fullmatch(child) or _ATOMIC.fullmatch(child)):
            return f"{name}/{child!r} is not a name drift-audit makes there"
    return None


def _refusal(root: Path, owned: Ownership) -> NotACacheError:
    return NotACacheError(
        f"refusing to clear {root}: it is not a drift-audit cache ({owned.why})",
        hint=f"point --cache-dir (or {CACHE_ENV}) at the cache folder drift-audit made, or "
        "delete this folder yourself",
    )


# --------------------------------------------------------------------------- info


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
    """What the cache holds: releases, index pages, local archives, memos, and its size."""

    root: Path
    entries: tuple[CacheEntry, ...]
    pages: int
    local: int  # local wheels/sdists extracted for direct references
    size: int  # bytes on disk in every part of the cache (0 for a folder that is not one)
    lookup_memos: int = 0  # resolutions/<analysis version>/<provider>.json
    chain_memos: int = 0  # chains/<graph fingerprint>.json
    other_files: int = 0  # files in a tagged cache outside drift-audit's own folders
    owned: Ownership = Ownership(Owner.TAGGED)
    replays: int = 0  # replay/<run key>.json


def cache_usage(root: Path) -> CacheUsage:
    """Walk the cache folder (nothing is written or fetched; links are not followed). A
    folder that is not drift-audit's cache is not walked at all."""
    fs = Confined(root)
    owned = ownership(fs)
    if not owned.is_cache:
        return CacheUsage(root, (), 0, 0, 0, owned=owned)
    entries = sorted(_releases(fs), key=lambda e: (e.name, e.version))
    pages = sum(
        1 for key in fs.listdir("pages") for n in fs.listdir(f"pages/{key}") if n.endswith(".json")
    )
    local = sum(1 for name in fs.listdir("local") if fs.lstat(f"local/{name}") is not None)
    lookups = sum(1 for path, _ in fs.walk_files("resolutions") if path.endswith(".json"))
    chains = sum(1 for path, _ in fs.walk_files("chains") if path.endswith(".json"))
    replays = sum(1 for name in fs.listdir("replay") if name.endswith(".json"))
    others = [n for n in fs.listdir() if n not in LAYOUT and n != CACHEDIR_TAG]
    size = sum(_disk_usage(fs, name)[1] for name in fs.listdir())
    other_files = sum(_disk_usage(fs, name)[0] for name in others)
    return CacheUsage(
        root, tuple(entries), pages, local, size, lookups, chains, other_files, owned, replays
    )


def _releases(fs: Confined) -> list[CacheEntry]:
    found = []
    for key in fs.listdir("trees"):
        for name in fs.listdir(f"trees/{key}") if re.fullmatch(_HEX16, key) else ():
            if not re.fullmatch(_CANONICAL, name):
                continue
            index = fs.read_json(f"trees/{key}/{name}/index.json", limit=MAX_RECORD_BYTES)
            for version, dirname in sorted(index.items()):
                if is_component(dirname):
                    found.append(_entry(fs, name, str(version), f"trees/{key}/{name}/{dirname}"))
    return found


def _entry(fs: Confined, name: str, version: str, tree: str) -> CacheEntry:
    extra = fs.read_json(f"{tree}/{RECORD}", limit=MAX_RECORD_BYTES).get("extra")
    key = extra.get("members") if isinstance(extra, dict) else None
    if is_member_key(key):
        files, size = _disk_usage(fs, f"members/{key}/files")
        return CacheEntry(name, version, "ranges", files, size)
    files, size = _disk_usage(fs, tree)
    own = sum(fs.lstat(f"{tree}/{n}") is not None for n in (RECORD, MANIFEST))
    return CacheEntry(name, version, "extracted", max(files - own, 0), size)


def _disk_usage(fs: Confined, rel: str) -> tuple[int, int]:
    """(files, bytes) of a regular file, or of every regular file below a folder; (0, 0) for
    anything else (absent, a link: never followed)."""
    info = fs.lstat(rel)
    if info is not None and stat.S_ISREG(info.st_mode):
        return 1, info.st_size
    found = list(fs.walk_files(rel))
    return len(found), sum(size for _, size in found)


# --------------------------------------------------------------------------- clear


@dataclass(frozen=True)
class Cleared:
    root: Path
    freed: int  # bytes
    owned: Ownership  # as it was before: MISSING and EMPTY had nothing to clear


def clear_cache(root: Path) -> Cleared:
    """Empty drift-audit's cache at `root` (every part of it: releases, pages, members, memos,
    staging), keeping the folder and its CACHEDIR.TAG.

    Raises:
        NotACacheError: the folder is not drift-audit's cache; nothing was deleted.
        FetchError: an entry could not be removed.
    """
    fs = Confined(root)
    owned = ownership(fs)
    if owned.owner is Owner.FOREIGN:
        raise _refusal(root, owned)
    if not owned.is_cache:
        return Cleared(root, 0, owned)
    names = [name for name in fs.listdir() if name != CACHEDIR_TAG]
    stuck = [name for name in names if not _addressable(name)]
    freed = sum(_remove(fs, root, name) for name in names if name not in stuck)
    if owned.owner is Owner.LEGACY:
        try:
            fs.write_tag()
        except OSError as exc:
            raise _cannot_clear(root, exc) from exc
    if stuck:
        raise _cannot_remove(root, stuck[0], "not a name drift-audit can remove safely")
    return Cleared(root, freed, owned)


def _addressable(name: str) -> bool:
    """Whether a path names the entry `name` alone (a backslash in it would not)."""
    try:
        return safe_parts(name) == [name]
    except Refused:
        return False


def _remove(fs: Confined, root: Path, name: str) -> int:
    """Remove the top-level entry `name` (a link itself, never what it points to); its bytes."""
    try:
        size = _disk_usage(fs, name)[1]
        fs.remove(name)
    except OSError as exc:
        raise _cannot_remove(root, name, exc.strerror or str(exc)) from exc
    return size


def _cannot_remove(root: Path, name: str, why: str) -> FetchError:
    return FetchError(
        f"cannot clear {name!r} from the cache at {root}: {why}",
        hint="remove it yourself, then run `drift-audit cache clear` again",
    )


def _cannot_clear(root: Path, exc: OSError) -> FetchError:
    return FetchError(f"cannot clear the cache at {root}: {exc.strerror or exc}", hint=CACHE_HINT)
