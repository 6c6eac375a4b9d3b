# Maintainers: scan_consumer(), the consumer scan stage from end to end.
#
# Owns: the order of work. Each selected file is read, parsed once and walked once
# (walker.Walker); a file that cannot be read, decoded, parsed or walked becomes a
# model.Unparsable and the scan goes on. Then, with every file's bindings known, the
# Resolver follows consumer re-exports across modules and the uses become sites and edges
# (calls, classes), plus the edges implied by imports of consumer modules.
# Takes: a sources.SourceTree (the consumer's import root), the consumer's and the provider's
# top-level import names, exclude globs. Gives: a model.ConsumerScan, fully sorted, so the same
# input always gives the same output.
from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.errors import UnreadableError
from auditor.model import ConsumerScan, Definition, Edge, Location, Site, Unparsable
from auditor.scan.calls import use_results
from auditor.scan.classes import class_results
from auditor.scan.facts import FileFacts, Positions
from auditor.scan.instances import Instances
from auditor.scan.resolve import Resolver
from auditor.scan.scopes import Scope
from auditor.scan.source import (
    is_excluded,
    is_package,
    module_name,
    parse_source,
    select_paths,
    split_lines,
    suppressions,
)
from auditor.scan.values import Values
from auditor.scan.walker import Walker

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from auditor.sources import SourceTree


def scan_consumer(
    tree: SourceTree,
    packages: Sequence[str],
    providers: Sequence[str],
    *,
    exclude: Sequence[str] = (),
) -> ConsumerScan:
    """Scan a consumer's source for every reference into the provider.

    Args:
        tree: the consumer's import root; `walk()` gives posix `.py`/`.pyi` paths.
        packages: the consumer's own top-level import names.
        providers: the provider's top-level import names, e.g. `["vllm"]`.
        exclude: fnmatch globs (`**` allowed) of paths left out of the scan.

    Returns:
        Definitions, consumer-to-consumer edges, provider sites, files that did not parse,
        each file's lines and its inline suppressions; everything sorted.
    """
    roots = frozenset(providers)
    paths = select_paths(tree.walk(), exclude)
    _refuse_unreadable(tree, exclude)
    walked: list[FileFacts] = []
    unparsable: list[Unparsable] = []
    lines: dict[str, tuple[str, ...]] = {}
    ignored: dict[str, dict[int, frozenset[str]]] = {}
    for path in paths:
        outcome = _scan_file(tree, path, roots, lines, ignored)
        if isinstance(outcome, Unparsable):
            unparsable.append(outcome)
        else:
            walked.append(outcome)
    return _assemble(packages, paths, walked, unparsable, lines, ignored, roots)


def _scan_file(
    tree: SourceTree,
    path: str,
    providers: frozenset[str],
    lines: dict[str, tuple[str, ...]],
    ignored: dict[str, dict[int, frozenset[str]]],
) -> FileFacts | Unparsable:
    text = _read(tree, path)
    if isinstance(text, Unparsable):
        return text
    lines[path] = split_lines(text)
    if found := suppressions(text):
        ignored[path] = found
    parsed = parse_source(path, text)
    if isinstance(parsed, Unparsable):
        return parsed
    module = module_name(path)
    facts = FileFacts(
        path,
        module,
        is_package(path),
        Positions(path, lines[path]),
        Scope("module", module, module),
    )
    facts.definitions.append(Definition(module, "module", _whole_file(path, lines[path])))
    try:
        return Walker(facts, providers, stub=path.endswith(".pyi")).run(parsed)
    except RecursionError:
        return Unparsable(path, "RecursionError: nested too deeply to analyse")


def _refuse_unreadable(tree: SourceTree, exclude: Sequence[str]) -> None:
    """UnreadableError for a folder the walk could not list (unless it is excluded)."""
    for path, why in getattr(tree, "unreadable", ()):
        if not is_excluded(path + "/", exclude) and not is_excluded(path, exclude):
            raise UnreadableError(
                f"cannot read the folder {path} of the consumer: {why}",
                hint=UNREADABLE_HINT,
            )


UNREADABLE_HINT = "fix its permissions, or leave it out of the scan with --exclude"


def _read(tree: SourceTree, path: str) -> str | Unparsable:
    try:
        text = tree.read_text(path)
    except UnicodeDecodeError as exc:
        return Unparsable(path, f"UnicodeDecodeError: {exc.reason}")
    except OSError as exc:
        raise UnreadableError(
            f"cannot read {path} of the consumer: {exc.strerror or exc}", hint=UNREADABLE_HINT
        ) from exc
    if text is None:
        return Unparsable(path, "the file could not be read")
    return text.removeprefix("\ufeff")


def _whole_file(path: str, lines: tuple[str, ...]) -> Location:
    if not lines:
        return Location(path, 1, 1, 1, 1)
    return Location(path, 1, 1, len(lines), len(lines[-1]) + 1)


def _assemble(
    packages: Sequence[str],
    paths: list[str],
    walked: list[FileFacts],
    unparsable: list[Unparsable],
    lines: dict[str, tuple[str, ...]],
    ignored: dict[str, dict[int, frozenset[str]]],
    providers: frozenset[str],
) -> ConsumerScan:
    resolver = Resolver(walked, providers)
    values = Values(walked, resolver)
    use_sites, use_edges = use_results(walked, resolver, Instances(values, resolver).use)
    class_sites, class_edges = class_results(walked, resolver, values)
    import_sites = [site for facts in walked for site in facts.import_sites]
    containment = [edge for facts in walked for edge in facts.containment]
    edges = [*containment, *use_edges, *class_edges, *_import_edges(walked, resolver)]
    return ConsumerScan(
        package=",".join(packages),
        files=tuple(paths),
        definitions=_definitions(walked),
        edges=_edges(edges, resolver.definitions),
        sites=_sites([*import_sites, *use_sites, *class_sites]),
        unparsable=tuple(sorted(unparsable, key=lambda u: (u.path, u.line, u.column))),
        lines=lines,
        suppressions=ignored,
        handlers={f.path: tuple(f.handled) for f in walked if f.handled},
        gates={f.path: tuple(f.gates) for f in walked if f.gates},
    )


def _import_edges(walked: list[FileFacts], resolver: Resolver) -> Iterable[Edge]:
    """Importing a consumer module runs it (and its packages): an edge to each."""
    for facts in walked:
        for owner, target in facts.module_refs:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                module = ".".join(parts[:i])
                if resolver.is_module(module):
                    yield Edge(owner, module)


def _definitions(walked: list[FileFacts]) -> tuple[Definition, ...]:
    unique: dict[str, Definition] = {}
    for facts in walked:
        for definition in facts.definitions:
            unique.setdefault(definition.name, definition)
    return tuple(sorted(unique.values(), key=lambda d: d.name))


def _edges(edges: Iterable[Edge], known: set[str]) -> tuple[Edge, ...]:
    kept = {e for e in edges if e.caller != e.callee and e.callee in known and e.caller in known}
    return tuple(sorted(kept, key=lambda e: (e.caller, e.callee)))


def _site_key(site: Site) -> tuple[str, int, int, str, str, str, int, int]:
    loc = site.location
    return (
        loc.path, loc.line, loc.column, site.target, site.action.value, site.scope,
        loc.end_line, loc.end_column,
    )  # fmt: skip


def _sites(sites: Iterable[Site]) -> tuple[Site, ...]:
    return tuple(sorted(set(sites), key=_site_key))
