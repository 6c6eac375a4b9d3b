# Maintainers: what names the sources an audit of a release reads, so that a result kept for
# it (ecosystem.py's --store) is given again only for the very same inputs.
#
# Owns: `release_identity` (a Release -> one line, or None when it cannot be named), and
#   `spec_identity` / `consumer_identity`, which resolve a spec or a CONSUMER as an audit
#   resolves it (through the cache: an exact pin kept there asks nothing) and name that:
#   - a release from the index: the index URL (without credentials, as the cache keys it),
#     the file's name and its sha256 (a wheel read by ranges whose page gave none: the key
#     of its members, a hash of its central directory, which holds each member's CRC);
#   - a local wheel or sdist (a path, `name @ file:///x.whl`): its sha256;
#   - a folder (a consumer folder, `name @ file:///checkout`, an editable install):
#     `folder_digest` of the folder its reads stay in;
#   - an installed distribution (not editable): None. Its files change under the same name
#     and version, and hashing them is not worth it: never reused.
#   Each with the release's name and version. Not the folder's path: the spec the row is
#   kept under names it already.
# `folder_digest`: a sha256 over, in name order, every .py/.pyi file, metadata file
#   (METADATA_NAMES, py.typed) and file of a .dist-info/.egg-info folder under the folder
#   by content (a file over the per-file limit, or not a regular file, by its size and
#   kind: the tree does not read it), every extension module and folder by name (compiled
#   modules and namespace packages change the answers), hidden folders and __pycache__ left
#   out; and above it, the project files that locate and describe it (pyproject.toml,
#   setup.cfg, setup.py of each parent, the PKG-INFOs of the two nearest, `<name>.py(i)`
#   beside it), each by content or as absent. The file set is replay.folder_state's, by
#   content rather than by stat: a store restored on another machine (a CI cache) is still
#   reused, and a file edited within the same second, or restored with its old mtime, is
#   still seen. None when the folder holds a link (where it leads could change unseen) or
#   cannot be read. Cost: it reads every source file once (benchmarks/bench_ecosystem.py:
#   docs/performance.md gives the figures).
# Takes: Releases and folders. Gives: strings to compare, never to parse.
"""The identity of a release's sources: what a kept result was made from."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.files import Refused, read_file
from auditor.sources import limits
from auditor.sources.trees import PY_SUFFIXES, extension_base

if TYPE_CHECKING:
    from auditor.sources import Release
    from auditor.sources.index import Index

FORMAT = 1
METADATA_NAMES = frozenset(
    {"pyproject.toml", "setup.cfg", "setup.py", "PKG-INFO", "METADATA", "top_level.txt",
     "entry_points.txt", "direct_url.json", "RECORD"}
)  # fmt: skip
_READ_NAMES = METADATA_NAMES | {"py.typed"}
_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


def spec_identity(spec: str, index: Index) -> str | None:
    """The identity of the release `spec` names (the newest it matches), as an audit
    resolves it. AuditError as Index.releases."""
    return release_identity(index.releases(spec)[-1])


def consumer_identity(consumer: str, index: Index) -> str | None:
    """The identity of CONSUMER (a folder, an archive, an installed distribution, a
    requirement), as an audit resolves it. AuditError as sources.resolve_consumer."""
    from auditor.sources.consumer import resolve_consumer

    return release_identity(resolve_consumer(consumer, index))


def release_identity(release: Release) -> str | None:
    """What names the sources of `release` (see the module's comment); None when nothing
    does (an installed distribution, a folder holding a link, a record without a hash)."""
    extra = release.extra
    named = f"{release.name} {release.version or ''}"
    if release.origin == "index":
        key = extra.get("sha256") or extra.get("members")
        where, filename = extra.get("index"), extra.get("filename")
        return f"index {where} {filename} {key} {named}" if key and where and filename else None
    if extra.get("sha256"):
        return f"archive {extra['sha256']} {named}"
    confine = extra.get("confine")
    if not confine:
        return None
    digest = folder_digest(Path(confine))
    return None if digest is None else f"folder {digest} {named}"


def folder_digest(folder: Path) -> str | None:
    """The sha256 of what an audit can read of `folder` (see the module's comment); None
    when it holds a link or cannot be read."""
    digest = hashlib.sha256(f"{FORMAT}\0".encode())
    try:
        if not _walk(str(folder), "", digest, meta=False):
            return None
        for name, path in _around(folder):
            if path.exists():  # absent ones say nothing: the chain of parents varies
                _add_file(digest, name, str(path))
    except (OSError, RecursionError):
        return None
    return digest.hexdigest()


def _walk(folder: str, rel: str, digest: hashlib._Hash, *, meta: bool) -> bool:
    """Everything under one folder, in name order; False at the first link."""
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        name = rel + entry.name
        if entry.is_symlink():
            return False
        if entry.is_dir(follow_symlinks=False):
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            digest.update(f"d\0{name}\0".encode("utf-8", "surrogateescape"))
            inner = meta or entry.name.endswith((".dist-info", ".egg-info"))
            if not _walk(entry.path, f"{name}/", digest, meta=inner):
                return False
        elif meta or entry.name.endswith(PY_SUFFIXES) or entry.name in _READ_NAMES:
            _add_file(digest, name, entry.path)
        elif extension_base(name) is not None:
            digest.update(f"x\0{name}\0".encode("utf-8", "surrogateescape"))
    return True


def _add_file(digest: hashlib._Hash, name: str, path: str) -> None:
    """One file by its content; one the tree would not read by why; an absent one as such."""
    try:
        data = read_file(path, limit=limits.MAX_FILE_BYTES)
        kind = f"f {hashlib.sha256(data).hexdigest()}"
    except FileNotFoundError:
        kind = "absent"
    except Refused as exc:  # a FIFO, a device, a file over the limit: never read as source
        kind = f"refused {exc.strerror}"
    digest.update(f"{kind}\0{name}\0".encode("utf-8", "surrogateescape"))


def _around(folder: Path) -> list[tuple[str, Path]]:
    """The files outside `folder` that locate or describe it (replay.folder_state's), each
    named relative to it (`../pyproject.toml`), so that the digest does not say where the
    folder is."""
    found = [(f"../{folder.name}{s}", folder.parent / f"{folder.name}{s}") for s in PY_SUFFIXES]
    for depth, parent in enumerate(folder.parents, 1):
        found.extend(("../" * depth + name, parent / name) for name in _PROJECT_FILES)
    for depth, project in enumerate(list(folder.parents)[:2], 1):  # a package's metadata
        up = "../" * depth
        found.append((f"{up}PKG-INFO", project / "PKG-INFO"))
        infos = [*sorted(project.glob("*.egg-info")), *sorted(project.glob("src/*.egg-info"))]
        found.extend((f"{up}{i.relative_to(project).as_posix()}/PKG-INFO", i / "PKG-INFO")
                     for i in infos)  # fmt: skip
    return found
