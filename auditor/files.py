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
# Its parts, imported by nothing else: filewalk.py (safe names, `read_under`, the fd-relative
# walk and writes) and confined.py (`Confined`, the cache folder). Callers import every name
# from here; this module keeps `read_file`, `open_regular` and the outputs.
"""Reading and writing files under the rules of drift-audit's threat model."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from auditor.confined import (
    CACHEDIR_SIGNATURE,
    CACHEDIR_TAG,
    CACHEDIR_TAG_TEXT,
    Confined,
    Signature,
    confined,
)
from auditor.filewalk import (
    _BINARY,
    _CLOEXEC,
    _FD_WALK,
    _NOFOLLOW,
    _NONBLOCK,
    Refused,
    _create,
    _DirFd,
    _fchmod,
    _inside,
    _lstat,
    _PathFolder,
    _read_fd,
    _replace,
    _unlink,
    describe,
    read_under,
    safe_parts,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence


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
    """One output written to a temporary name, renamed into place with the others."""

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


__all__ = [
    "CACHEDIR_SIGNATURE",
    "CACHEDIR_TAG",
    "CACHEDIR_TAG_TEXT",
    "Confined",
    "Output",
    "Refused",
    "Signature",
    "confined",
    "describe",
    "open_regular",
    "read_file",
    "read_under",
    "refusal",
    "safe_parts",
    "write_outputs",
]
