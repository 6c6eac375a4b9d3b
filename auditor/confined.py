# Maintainers: the cache folder, whose contents are untrusted: nothing below it is followed.
#
# Owns: `Confined(root)`, everything the cache does (read, read JSON as a miss on anything
#       odd, write atomically, make folders and private temp folders, rename, remove, list,
#       walk, a file's signature), each walking from `root` one component at a time without
#       following links (filewalk.py); a root it makes gets a CACHEDIR.TAG before anything
#       else goes in (what `cache clear` looks for, and backup tools skip by); and `confined`,
#       a file's path split into its Confined folder and the name below it.
# Part of files.py, the one door to the file system: callers import these names from there.
# Takes: a root and posix relative names. Gives: bytes, paths, listings; Refused / OSError.
"""The cache folder's confined operations (files.Confined)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.filewalk import (
    _FD_WALK,
    _atomic_write,
    _DirFd,
    _lstat,
    _PathFolder,
    _remove_in,
    read_under,
    safe_parts,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

Signature = tuple[int, int, int]  # Confined.signature(): size, mtime (ns), inode
CACHEDIR_TAG = "CACHEDIR.TAG"
CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
CACHEDIR_TAG_TEXT = (
    f"{CACHEDIR_SIGNATURE}\n"
    "# This file is a cache directory tag created by drift-audit.\n"
    "# `drift-audit cache clear` empties only folders that carry it (or an older cache).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


class Confined:
    """A folder whose contents are untrusted (the cache): nothing below it is followed.

    Paths are posix relative strings; every operation refuses names with `..`, absolute
    paths and NULs, and walks from `root` one component at a time with O_NOFOLLOW.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"Confined({str(self.root)!r})"

    def path(self, rel: str) -> Path:
        """root/rel, its name checked (for code that hands a folder we made to others)."""
        return self.root.joinpath(*safe_parts(rel))

    def read(self, rel: str, *, limit: int) -> bytes | None:
        """The file's bytes; None when absent. Refused/OSError as read_under."""
        return read_under(self.root, rel, limit=limit, links=False)

    def read_json(self, rel: str, *, limit: int) -> dict[str, Any]:
        """A JSON object stored at root/rel; {} when absent, refused, unreadable or not an
        object (too deep to parse included): to the cache, whatever it holds is a miss."""
        from auditor.jsontext import loads

        try:
            raw = self.read(rel, limit=limit)
            data = loads(raw) if raw is not None else {}
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def write(self, rel: str, data: bytes) -> None:
        """Write `data` to root/rel atomically (temp file and rename), making its folders.

        A link or file already there is replaced (the link itself, never what it points to).
        """
        parts = safe_parts(rel)
        with self._folder(parts[:-1], create=True) as folder:
            _atomic_write(folder, parts[-1], data, mode=0o644)

    def make_dirs(self, rel: str) -> Path:
        """Make root/rel (and its parents) as real folders; the path."""
        parts = safe_parts(rel)
        with self._folder(parts, create=True):
            pass
        return self.root.joinpath(*parts)

    def mkdtemp(self, rel: str, prefix: str = "") -> Path:
        """A new empty folder inside root/rel (made if needed), private to this run."""
        parts = safe_parts(rel)
        with self._folder(parts, create=True) as folder:
            for _ in range(100):
                name = f"{prefix}{os.urandom(8).hex()}"
                try:
                    self._mkdir(folder, name, 0o700)
                except FileExistsError:
                    continue
                return folder.path / name
        raise FileExistsError(errno.EEXIST, "no unused temporary name", str(self.root))

    def rename(self, src: str, dst: str) -> None:
        """Move root/src to root/dst (dst's folders made); OSError when dst exists and is
        not an empty folder."""
        src_parts, dst_parts = safe_parts(src), safe_parts(dst)
        with (
            self._folder(src_parts[:-1], create=False) as a,
            self._folder(dst_parts[:-1], create=True) as b,
        ):
            os.rename(src_parts[-1], dst_parts[-1], src_dir_fd=a.fd, dst_dir_fd=b.fd)

    def remove(self, rel: str) -> None:
        """Delete root/rel: a folder with all it holds, or a file or link (never what a link
        points to). Nothing there is fine."""
        parts = safe_parts(rel)
        try:
            with self._folder(parts[:-1], create=False) as folder:
                _remove_in(folder, parts[-1])
        except (FileNotFoundError, NotADirectoryError):
            return

    def write_tag(self) -> None:
        """Write CACHEDIR.TAG at the root (atomically; the root must exist)."""
        with self._folder([], create=False) as top:
            _atomic_write(top, CACHEDIR_TAG, CACHEDIR_TAG_TEXT.encode(), mode=0o644)

    def lstat(self, rel: str) -> os.stat_result | None:
        """What root/rel is, without following a link; None when absent or unreachable."""
        try:
            parts = safe_parts(rel)
            with self._folder(parts[:-1], create=False) as folder:
                return _lstat(folder, parts[-1])
        except OSError:
            return None

    def signature(self, rel: str) -> Signature | None:
        """What tells root/rel from the file it replaced (every cache write is a rename of
        a new file): its size, mtime in ns and inode; None when there is none."""
        st = self.lstat(rel)
        return None if st is None else (st.st_size, st.st_mtime_ns, st.st_ino)

    def listdir(self, rel: str = "") -> list[str]:
        """The names in root/rel, sorted; [] when it is absent or not a folder."""
        try:
            with self._folder(safe_parts(rel) if rel else [], create=False) as folder:
                return sorted(os.listdir(folder.fd) if _FD_WALK else os.listdir(folder.path))
        except OSError:
            return []

    def walk_files(self, rel: str) -> Iterator[tuple[str, int]]:
        """(posix path relative to root/rel, size) of every regular file below it, links not
        followed, sorted."""
        base = self.root.joinpath(*safe_parts(rel))
        info = self.lstat(rel)
        if info is None or not stat.S_ISDIR(info.st_mode):
            return
        found = []
        for parent, dirs, names in os.walk(base):  # os.walk never follows links to folders
            for name in names:
                path = Path(parent) / name
                info = path.lstat()
                if stat.S_ISREG(info.st_mode):
                    found.append((path.relative_to(base).as_posix(), info.st_size))
            dirs.sort()
        yield from sorted(found)

    # ------------------------------------------------------------------- internals

    def _folder(self, parts: Sequence[str], *, create: bool) -> _DirFd:
        if create:
            self._make_root()
        if not _FD_WALK:
            return _PathFolder.walk(self.root, parts, create=create)
        with _DirFd.open(self.root) as top:
            return top.descend(parts, create=create)

    def _make_root(self) -> None:
        """Make the root when it is missing, tagged as a cache before anything goes in."""
        try:
            self.root.mkdir(parents=True)
        except FileExistsError:
            return
        with contextlib.suppress(OSError):  # the write that follows says what is wrong
            self.write_tag()

    @staticmethod
    def _mkdir(folder: _DirFd, name: str, mode: int) -> None:
        if _FD_WALK:
            os.mkdir(name, mode, dir_fd=folder.fd)
        else:
            (folder.path / name).mkdir(mode)


def confined(path: Path, root: Path | None = None) -> tuple[Confined, str]:
    """(Confined(root), path relative to it) for a file kept under `root` (default: the
    file's own folder)."""
    base = root if root is not None else path.parent
    return Confined(base), path.relative_to(base).as_posix()
