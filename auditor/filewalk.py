# Maintainers: paths walked one component at a time, never following a link they must not.
#
# Owns: the rules a path is checked by (`safe_parts`: relative, no `..`, no NUL; `_inside`:
#       resolved, links and all, inside a root), `Refused` (the OSError a rule raises) and
#       `describe` (what a non-regular file is), reading a file below a root (`read_under`:
#       the consumer's tree following only links that stay inside, or the cache following
#       none), and the fd-relative primitives the cache and the outputs are written with: an
#       open folder (`_DirFd`) descended with O_NOFOLLOW, making missing folders and replacing
#       a link or file standing where one belongs, and atomic writes, renames, unlinks and
#       lstats relative to it (`_PathFolder` and lstat checks where the system has no dir_fd).
# Part of files.py, the one door to the file system: nothing else imports this module.
# Takes: roots and relative paths. Gives: bytes, file descriptors, or Refused / OSError.
"""The confined path walk under files.py: safe names, no link followed, fd-relative writes."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

log = logging.getLogger("drift_audit")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_FD_WALK = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


class Refused(OSError):
    """A path the rules forbid: not a regular file, a link, outside its root, too big."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(errno.EPERM, reason, os.fsdecode(str(path)))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def describe(mode: int) -> str:
    """`a FIFO`, `a folder`... for a file type that is not a regular file."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def safe_parts(rel: str) -> list[str]:
    """The components of a relative posix path; Refused for an absolute path, `..`, a drive
    letter, a NUL, or nothing at all."""
    if "\x00" in rel or rel.startswith(("/", "\\")):
        raise Refused(rel, "not a safe relative path")
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or ":" in parts[0]:
        raise Refused(rel, "not a safe relative path")
    return parts


def read_under(
    root: Path, rel: str, *, limit: int, links: bool, inside: Path | None = None
) -> bytes | None:
    """The bytes of `root/rel`; None when there is no such file.

    `links` True (a consumer's tree): a symbolic link is followed only if it resolves inside
    `inside` (default `root`), and a path with no link below `root` only if it lies inside
    `root`; False (the cache): a link anywhere below `root` is refused.

    Raises:
        Refused: a link the rule forbids, not a regular file, or over `limit`.
        OSError: the file exists but cannot be read (permissions).
    """
    parts = safe_parts(rel)
    try:
        if links:
            target = _followed(root, parts, inside or root)
            fd = os.open(target, os.O_RDONLY | _NONBLOCK | _BINARY | _CLOEXEC)
        else:
            fd = _open_nofollow(root, parts, os.O_RDONLY | _NONBLOCK | _BINARY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return _read_fd(fd, root.joinpath(*parts), limit)


def _read_fd(fd: int, path: Path, limit: int) -> bytes:
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(path, f"{describe(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise Refused(path, f"{info.st_size} bytes, over the limit of {limit}")
        # what the file says it holds and one byte more, not the limit: a read of
        # `limit + 1` allocates that much each time (1,204 files: 58 ms, this 13 ms)
        data = fh.read(info.st_size + 1)
        if len(data) > info.st_size:  # it grew while we read, or /proc-like: size 0
            data += fh.read(limit + 1 - len(data))
    if len(data) > limit:
        raise Refused(path, f"more than {limit} bytes")
    return data


def _followed(root: Path, parts: Sequence[str], inside: Path) -> Path:
    """root/parts with every link resolved; Refused when a link below `root` leads outside
    `inside` (a path that follows none stays under `root`, which holds `inside`)."""
    path = root.joinpath(*parts)
    if inside != root and os.path.realpath(path) == os.path.join(os.path.realpath(root), *parts):
        return path  # no link followed: a file of the root itself (a project's pyproject.toml)
    return _inside(inside, path)


def _inside(root: Path, path: Path) -> Path:
    """`path` with every link resolved; Refused when that is outside `root`."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise Refused(path, f"it resolves to {real}, outside {real_root}")
    return Path(real)


def _open_nofollow(root: Path, parts: Sequence[str], flags: int) -> int:
    """Open root/parts[0]/.../parts[-1] without following a link at any step below root."""
    if not _FD_WALK:
        return _open_checked(root, parts, flags)
    with _DirFd.open(root) as top:
        folder = top.descend(parts[:-1], create=False)
        try:
            return _nofollow(os.open, parts[-1], flags | _NOFOLLOW | _CLOEXEC, dir_fd=folder.fd)
        finally:
            folder.close()


def _open_checked(root: Path, parts: Sequence[str], flags: int) -> int:
    """The same without dir_fd (not POSIX): lstat every component first."""
    here = root
    for part in parts:
        here = here / part
        if here.is_symlink():
            raise Refused(here, "a symbolic link")
    return os.open(here, flags | _CLOEXEC)


def _nofollow(call: object, name: str, *args: object, **kwargs: object) -> int:
    """Call `os.open`/`os.mkdir` on `name`; ELOOP (a link under O_NOFOLLOW) becomes Refused."""
    try:
        return call(name, *args, **kwargs)  # type: ignore[operator, no-any-return]
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(name, "a symbolic link") from None
        raise


class _DirFd:
    """An open folder, and walking down from it without following links."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: Path) -> _DirFd:
        return cls(os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC), path)

    def descend(self, parts: Sequence[str], *, create: bool) -> _DirFd:
        """The folder self/parts..., a new _DirFd (the caller closes it). With `create`,
        missing folders are made, and a link or file standing where a folder belongs is
        removed first (the entry itself, never what a link points to)."""
        fd, path = os.dup(self.fd), self.path
        try:
            for part in parts:
                path = path / part
                child = _open_child(fd, part, path, create=create)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return _DirFd(fd, path)

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> _DirFd:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_child(fd: int, part: str, path: Path, *, create: bool) -> int:
    flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
    try:
        return _nofollow(os.open, part, flags, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except (Refused, NotADirectoryError):
        if not create:
            raise
        log.warning("replacing %s: not a folder drift-audit made (a link or a file)", path)
        os.unlink(part, dir_fd=fd)
    with contextlib.suppress(FileExistsError):  # another run made it first
        os.mkdir(part, 0o777, dir_fd=fd)
    return _nofollow(os.open, part, flags, dir_fd=fd)


class _PathFolder(_DirFd):
    """A folder reached by lstat checks (systems without dir_fd); `fd` is unused."""

    @classmethod
    def walk(cls, root: Path, parts: Sequence[str], *, create: bool) -> _PathFolder:
        here = root
        for part in parts:
            here = here / part
            if here.is_symlink():
                raise Refused(here, "a symbolic link")
            if create:
                here.mkdir(exist_ok=True)
            elif not here.is_dir():
                raise FileNotFoundError(errno.ENOENT, "no such folder", str(here))
        return cls(-1, here)

    def close(self) -> None:
        pass


def _atomic_write(folder: _DirFd, name: str, data: bytes, *, mode: int) -> None:
    tmp = f".{name[:80]}.{os.urandom(6).hex()}.tmp"
    fd = _create(folder, tmp, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            _fchmod(fh.fileno(), mode)
        _replace(folder, tmp, name)
    except BaseException:
        _unlink(folder, tmp)
        raise


def _create(folder: _DirFd, name: str, mode: int) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY | _CLOEXEC
    if _FD_WALK:
        return os.open(name, flags, mode, dir_fd=folder.fd)
    return os.open(folder.path / name, flags, mode)


def _replace(folder: _DirFd, src: str, dst: str) -> None:
    if _FD_WALK:
        os.replace(src, dst, src_dir_fd=folder.fd, dst_dir_fd=folder.fd)
    else:
        os.replace(folder.path / src, folder.path / dst)


def _unlink(folder: _DirFd, name: str) -> None:
    try:
        if _FD_WALK:
            os.unlink(name, dir_fd=folder.fd)
        else:
            (folder.path / name).unlink()
    except OSError:
        pass


def _fchmod(fd: int, mode: int) -> None:
    if hasattr(os, "fchmod"):  # POSIX; elsewhere the temp file keeps the default mode
        os.fchmod(fd, mode)


def _lstat(folder: _DirFd, name: str) -> os.stat_result:
    if _FD_WALK:
        return os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
    return (folder.path / name).lstat()


def _remove_in(folder: _DirFd, name: str) -> None:
    info = _lstat(folder, name)
    if not stat.S_ISDIR(info.st_mode):
        _unlink(folder, name)
        return
    import shutil  # here: ~2.5 ms to import (bz2, lzma), and most runs remove nothing

    if _FD_WALK and sys.version_info >= (3, 11):
        shutil.rmtree(name, dir_fd=folder.fd)
    else:  # rmtree never follows links inside; the parents were checked above
        shutil.rmtree(folder.path / name)
