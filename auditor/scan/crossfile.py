# Maintainers: the cross-file stage of the consumer scan: every file's facts known, each
# file's uses and classes placed.
#
# Owns: `CrossFile` (the Resolver, Values and Instances built over every file's facts, or,
# for an edited scan, over what `Lazy` says of every file, each module's files read in only
# when a lookup reaches it), each file's results (increment.FileResults: sites, edges,
# handlers, gates; flags of other modules decided, scan/flags.py), and putting the results
# together into one ConsumerScan (`combine`: sites sorted and once each, edges between known
# definitions, each once, sorted).
# Takes: walked FileFacts. Gives: FileResults per file and the assembled ConsumerScan; the
# order of work around it is consumer.py's.
"""The consumer scan's cross-file stage: uses and classes placed, results put together."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from auditor.model import ConsumerScan, Definition, Edge, Site, Unparsable
from auditor.scan.store import encode_list

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from auditor.scan.facts import FileFacts
    from auditor.scan.increment import FileResults, Pair
    from auditor.scan.resolve import Resolver


@dataclass(frozen=True, slots=True)
class Lazy:
    """What an edited scan knows of every file without reading it (increment.Previous),
    and how to read a module's files in: (index among the files, facts), in path order."""

    modules: frozenset[str]
    definitions: frozenset[str]  # every definition's name
    subclasses: dict[str, list[str]]
    others: dict[str, list[str]]
    read: Callable[[str], list[tuple[int, FileFacts]]]


class CrossFile:
    """What places one file's uses and classes, every file's facts known (resolve.py,
    values.py, instances.py; flags.py for the flags of other modules): given them all, or,
    with `lazy`, reading each module's files in only when a lookup reaches it."""

    def __init__(
        self,
        walked: list[FileFacts],
        providers: frozenset[str],
        lazy: Lazy | None = None,
        every: Callable[[], list[FileFacts]] | None = None,
    ) -> None:
        from auditor.scan.instances import Instances
        from auditor.scan.resolve import Known, Resolver
        from auditor.scan.values import Values

        self.walked = walked
        self._providers = providers
        self._lazy = lazy
        self._every = every
        self._read: dict[str, list[tuple[int, FileFacts]]] = {}
        self.loaded: list[FileFacts] = []
        if lazy is None:
            self.resolver = Resolver(walked, providers)
            self.values = Values(walked, self.resolver)
        else:
            known = Known(lazy.modules, lazy.definitions, lazy.subclasses, self.read_in)
            self.resolver = Resolver([], providers, known)
            self.values = Values([], self.resolver, lazy.others)
        self.instances = Instances(self.values, self.resolver)

    def read_in(self, module: str) -> list[tuple[int, FileFacts]]:
        """A module's files read in (once), then their stores into `self.x`."""
        found = self._read.get(module)
        if found is None:
            assert self._lazy is not None
            found = self._read[module] = self._lazy.read(module)
            for index, facts in found:
                self.resolver.add(facts, index)
                self.values.add(facts, index)
                self.loaded.append(facts)
            for _, facts in found:
                self.values.add_stores(facts)
        return found

    def results(self, files: list[FileFacts]) -> dict[str, FileResults]:
        """Each file's sites, edges, handlers and gates, in the order of `files` (uses
        first, then classes, as one pass over every file would place them); a whole scan's
        in two shares, each by a stage as it is once built, on two processes when that can
        pay (parallel.results_shared: the same results either way)."""
        if self._lazy is None:
            from auditor.scan.parallel import results_shared

            walked, providers = self.walked, self._providers

            def fresh() -> Callable[[list[FileFacts]], dict[str, FileResults]]:
                return CrossFile(walked, providers)._results

            return results_shared(files, self._results, fresh)
        return self._results(files)

    def _results(self, files: list[FileFacts]) -> dict[str, FileResults]:
        from auditor.scan import flags
        from auditor.scan.calls import use_results
        from auditor.scan.classes import class_results
        from auditor.scan.increment import FileResults

        r = self.resolver
        if self._lazy is not None:
            for f in files:
                self.read_in(f.module)
        uses = {f.path: use_results([f], r, self.instances.use) for f in files}
        classes = {f.path: class_results([f], r, self.values) for f in files}
        walked = self.walked
        if self._every is not None and any(f.flag_gates for f in files):
            walked = self._every()  # a flag may be any module's: every file read in
        flag_gates, flag_guarded = flags.decide(walked, files)
        out: dict[str, FileResults] = {}
        for f in files:
            (use_sites, use_edges), (class_sites, class_edges) = uses[f.path], classes[f.path]
            sites = _guard([*f.import_sites, *use_sites, *class_sites], flag_guarded)
            made = [*f.containment, *use_edges, *class_edges, *_import_edges([f], r)]
            edges = [(e.caller, e.callee) for e in made]
            gates = (*f.gates, *flag_gates.get(f.path, ()))
            out[f.path] = FileResults(tuple(sites), tuple(edges), tuple(f.handled), gates)
        return out


def assemble(
    packages: Sequence[str],
    paths: list[str],
    walked: list[FileFacts],
    unparsable: list[Unparsable],
    lines: Mapping[str, tuple[str, ...]],
    ignored: dict[str, dict[int, frozenset[str]]],
    providers: frozenset[str],
) -> ConsumerScan:
    """The scan of these files, every file's results made (what a whole scan does)."""
    cross = CrossFile(walked, providers)
    results, known = cross.results(walked), cross.resolver.definitions
    scan, pairs, _ = combine(packages, paths, unparsable, lines, ignored, results, known)
    edges = tuple(Edge(*p) for p in pairs)
    return replace(scan, definitions=definitions_of(walked), edges=edges)


def combine(
    packages: Sequence[str],
    paths: list[str],
    unparsable: list[Unparsable],
    lines: Mapping[str, tuple[str, ...]],
    ignored: dict[str, dict[int, frozenset[str]]],
    results: Mapping[str, FileResults],
    known: set[str],
) -> tuple[ConsumerScan, list[Pair], dict[str, list[int]]]:
    """The scan of these files from each file's results (in the order of `paths`), without
    definitions and edges; its edges (between two known definitions, each once, sorted) as
    (caller, callee); and the indices among them of the edges each file made."""
    # each once in the order met, then sorted: files' edges come in runs already in order
    # (an edited scan's kept ones all are), and the sort keeps runs (langchain-community's
    # 21k edges, filtered and sorted: 12.4 ms from a set, 6.8 ms this way)
    pairs = sorted(
        dict.fromkeys(
            pair
            for r in results.values()
            for pair in r.edges
            if pair[0] != pair[1] and pair[0] in known and pair[1] in known
        )
    )
    number = {pair: i for i, pair in enumerate(pairs)}
    owners = {
        path: sorted({number[e] for e in r.edges if e in number}) for path, r in results.items()
    }
    scan = ConsumerScan(
        package=",".join(packages),
        files=tuple(paths),
        definitions=(),
        edges=(),
        sites=_sites(site for r in results.values() for site in r.sites),
        unparsable=tuple(sorted(unparsable, key=lambda u: (u.path, u.line, u.column))),
        lines=lines,
        suppressions=ignored,
        handlers={path: r.handlers for path, r in results.items() if r.handlers},
        gates={path: r.gates for path, r in results.items() if r.gates},
    )
    return scan, pairs, owners


def _guard(sites: list[Site], spans: Mapping[str, list[tuple[int, int]]]) -> list[Site]:
    """Sites on lines that another module's flag guards (scan/flags.py) are guarded."""
    if not spans:
        return sites
    return [
        replace(site, guarded=True)
        if not site.guarded
        and any(a <= site.location.line <= b for a, b in spans.get(site.location.path, ()))
        else site
        for site in sites
    ]


def _import_edges(walked: list[FileFacts], resolver: Resolver) -> Iterable[Edge]:
    """Importing a consumer module runs it (and its packages): an edge to each."""
    for facts in walked:
        for owner, target in facts.module_refs:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                module = ".".join(parts[:i])
                if resolver.is_module(module):
                    yield Edge(owner, module)


def merged(last: list[Any], edited: list[FileFacts]) -> list[Any]:
    """The last scan's definitions as kept, those of the edited files as they are now
    (their names are the same: part of their interface; only where they are may have
    moved). KeyError for a kept one an edited file does not define."""
    from auditor.scan.increment import defined_in

    now: dict[str, dict[str, Any]] = {f.path: {} for f in edited}
    for facts in edited:
        for row in encode_list(facts.definitions, Definition):
            now[facts.path].setdefault(row[0], row)
    return [now[p][row[0]] if (p := defined_in(row)) in now else row for row in last]


def definitions_of(walked: list[FileFacts]) -> tuple[Definition, ...]:
    unique: dict[str, Definition] = {}
    for facts in walked:
        for definition in facts.definitions:
            unique.setdefault(definition.name, definition)
    return tuple(sorted(unique.values(), key=lambda d: d.name))


def _site_key(site: Site) -> tuple[str, int, int, str, str, str, int, int]:
    loc = site.location
    return (
        loc.path, loc.line, loc.column, site.target, site.action.value, site.scope,
        loc.end_line, loc.end_column,
    )  # fmt: skip


def _sites(sites: Iterable[Site]) -> tuple[Site, ...]:
    return tuple(sorted(set(sites), key=_site_key))
