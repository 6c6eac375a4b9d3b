# Maintainers: sources that are already on this machine: folders and local archives.
#
# Owns: a folder as a Release (a project root with pyproject.toml / PKG-INFO, `src/` layout or
#       packages at the root; a package folder itself; or a bare import root as test fixtures
#       use), a local wheel or sdist as a Release (extracted once into the cache, keyed by its
#       sha256), and `name @ file:///path` direct references, which are one or the other.
# Takes: paths and Requirements. Gives: Releases. Folders are read in place, never copied.
"""Releases from local folders, local archives and file:// direct references."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

from auditor.errors import ArchiveError, BadSpecError
from auditor.sources import Release
from auditor.sources.archive import extract_sources, is_archive_name
from auditor.sources.cache import TreeRecord, extensions_entry
from auditor.sources.simple import file_version
from auditor.sources.specs import file_url_path
from auditor.sources.trees import (
    PY_SUFFIXES,
    FolderTree,
    Metadata,
    has_folder_metadata,
    import_form,
    locate_import_root,
    read_folder_metadata,
)

if TYPE_CHECKING:
    from pathlib import Path

    from packaging.requirements import Requirement

    from auditor.sources.cache import Cache


def direct_reference(req: Requirement, cache: Cache) -> Release:
    """`name @ file:///path`: a folder (an import root or a checkout), a wheel or an sdist."""
    url = str(req.url)
    path = file_url_path(url)
    name = canonicalize_name(req.name)
    if path.is_dir():
        release = folder_release(path, name=name, version_fallback=path.name)
    elif path.is_file() and is_archive_name(path.name):
        release = archive_release(path, cache, name=name)
    else:
        raise BadSpecError(
            f"{url} is neither a folder nor a wheel or sdist file",
            hint="point the direct reference at an existing folder, .whl, .tar.gz or .zip",
        )
    if not release.import_names:
        raise BadSpecError(
            f"no Python package found in {path}", hint="point at the folder that holds the package"
        )
    return replace(release, origin=url)


def folder_release(
    path: Path, *, name: str | None = None, version_fallback: str | None = None
) -> Release:
    """A folder read in place: a package folder itself, or a project root / import root."""
    path = path.resolve()
    names: tuple[str, ...]
    if is_package_dir(path):  # its import root is the parent, but only the folder is read
        import_root, names, confine = path.parent, (path.name,), path
        meta = _nearest_project_metadata(path.parent)
    else:
        meta = read_folder_metadata(path)
        prefer = import_form(name or meta.name or path.name)
        rel, names = locate_import_root(path, prefer=prefer)
        import_root = confine = path / rel
    return Release(
        name=canonicalize_name(name or meta.name or path.name),
        version=meta.version or version_fallback,
        tree=FolderTree(import_root, packages=names, confine=confine),
        origin=f"folder {path}",
        import_names=names,
        requires=meta.requires,
        extra={"root": str(import_root), "confine": str(confine)},
    )


def is_package_dir(path: Path) -> bool:
    return any((path / f"__init__{s}").is_file() for s in PY_SUFFIXES)


def _nearest_project_metadata(start: Path) -> Metadata:
    """The metadata of the project holding a package folder (its parent, or src/'s parent)."""
    for folder in (start, start.parent):
        if has_folder_metadata(folder):
            return read_folder_metadata(folder)
    return Metadata()


def archive_release(path: Path, cache: Cache, *, name: str | None = None) -> Release:
    """A local wheel or sdist, extracted once into the cache (keyed by its content hash)."""
    sha256 = _file_sha256(path)
    found = cache.find_local(sha256)
    if found is None:
        with cache.staging() as work:
            tree = work / "tree"
            tree.mkdir()
            project = name or path.name.split("-")[0]
            layout = extract_sources(path, path.name, tree, project=project)
            record = TreeRecord(
                name=canonicalize_name(layout.metadata.name or project),
                version=layout.metadata.version or file_version(path.name),
                root=layout.root,
                import_names=layout.import_names,
                requires=layout.metadata.requires,
                origin=path.as_uri(),
                extra={
                    "filename": path.name,
                    "sha256": sha256,
                    **extensions_entry(layout.extensions),
                },
            )
            tree_dir, files = cache.publish_local(tree, record, sha256)
            found = (tree_dir, record, files)
    tree_dir, record, files = found
    chosen = record if name is None else replace(record, name=name)
    return chosen.release(tree_dir, files)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise ArchiveError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the path and its permissions"
        ) from exc
    return digest.hexdigest()
