# Maintainers: the one door to the file system. Every byte drift-audit reads from a file or
# writes to one goes through here, so a new feature cannot forget the rules (docs/security.md).
#
# Owns three ways in and out:
#   read_file(path, limit, root=None)  a file the user named (or, with `root`, a path taken from
#       the consumer's config, which must resolve inside the project): a regular file only,
#       opened without blocking (a FIFO is refused, never waited on), at most `limit` bytes.
#   read_under(root, rel, limit, links=..., inside=None)  a file below a root by a relative
#       path: the consumer's tree (links=True: a link is followed only when it resolves inside
#       the root, or inside `inside`, the folder the user named, when that is narrower: a
#       package folder, whose import root is its parent, where only the project's own files
#       beside it, never a link, may be read) or the cache (links=False: no component may be
#       a link). None when there is no file.
#   Confined(root)  everything the cache does (read, write atomically, make folders and temp
#       folders, rename, remove, list), each walking the path from `root` one component at a
#       time without following links, so whatever the cache holds, nothing is read or written
#       outside it. A name that is absolute, has `..`, or a NUL is refused before any call.
#       A root it makes (the first write into a cache folder that does not exist yet) gets a
#       CACHEDIR.TAG first: the standard's signature line, then a comment naming drift-audit.
#       That tag is what `drift-audit cache clear` looks for before it deletes anything
#       (sources/cachedir.py), and what backup tools skip by.
#   write_outputs([Output...])  the reports the user asked for, and the consumer files --fix
#       rewrites: regular files only (never a device, FIFO, folder, or through a final symbolic
#       link), each written to a temp file beside it and renamed into place, all staged before
#       any is replaced (all or nothing); an existing file keeps its mode, and a report with
#       several hard links is rewritten in place so the links stay (as vim's
#       `backupcopy=auto` does), the one case that is not atomic. A consumer file with several
#       links is refused (`keep_links=False`: another link may be outside the consumer).
#       SIGINT and SIGTERM are held while it runs: one that comes while files are staged
#       stops the staging and removes every temp file; one that comes while they are renamed
#       waits for the last rename (a short phase). Either way it is delivered once nothing is
#       half done: Ctrl-C raises KeyboardInterrupt, SIGTERM ends the process as it would have.
#       `refusal(output)` says beforehand why an output would be refused, so that --fix can
#       leave that one file alone and write the others.
# Refusals are `Refused`, an OSError whose strerror says why; callers turn OSErrors into their
# own AuditError or treat them as a cache miss. The threat model assumes nothing changes these
# folders while a run is under way; the fd-relative walk also holds against most races.
"""Reading and writing files under the rules of drift-audit's threat model."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import signal
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

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


Signature = tuple[int, int, int]  # Confined.signature(): size, mtime (ns), inode
CACHEDIR_TAG = "CACHEDIR.TAG"
CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
CACHEDIR_TAG_TEXT = (
    f"{CACHEDIR_SIGNATURE}\n"
    "# This file is a cache directory tag created by drift-audit.\n"
    "# `drift-audit cache clear` empties only folders that carry it (or an older cache).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


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


# --------------------------------------------------------------------------- reading


def read_file(path: str | Path, *, limit: int, root: Path | None = None) -> bytes:
    """A regular file's bytes, at most `limit` of them.

    `root`: the path came from a file we do not trust (the consumer's pyproject.toml), so it
    must resolve, links and all, to a place inside `root`.

    Raises:
        Refused: not a regular file, over `limit`, or (with `root`) outside it.
        OSError: it cannot be opened or read.
    """
    target = Path(path)
    if root is not None:
        target = _inside(root, target)
    fd = os.open(target, os.O_RDONLY | _NONBLOCK | _BINARY | _CLOEXEC)
    return _read_fd(fd, target, limit)


def open_regular(path: str | Path, *, limit: int) -> BinaryIO:
    """A regular file opened for reading (a stream, for files too big to hold whole).

    Raises:
        Refused: not a regular file, or over `limit` bytes.
        OSError: it cannot be opened.
    """
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY | _CLOEXEC)
    fh = os.fdopen(fd, "rb")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(path, f"{describe(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise Refused(path, f"{info.st_size} bytes, over the limit of {limit}")
    except BaseException:
        fh.close()
        raise
    return fh


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
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew while we read, or /proc-like files that claim size 0
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


# --------------------------------------------------------------------------- the cache


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
        import json

        try:
            raw = self.read(rel, limit=limit)
            data = json.loads(raw) if raw is not None else {}
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
    if _FD_WALK and sys.version_info >= (3, 11):
        shutil.rmtree(name, dir_fd=folder.fd)
    else:  # rmtree never follows links inside; the parents were checked above
        shutil.rmtree(folder.path / name)


# --------------------------------------------------------------------------- outputs


@dataclass(frozen=True)
class Output:
    """One file the user asked for (or --fix rewrites), and what goes in it.

    `root`: the path came from the consumer (its config, or a file --fix rewrites), so it
    must stay inside this folder. `keep_links` False: a file with several hard links is
    refused instead of rewritten in place (a consumer file's other link may be anywhere).
    """

    path: Path
    data: bytes
    root: Path | None = None
    keep_links: bool = True


def write_outputs(outputs: Sequence[Output]) -> None:
    """Write every output, or none of them, SIGINT and SIGTERM held meanwhile (see the
    module's header): a signal while staging leaves every file as it was and no temp file.

    Raises:
        Refused: a path that is not (or would not be) a regular file, or outside its root.
        OSError: a folder that does not exist or cannot be written.
    """
    with _signals_held() as came:
        _commit_all(_stage_all(outputs, came))


def refusal(output: Output) -> str | None:
    """Why write_outputs would refuse `output` as things are now (a link, not a regular
    file, several hard links without `keep_links`, outside its root); None when it would
    not (the write may still fail: a folder that is gone, a full disk)."""
    try:
        path, folder = _target(output)
        try:
            _existing(folder, path, keep_links=output.keep_links)
        finally:
            folder.close()
    except Refused as exc:
        return exc.strerror or "refused"
    except OSError:
        return None  # write_outputs says what is wrong
    return None


@contextlib.contextmanager
def _signals_held() -> Iterator[list[int]]:
    """SIGINT and SIGTERM recorded, not acted on, while the block runs; then the handlers put
    back and each signal that came raised again. A signal the process ignores stays ignored;
    off the main thread (which alone may set handlers) nothing is held."""
    came: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return
    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) not in (signal.SIG_IGN, None):
            previous[number] = signal.signal(number, lambda signum, _: came.append(signum))
    try:
        yield came
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for signum in dict.fromkeys(came):
            signal.raise_signal(signum)


def _stage_all(outputs: Sequence[Output], came: list[int]) -> list[_Staged]:
    """Every output staged in a temp file; none (every temp file removed) when a signal came
    first or anything failed."""
    staged: list[_Staged] = []
    try:
        for output in outputs:
            if came:
                break
            staged.append(_stage(output))
    except BaseException:
        _discard(staged)
        raise
    if came:
        _discard(staged)
        return []
    return staged


def _discard(staged: Sequence[_Staged]) -> None:
    for item in staged:
        item.discard()


def _commit_all(staged: Sequence[_Staged]) -> None:
    """Every staged output renamed into place (the ones after a failure discarded)."""
    for i, item in enumerate(staged):
        try:
            item.commit()
        except BaseException as exc:
            _discard(staged[i + 1 :])
            if isinstance(exc, OSError):
                raise OSError(exc.errno, exc.strerror, str(item.path)) from exc
            raise


@dataclass
class _Staged:
    path: Path  # as the user gave it, for messages
    folder: _DirFd
    name: str
    data: bytes
    temp: str | None  # the temp file holding the data; None: rewrite in place (hard links)

    def commit(self) -> None:
        try:
            if self.temp is not None:
                _replace(self.folder, self.temp, self.name)
            else:
                _rewrite(self.folder, self.name, self.data)
        except BaseException:
            self.discard()
            raise
        self.folder.close()

    def discard(self) -> None:
        if self.temp is not None:
            _unlink(self.folder, self.temp)
        self.folder.close()


def _stage(output: Output) -> _Staged:
    """The output written to a temp file beside it (or held, for a file rewritten in place);
    any OSError names the output's path."""
    try:
        return _stage_at(output)
    except Refused as exc:
        raise Refused(output.path, exc.strerror or "refused") from None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(output.path)) from exc


def _target(output: Output) -> tuple[Path, _DirFd]:
    """The output's path (its folder's links resolved, for one kept inside a root) and its
    folder, opened (the caller closes it)."""
    path = output.path
    if output.root is not None:
        parent = _inside(output.root, path.parent)
        if path.is_symlink():
            raise Refused(path, "a symbolic link; drift-audit does not write through links")
        path = parent / path.name
    return path, _DirFd.open(path.parent) if _FD_WALK else _PathFolder(-1, path.parent)


def _stage_at(output: Output) -> _Staged:
    path, folder = _target(output)
    try:
        mode, in_place = _existing(folder, path, keep_links=output.keep_links)
        if in_place:
            return _Staged(output.path, folder, path.name, output.data, None)
        temp = f".{path.name[:80]}.{os.urandom(6).hex()}.tmp"
        fd = _create(folder, temp, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(output.data)
                fh.flush()
                _fchmod(fh.fileno(), mode)
        except BaseException:
            _unlink(folder, temp)
            raise
    except BaseException:
        folder.close()
        raise
    return _Staged(output.path, folder, path.name, output.data, temp)


def _existing(folder: _DirFd, path: Path, *, keep_links: bool) -> tuple[int, bool]:
    """(mode for the new file, rewrite in place?) from what `path` is now."""
    try:
        info = _lstat(folder, path.name)
    except FileNotFoundError:
        return 0o666 & ~_umask(), False
    if stat.S_ISLNK(info.st_mode):
        raise Refused(path, "a symbolic link; drift-audit does not write through links")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(path, f"{describe(info.st_mode)}, not a regular file")
    if info.st_nlink > 1 and not keep_links:
        raise Refused(path, f"it has {info.st_nlink} hard links, and another may be anywhere")
    return stat.S_IMODE(info.st_mode) & 0o777, info.st_nlink > 1


def _rewrite(folder: _DirFd, name: str, data: bytes) -> None:
    """Write a hard-linked file in place: its links, owner and mode stay."""
    flags = os.O_WRONLY | _NOFOLLOW | _BINARY | _CLOEXEC
    fd = os.open(name, flags, dir_fd=folder.fd) if _FD_WALK else os.open(folder.path / name, flags)
    with os.fdopen(fd, "wb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(folder.path / name, "not a regular file")
        fh.write(data)
        fh.truncate()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
