# Maintainers: wheels and sdists -> a folder holding only their Python sources and metadata.
#
# Owns: `fetch_sources`, the door through which a whole index release arrives (download the
#       archive, keep the sources, delete the archive; remote wheels are read member by member
#       instead, in remote.py, when the server honours ranges); extracting .py/.pyi plus
#       METADATA / top_level.txt (wheel) or PKG-INFO / pyproject.toml (sdist) and nothing else;
#       skipping unsafe members (absolute, `..`, drive letters, links, a path that cannot be
#       laid out) and earlier duplicates with a warning; the size limits of limits.py (a member
#       over the per-file limit is skipped; a bomb is an ArchiveError); checking a wheel's
#       members against its RECORD; the import root and names (wheel: the archive root; sdist:
#       `src/` if it holds packages, else the top folder).
# Takes: an archive on disk (or a DistFile and a Fetcher). Gives: files under `dest`, a Layout.
# Never runs setup.py or a build backend. Corrupt archives raise ArchiveError.
"""Reading sources out of wheels and sdists, without building anything."""

from __future__ import annotations

import errno
import logging
import struct
import zlib
from dataclasses import dataclass, replace
from functools import partial
from stat import S_ISLNK
from typing import TYPE_CHECKING

from auditor.errors import ArchiveError, FetchError
from auditor.sources import limits
from auditor.sources.fetch import NotFound
from auditor.sources.trees import (
    PY_SUFFIXES,
    Metadata,
    existing_names,
    extension_base,
    find_import_names,
    import_form,
    locate_import_root,
    read_core_metadata,
    read_folder_metadata,
    read_top_level,
    safe_relative,
)
from auditor.sources.zipdir import check_record, parse_record

if TYPE_CHECKING:
    import tarfile
    import zipfile
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from auditor.sources.fetch import Downloaded, Fetcher
    from auditor.sources.simple import DistFile

log = logging.getLogger("drift_audit")

ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")
_WHEEL_META = ("METADATA", "top_level.txt")
_SDIST_META = ("PKG-INFO", "pyproject.toml")
_TAR_HEADER = 512  # bytes of stream per tar member header
# A write that fails for one of these is the cache's fault, not the member's: an error.
_CACHE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


@dataclass(frozen=True)
class Layout:
    """Where the import root is inside an extracted tree, what it holds, what it says."""

    root: str  # posix, relative to the extracted folder: "" or "src"
    import_names: tuple[str, ...]
    metadata: Metadata
    extensions: tuple[str, ...] = ()  # extension modules' paths (`pkg/mod`), from the root


@dataclass(frozen=True)
class _Entry:
    """One member of an archive, read on demand."""

    name: str
    kind: str  # "file", "dir" or "link" (anything not a regular file or folder)
    read: Callable[[], bytes]  # never more than `size` bytes
    size: int  # uncompressed, as the archive declares it
    compressed: int | None = None  # None: compressed as one stream with the others (tar)


def is_archive_name(filename: str) -> bool:
    return filename.endswith(ARCHIVE_SUFFIXES)


def fetch_sources(
    fetcher: Fetcher,
    file: DistFile,
    work: Path,
    project: str,
    downloaded: Downloaded | None = None,
) -> tuple[Layout, Downloaded]:
    """Fill `work/tree` with the sources of `file`; the archive itself is not kept.

    `downloaded`: the file is already at `work/download` (a ranged request got all of it).
    """
    archive = work / "download"
    if downloaded is None:
        try:
            downloaded = fetcher.download(file.url, archive, file.sha256, file.size)
        except NotFound as exc:
            raise FetchError(
                f"the index lists {file.filename} but the file is not there (404)",
                hint="retry later, or pass --index-url of a complete index",
            ) from exc
    tree = work / "tree"
    tree.mkdir()
    try:
        layout = extract_sources(archive, file.filename, tree, project=project)
    finally:
        archive.unlink(missing_ok=True)
    return layout, downloaded


def extract_sources(archive: Path, filename: str, dest: Path, *, project: str) -> Layout:
    """Extract the sources of a wheel or sdist named `filename` into the folder `dest`."""
    import gzip  # here, not at the top: a run from the cache extracts nothing
    import lzma
    import tarfile
    import zipfile

    wheel = filename.endswith(".whl")
    corrupt = (
        zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile,
        lzma.LZMAError, OSError,
    )  # fmt: skip
    try:
        if filename.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zf:
                extensions = _extract(_zip_entries(zf), filename, dest, wheel=wheel)
        else:
            with tarfile.open(archive) as tf:
                entries = _tar_entries(tf, filename, archive.stat().st_size)
                extensions = _extract(entries, filename, dest, wheel=False)
    except (FetchError, ArchiveError):
        raise
    except (*corrupt, NotImplementedError, ValueError, RuntimeError, struct.error) as exc:
        raise ArchiveError(
            f"{filename} is not a readable archive (corrupt or truncated): {exc}",
            hint="delete the file and fetch it again; a download is retried on the next run",
        ) from exc
    layout = _wheel_layout(dest, project) if wheel else _sdist_layout(dest, project)
    inside = f"{layout.root}/" if layout.root else ""
    kept = sorted({e[len(inside) :] for e in extensions if e.startswith(inside)})
    return replace(layout, extensions=tuple(kept))


def _zip_entries(zf: zipfile.ZipFile) -> list[_Entry]:
    for info in zf.infolist():
        if info.flag_bits & 0x1:
            raise ArchiveError(
                f"the zip member {info.filename!r} is encrypted; a release never is",
                hint="the archive is broken or hostile; check where it comes from",
            )
    return [
        _Entry(i.filename, _zip_kind(i), partial(zf.read, i), i.file_size, i.compress_size)
        for i in zf.infolist()
    ]


def _zip_kind(info: zipfile.ZipInfo) -> str:
    if info.is_dir():
        return "dir"
    return "link" if S_ISLNK(info.external_attr >> 16) else "file"


def _tar_entries(tf: tarfile.TarFile, filename: str, archive_size: int) -> list[_Entry]:
    """The members, read header by header: the stream's total and ratio are checked before
    each member is skipped over (skipping inflates it), so a bomb stops early."""
    budget = limits.SizeBudget(filename)
    entries = []
    for member in tf:
        budget.add(member.size + _TAR_HEADER)
        budget.check_stream(archive_size)
        entries.append(
            _Entry(member.name, _tar_kind(member), partial(_tar_read, tf, member), member.size)
        )
    return entries


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.isdir():
        return "dir"
    return "file" if member.isreg() else "link"


def _tar_read(tf: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    import tarfile

    handle = tf.extractfile(member)
    if handle is None:
        raise tarfile.TarError(f"cannot read member {member.name}")
    with handle:
        return handle.read(member.size)


def _extract(entries: Iterable[_Entry], filename: str, dest: Path, *, wheel: bool) -> list[str]:
    """Write the kept members under `dest`; the extension modules' paths (`pkg/mod`, from
    the tree's top), which are not written (no binary is kept, only that it is there)."""
    safe: list[tuple[str, _Entry]] = []
    for entry in entries:
        rel = safe_relative(entry.name)
        if rel is None:
            log.warning("skipping unsafe member %r in %s", entry.name, filename)
        elif rel:
            safe.append((rel, entry))
    prefix = "" if wheel else _top_folder([rel for rel, _ in safe])
    kept = _kept(safe, filename, prefix, wheel=wheel)
    hashes = _record_hashes(safe, filename) if wheel else {}
    budget = limits.SizeBudget(filename)
    for target, entry in kept:
        if entry.compressed is not None:  # a zip member: a stream of its own
            budget.add(entry.size)
        _write(dest, target, entry, filename, hashes)
    return extension_paths(
        (wheel_rel(rel) if wheel else _inner(rel, prefix)) for rel, entry in safe
        if entry.kind == "file"
    )  # fmt: skip


def extension_paths(paths: Iterable[str | None]) -> list[str]:
    """The extension modules among tree paths (`pkg/mod` for `pkg/mod.cpython-311-...so`)."""
    return sorted({b for p in paths if p and (b := extension_base(p)) is not None})


def _inner(rel: str, prefix: str) -> str | None:
    return rel[len(prefix) :] if rel.startswith(prefix) else None


def _kept(
    safe: list[tuple[str, _Entry]], filename: str, prefix: str, *, wheel: bool
) -> list[tuple[str, _Entry]]:
    """(tree path, entry) of the members the tree keeps: no folders, links or oversized files;
    of duplicates, the last (as zipfile and installers do)."""
    chosen: dict[str, tuple[str, _Entry]] = {}
    for rel, entry in safe:
        target = wheel_target(rel) if wheel else _sdist_target(rel, prefix)
        if target is None or entry.kind == "dir":
            continue
        if entry.kind == "link":
            log.warning("skipping link member %r in %s", entry.name, filename)
            continue
        if entry.compressed is not None:
            limits.check_ratio(entry.name, filename, entry.size, entry.compressed)
        if limits.too_big(entry.size):
            log.warning(
                "skipping member %r in %s: %d bytes, over the limit of %d for a source file",
                entry.name, filename, entry.size, limits.MAX_FILE_BYTES,
            )  # fmt: skip
            continue
        if target in chosen:
            log.warning(
                "duplicate member %r in %s: the last one is read", chosen[target][1].name, filename
            )
        chosen[target] = (target, entry)
    return list(chosen.values())


def _record_hashes(safe: list[tuple[str, _Entry]], filename: str) -> dict[str, bytes]:
    """path -> sha256 from the wheel's RECORD (a .dist-info/RECORD at the top)."""
    hashes: dict[str, bytes] = {}
    for rel, entry in safe:
        parts = rel.split("/")
        if len(parts) != 2 or not parts[0].endswith(".dist-info") or parts[1] != "RECORD":
            continue
        if entry.kind != "file" or limits.too_big(entry.size):
            log.warning("ignoring the RECORD %r of %s", entry.name, filename)
            continue
        if entry.compressed is not None:
            limits.check_ratio(entry.name, filename, entry.size, entry.compressed)
        hashes.update(parse_record(entry.read().decode("utf-8", errors="replace")))
    return hashes


def _write(dest: Path, target: str, entry: _Entry, filename: str, hashes: dict[str, bytes]) -> None:
    data = entry.read()
    if len(data) != entry.size:
        raise ArchiveError(f"the member {entry.name!r} of {filename} is truncated")
    check_record(entry.name, data, hashes, filename)
    path = dest / target
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        if exc.errno in _CACHE_ERRNOS:
            raise FetchError(
                f"cannot write to the cache at {dest}: {exc.strerror or exc}",
                hint="pass --cache-dir (or set DRIFT_AUDIT_CACHE_DIR) to a writable folder",
            ) from exc
        log.warning("skipping member %r in %s: %s", entry.name, filename, exc.strerror or exc)


def _top_folder(names: list[str]) -> str:
    """`name-1.0/` when every member of an sdist sits in that one folder, else ""."""
    tops = {n.split("/", 1)[0] for n in names}
    nested = any("/" in n for n in names)
    return f"{tops.pop()}/" if len(tops) == 1 and nested else ""


def wheel_target(rel: str) -> str | None:
    """Where a wheel member lands in the tree (purelib/platlib at the root), or None when
    the tree does not keep it (not a source file, nor METADATA / top_level.txt)."""
    parts = rel.split("/")
    if parts[0].endswith(".dist-info"):
        return rel if len(parts) == 2 and parts[1] in _WHEEL_META else None
    installed = wheel_rel(rel)
    return installed if installed is not None and installed.endswith(PY_SUFFIXES) else None


def wheel_rel(rel: str) -> str | None:
    """Where a wheel member installs, relative to site-packages (purelib/platlib at the
    root); None for what never imports (scripts, headers, data, the .dist-info)."""
    parts = rel.split("/")
    if parts[0].endswith(".data"):
        if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
            return None
        parts = parts[2:]
    elif parts[0].endswith(".dist-info"):
        return None
    return "/".join(parts)


def _sdist_target(rel: str, prefix: str) -> str | None:
    if not rel.startswith(prefix):
        return None
    inner = rel[len(prefix) :]
    parts = inner.split("/")
    if parts[-1].endswith(PY_SUFFIXES):
        return inner
    if len(parts) == 1 and parts[0] in _SDIST_META:
        return inner
    in_egg_info = 2 <= len(parts) <= 3 and parts[-2].endswith(".egg-info")
    return inner if in_egg_info and parts[-1] == "top_level.txt" else None


def _wheel_layout(dest: Path, project: str) -> Layout:
    info = next(iter(sorted(dest.glob("*.dist-info"))), dest / "missing.dist-info")
    listed = read_top_level(_read(info / "top_level.txt"))
    names = existing_names(dest, listed) or find_import_names(
        dest, strict=False, prefer=import_form(project)
    )
    return Layout("", names, read_core_metadata(_read(info / "METADATA")))


def _sdist_layout(dest: Path, project: str) -> Layout:
    egg_infos = sorted(dest.glob("*.egg-info")) + sorted(dest.glob("src/*.egg-info"))
    listed = [n for egg in egg_infos for n in read_top_level(_read(egg / "top_level.txt"))]
    root, names = locate_import_root(dest, prefer=import_form(project), listed=listed)
    return Layout(root, names, read_folder_metadata(dest))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
