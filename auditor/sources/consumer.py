# Maintainers: the CONSUMER argument -> a Release, and the provider baseline it implies.
#
# Owns: resolving CONSUMER in DESIGN's order (a folder; a local wheel/sdist; an installed
#       distribution or import name, through importlib.metadata only, never importing it; a
#       requirement from the index) into a Release whose tree decodes strictly, and
#       `infer_baseline` (an `==` pin on the provider in the consumer's Requires-Dist, extras
#       included; else, for a release from the index, the newest provider release uploaded
#       before it, within its requirement; else the lowest release on the index that
#       satisfies its lower bound; else the provider installed alongside; else None).
# Takes: the CLI's CONSUMER text and an Index. Gives: a Release; a version string or None.
"""Consumers: folders, installed distributions and index releases; the inferred baseline."""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from packaging.markers import UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.errors import AuditError, BadSpecError, ConsumerNotFoundError
from auditor.sources import Release
from auditor.sources.archive import is_archive_name
from auditor.sources.local import archive_release, folder_release
from auditor.sources.specs import exact_pin, file_url_path, parse_spec
from auditor.sources.trees import PY_SUFFIXES, FolderTree, read_top_level

if TYPE_CHECKING:
    from collections.abc import Iterable
    from importlib.metadata import Distribution

    from packaging.specifiers import SpecifierSet

    from auditor.sources.index import Index

log = logging.getLogger("drift_audit")

CONSUMER_HINT = (
    "pass a project folder or package folder, an installed distribution or import name, "
    "or NAME==VERSION to audit a release from the index"
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_LOWER_BOUNDS = (">=", "~=", ">")


def resolve_consumer(arg: str, index: Index) -> Release:
    """A folder; else a local archive; else an installed distribution; else a requirement.

    The consumer's tree decodes strictly: a file Python could not decode is unparsable."""
    return _strict(_resolve(arg, index))


def _resolve(arg: str, index: Index) -> Release:
    path = Path(arg).expanduser()
    if path.is_dir():
        return _folder_consumer(path)
    if path.is_file() and is_archive_name(path.name):
        return archive_release(path.resolve(), index.cache)
    installed = installed_release(arg)
    if installed is not None:
        return installed
    return _from_index(arg, index)


def _strict(release: Release) -> Release:
    if hasattr(release.tree, "strict"):
        release.tree.strict = True  # a fresh tree, made for this consumer alone
    return release


def _folder_consumer(path: Path) -> Release:
    release = folder_release(path)
    if not release.import_names:
        raise ConsumerNotFoundError(
            f"no Python package found in {path}",
            hint="point at a project root (pyproject.toml, src/ layout) or the package folder",
        )
    return release


SUBCOMMANDS = ("ecosystem", "cache")  # `drift-audit ecosystm ...` reads as a consumer


def _from_index(arg: str, index: Index) -> Release:
    try:
        req = parse_spec(arg)
    except BadSpecError as exc:
        raise ConsumerNotFoundError(
            f"{arg!r} is not a folder, an installed distribution or a requirement",
            hint=CONSUMER_HINT,
        ) from exc
    if not req.url and not req.specifier:
        import difflib

        command = difflib.get_close_matches(arg, SUBCOMMANDS, n=1, cutoff=0.75)
        mistyped = f"did you mean the command `{command[0]}`? or " if command else ""
        raise ConsumerNotFoundError(
            f"{arg!r} is neither a folder nor an installed distribution or import name",
            hint=f"{mistyped}pass '{arg}==VERSION' to audit a release from the index, or a folder",
        )
    return index.releases(arg)[-1]


# --------------------------------------------------------------------------- installed


def installed_release(arg: str) -> Release | None:
    """An installed distribution (by its name, or by an import name it provides), or None."""
    dist = _distribution(arg) if _NAME.fullmatch(arg) else None
    if dist is None:
        return None
    name = canonicalize_name(dist.name or arg)
    editable = _editable_folder(dist)
    if editable is not None:
        return replace(
            folder_release(editable, name=name), origin=f"installed (editable) {editable}"
        )
    files = _source_files(dist)
    if not files:
        raise ConsumerNotFoundError(
            f"the installed distribution {name} holds no Python source files", hint=CONSUMER_HINT
        )
    root = Path(str(dist.locate_file("")))
    names = tuple(dict.fromkeys(_top_name(f) for f in files))
    return Release(
        name=name,
        version=dist.version,
        tree=FolderTree(root, packages=names, files=files),
        origin=f"installed {root}",
        import_names=names,
        requires=tuple(dist.requires or ()),
        extra={"root": str(root)},
    )


def _distribution(arg: str) -> Distribution | None:
    import importlib.metadata  # here: a consumer from the index or a folder never needs it

    try:
        return importlib.metadata.distribution(arg)
    except importlib.metadata.PackageNotFoundError:
        pass
    for dist_name in sorted(importlib.metadata.packages_distributions().get(arg, ())):
        try:
            return importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _editable_folder(dist: Distribution) -> Path | None:
    """The source folder of an editable install (PEP 610 direct_url.json), if it is one."""
    try:
        data = json.loads(dist.read_text("direct_url.json") or "{}")
        if data.get("dir_info", {}).get("editable"):
            path = file_url_path(str(data["url"]))
            return path if path.is_dir() else None
    except (ValueError, KeyError, AttributeError, BadSpecError):
        log.debug("unreadable direct_url.json in %s", dist.name)
    return None


def _source_files(dist: Distribution) -> list[str]:
    """The installed .py/.pyi files under the distribution's top-level names, posix."""
    listed = read_top_level(dist.read_text("top_level.txt") or "")
    paths = [PurePosixPath(str(f)) for f in dist.files or ()]
    sources = [p for p in paths if p.suffix in PY_SUFFIXES and ".." not in p.parts]
    sources = [p for p in sources if not p.parts[0].endswith((".dist-info", ".data"))]
    if listed:
        sources = [p for p in sources if _top_name(p.as_posix()) in listed]
    return sorted(p.as_posix() for p in sources)


def _top_name(path: str) -> str:
    first = path.split("/", 1)[0]
    return first.rsplit(".", 1)[0] if first.endswith(PY_SUFFIXES) else first


# --------------------------------------------------------------------------- baseline


@dataclass(frozen=True)
class Inferred:
    """A baseline the consumer's own data implies, and why (said on stderr)."""

    version: str
    why: str


def infer_baseline(consumer: Release, provider: str, index: Index) -> str | None:
    """The provider version the consumer declares it works with, or None when it says nothing."""
    found = infer_baseline_why(consumer, provider, index)
    return found.version if found is not None else None


def infer_baseline_why(consumer: Release, provider: str, index: Index) -> Inferred | None:
    """The release the consumer was made against: an exact pin in its requirements; else, for
    a release from the index, the newest provider release uploaded before it (within its
    requirement); else the lowest release its lower bound admits; else the one installed."""
    name = _provider_name(provider)
    reqs = [r for r in _parse_all(consumer.requires) if canonicalize_name(r.name) == name]
    here = [r for r in reqs if _holds_here(r)]
    if reqs and not here:
        log.info("no requirement of %s on %s holds in this environment; using them all", name,
                 consumer.name)  # fmt: skip
    reqs = here or reqs
    for req in reqs:
        if (pin := exact_pin(req.specifier)) is not None:
            return Inferred(pin, f"{consumer.name} pins {req.name}=={pin}")
    published = _published_against(consumer, name, reqs, index)
    if published is not None:
        return published
    for req in reqs:
        if _has_lower_bound(req.specifier) and (
            found := _lowest_release(req.specifier, name, index)
        ):
            return Inferred(found, f"the lowest release {consumer.name}'s {req} admits")
    installed = _installed_version(name)
    return Inferred(installed, "the version installed here") if installed else None


def _published_against(
    consumer: Release, name: str, reqs: list[Requirement], index: Index
) -> Inferred | None:
    """For a consumer release from the index: the newest provider release uploaded before
    it, inside one of its requirements (the index gives upload times: PEP 700)."""
    if consumer.origin != "index" or consumer.version is None:
        return None
    try:
        when = index.uploaded(consumer.name, consumer.version)
        if when is None:
            return None
        specifiers: list[SpecifierSet | None] = [r.specifier for r in reqs] or [None]
        found = [v for s in specifiers if (v := index.newest_before(name, when, s)) is not None]
    except AuditError as exc:
        log.info("no upload times for %s (%s): the baseline comes from its metadata", name, exc)
        return None
    if not found:
        return None
    version = max(found, key=Version)
    day = time.strftime("%Y-%m-%d", time.gmtime(when))
    bounds = sorted({f"{name}{r.specifier}" for r in reqs if str(r.specifier)})
    within = f", within {' or '.join(bounds)}" if bounds else ""
    why = f"the newest release uploaded before {consumer.name} {consumer.version} ({day}){within}"
    return Inferred(version, why)


_EXTRA = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def _holds_here(req: Requirement) -> bool:
    """Whether a requirement applies in this environment (this Python, this platform), any
    extra it names counting as chosen: `vllm==0.10; python_version < "3.10"` and
    `vllm==0.11; python_version >= "3.10"` are one requirement each, for two interpreters."""
    if req.marker is None:
        return True
    extras = _EXTRA.findall(str(req.marker)) or [""]
    try:
        return any(req.marker.evaluate({"extra": extra}) for extra in extras)
    except (UndefinedEnvironmentName, UndefinedComparison):  # not decidable here: keep it
        return True


def _provider_name(provider: str) -> str:
    try:
        return canonicalize_name(Requirement(provider).name)
    except InvalidRequirement:
        return canonicalize_name(provider)


def _parse_all(lines: Iterable[str]) -> list[Requirement]:
    parsed: list[Requirement] = []
    for line in lines:
        try:
            parsed.append(Requirement(line))
        except InvalidRequirement:
            log.debug("ignoring unparsable requirement %r", line)
    return parsed


def _has_lower_bound(specifier: SpecifierSet) -> bool:
    return any(
        s.operator in _LOWER_BOUNDS or (s.operator == "==" and s.version.endswith(".*"))
        for s in specifier
    )


def _lowest_release(specifier: SpecifierSet, name: str, index: Index) -> str | None:
    """The oldest release on the index inside `specifier`; the literal `>=X` when unknown."""
    try:
        versions = index.versions(name)
    except AuditError as exc:
        literal = next((s.version for s in specifier if s.operator in (">=", "~=")), None)
        log.info("cannot list releases of %s (%s); baseline from the bound: %s", name, exc, literal)
        return literal
    return next(iter(specifier.filter(versions)), None)


def _installed_version(name: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
