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
# scan_cached() (cached.py) keeps the same scan in the cache and reads it back on a warm run;
# the walker and the cross-file stage (crossfile.py) are imported only when a scan really runs.
from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor.deep import deeply
from auditor.errors import UnreadableError
from auditor.model import (
    ConsumerScan,
    Definition,
    Edge,
    Handled,
    Location,
    Site,
    Unparsable,
    VersionGate,
    text_digest,
)
from auditor.scan.crossfile import CrossFile, Lazy, combine, definitions_of, merged
from auditor.scan.source import (
    is_excluded,
    is_package,
    module_name,
    parse_source,
    select_paths,
    split_lines,
    suppressions,
)
from auditor.scan.store import (
    Mismatch,
    consumer_of,
    decode_list,
    encode_edges,
    encode_list,
)

if TYPE_CHECKING:
    import ast
    from collections.abc import Callable, Iterator, Sequence

    from auditor.scan.facts import FileFacts
    from auditor.scan.increment import FileResults, Pair
    from auditor.scan.keptfacts import FactsStore
    from auditor.scan.store import ScanStore
    from auditor.sources import SourceTree

    # a scan, its graph part as kept (None: made from the scan when asked), the whole scan
    _Parts = tuple[ConsumerScan, dict[str, Any] | None, Callable[[], ConsumerScan]]

logger = logging.getLogger("drift_audit")


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
    return _Sources(tree, packages, providers, exclude).complete()


def _graph_part(scan: ConsumerScan) -> dict[str, Any]:
    names = [d.name for d in scan.definitions]
    return {
        "definitions": encode_list(scan.definitions, Definition),
        "edges": encode_edges(((e.caller, e.callee) for e in scan.edges), names),
    }


class _Lines(Mapping[str, tuple[str, ...]]):
    """A kept scan's `lines`: each file's lines, read from the tree the first time a report
    asks (for a finding's excerpt, a package's exports), not before."""

    def __init__(self, tree: SourceTree, lined: frozenset[str]) -> None:
        self._tree = tree
        self._lined = lined
        self._read: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, path: str) -> tuple[str, ...]:
        if path not in self._lined:
            raise KeyError(path)
        if path not in self._read:
            text = _read(self._tree, path)
            self._read[path] = split_lines(text) if isinstance(text, str) else ()
        return self._read[path]

    def __contains__(self, path: object) -> bool:
        return path in self._lined

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._lined))

    def __len__(self) -> int:
        return len(self._lined)


# A consumer of this many files keeps no file's lines once it is walked: a report reads the
# lines of the files it shows again (transformers, 1,813 files: 88 MiB of lines).
LAZY_LINES = 300


class _Sources:
    """Each file read once; the full scan of every file."""

    def __init__(
        self,
        tree: SourceTree,
        packages: Sequence[str],
        providers: Sequence[str],
        exclude: Sequence[str],
    ) -> None:
        self.tree = tree
        self.packages = packages
        self.exclude = exclude
        self.roots = frozenset(providers)
        self.paths = select_paths(tree.walk(), exclude)
        _refuse_unreadable(tree, exclude)
        lines: dict[str, tuple[str, ...]] = {}
        self.lines: Mapping[str, tuple[str, ...]] = lines
        self.ignored: dict[str, dict[int, frozenset[str]]] = {}
        self.texts: dict[str, str | Unparsable] = {}
        for path in self.paths:
            text = _read(tree, path)
            self.texts[path] = text
            if isinstance(text, str):
                lines[path] = split_lines(text)
                if found := suppressions(text):
                    self.ignored[path] = found
        self._keep: tuple[ScanStore, str] | None = None
        self._kept: FactsStore | None = None
        self._keys: dict[str, str] = {}  # path -> the key of its kept facts
        self._fresh: dict[str, FileFacts | Unparsable] = {}  # walked before a whole scan
        self._parts: _Parts | None = None  # made once, by _scan()
        self._owners: dict[str, list[int]] | None = None  # path -> the edges it made
        self._interfaces: dict[str, str | None] = {}  # path -> its facts' interface digest
        self._subclasses: dict[str, list[str]] = {}  # Resolver.subclass_index()
        self._others: dict[str, list[str]] = {}  # Values.other_files

    def keep_facts(self, store: ScanStore, key: str) -> None:
        """Keep each file's facts in the cache (keptfacts.py), and walk only the files
        whose facts are not kept (read when the scan is not kept whole); and, when only
        some files changed since the last scan of this consumer (`key`'s), make only their
        results again if that can change no other's (increment.py)."""
        self._keep = (store, key)

    @functools.cached_property
    def digests(self) -> dict[str, str]:
        """Each file's model.text_digest(), of its text or of why it could not be read:
        for the key of a kept scan and of each file's kept facts."""
        return {
            p: text_digest(t if isinstance(t, str) else f"\0unreadable: {t.reason}")
            for p, t in self.texts.items()
        }

    def complete(self) -> ConsumerScan:
        """Every file walked: what scan_consumer() gives."""
        return self._scan()[2]()

    def parts(self) -> tuple[ConsumerScan, dict[str, Any], Callable[[], ConsumerScan]]:
        """The scan (an edited one without its definitions and edges), its graph part as
        kept (store.py), and the whole scan: an edited scan's graph part is the last one's
        with the edited files' part made again, read back into model types only if the
        whole is asked for."""
        scan, graph, whole = self._scan()
        return scan, graph if graph is not None else _graph_part(scan), whole

    def _scan(self) -> _Parts:
        """The edited scan's parts, or the whole scan's (its graph part not yet made)."""
        if self._parts is None:
            self._prepare()
            parts: _Parts | None = self._edited()
            if parts is None:
                scan = self._whole()
                parts = (scan, None, lambda: scan)
            self._parts = parts
            self.texts.clear()  # every file is walked: its text is read no more
        return self._parts

    def _prepare(self) -> None:
        if self._keep is not None and self._kept is None:
            from auditor.scan.keptfacts import FactsStore, facts_key

            self._kept = FactsStore(self._keep[0].root, consumer_of(self._keep[1]))
            for path in self.paths:
                if isinstance(self.texts[path], str):
                    self._keys[path] = facts_key(path, self.digests[path], self.roots)

    def _whole(self) -> ConsumerScan:
        from auditor.scan.parallel import walk_shared

        outcomes: dict[str, FileFacts | Unparsable] = {}
        pending: list[str] = []
        for path in self.paths:
            found = self._fresh.get(path) or self._known(path)
            if found is None:
                pending.append(path)
            else:
                outcomes[path] = found
        outcomes.update(walk_shared(pending, self._walk_keeping, self.lines))
        walked = [o for p in self.paths if not isinstance(o := outcomes[p], Unparsable)]
        unparsable = [o for p in self.paths if isinstance(o := outcomes[p], Unparsable)]
        del outcomes
        self.texts.clear()  # every file is walked: its text is read no more
        self._let_lines_go(walked)
        cross = CrossFile(walked, self.roots)
        results = cross.results(walked)
        known = cross.resolver.definitions
        scan, pairs = self._put_together(unparsable, results, known)
        edges = tuple(Edge(*p) for p in pairs)
        scan = replace(scan, definitions=definitions_of(walked), edges=edges)
        if self._kept is not None:
            # what an edited scan needs to read files only as needed
            self._subclasses = cross.resolver.subclass_index()
            self._others = cross.values.other_files
            self._kept.used.update(self._keys[p] for p in pending)  # kept by either process
            self._kept.forget_unused()
            logger.debug(
                "scan: %d of %d files walked, the others' facts kept",
                len(pending), len(self.paths),
            )  # fmt: skip
        self._interfaces = {f.path: self._interface(f) for f in walked}
        return scan

    def _edited(self) -> tuple[ConsumerScan, dict[str, Any], Callable[[], ConsumerScan]] | None:
        """The scan made again for the files changed since the last one (increment.py);
        None when that cannot be known to give what a whole scan gives."""
        if self._kept is None or os.environ.get("DRIFT_AUDIT_NO_INCREMENT"):
            return None
        from auditor.scan.increment import previous

        last = previous(*self._keep) if self._keep is not None else None
        if last is None or set(last.files) != set(self.paths):
            return None
        changed = [p for p in self.paths if last.files[p][0] != self._keys.get(p)]
        if not changed or len(changed) > max(1, len(self.paths) // 4):
            return None  # nothing to reuse, or too little to pay for the checks
        edited: list[FileFacts] = []
        for path in changed:
            if not isinstance(self.texts[path], str):
                return None
            facts = self._fresh[path] = self._known(path) or self._walk_keeping(path)
            if isinstance(facts, Unparsable) or self._interface(facts) != last.files[path][1]:
                return None  # an interface changed: other files' results may change
            edited.append(facts)
        modules: dict[str, list[tuple[int, str]]] = {}
        for index, path in enumerate(self.paths):
            modules.setdefault(module_name(path), []).append((index, path))

        def read(module: str) -> list[tuple[int, FileFacts]]:
            out = []
            for index, path in modules.get(module, ()):
                found = self._fresh.get(path) or self._known(path, body=False)
                if found is None:  # facts no longer kept: the file is walked again
                    found = self._fresh[path] = self._walk_keeping(path)
                if not isinstance(found, Unparsable):
                    out.append((index, found))
            return out

        def every() -> list[FileFacts]:
            found = [pair for module in modules for pair in cross.read_in(module)]
            return [facts for _, facts in sorted(found, key=lambda pair: pair[0])]

        names = frozenset(row[0] for row in last.definitions)
        lazy = Lazy(frozenset(modules), names, last.subclasses, last.others, read)
        cross = CrossFile([], self.roots, lazy, every)
        made = cross.results(edited)
        results = {p: made[p] if p in made else last.results[p] for p in self.paths}
        for facts in last.unparsable:
            results.pop(facts.path, None)
        try:
            definitions = merged(last.definitions, edited)
        except KeyError:  # a kept definition the edited file does not have: not its record
            return None
        self._subclasses, self._others = last.subclasses, last.others
        scan, pairs = self._put_together(list(last.unparsable), results, cross.resolver.definitions)
        graph = {
            "definitions": definitions,
            "edges": encode_edges(pairs, [row[0] for row in definitions]),
        }
        self._kept.used.update(self._keys.values())
        self._kept.forget_unused()
        self._interfaces = {p: last.files[p][1] for p in self.paths}
        logger.debug(
            "scan: %d of %d files changed, their interfaces did not: only their results "
            "made again (%d files' interfaces read)", len(changed), len(self.paths),
            len(cross.loaded),
        )  # fmt: skip
        tree, packages, providers, exclude = self.tree, self.packages, self.roots, self.exclude

        def whole() -> ConsumerScan:
            try:
                found = tuple(decode_list(definitions, Definition))
            except (Mismatch, KeyError, TypeError, ValueError):  # a kept definition misshapen
                return _Sources(tree, packages, sorted(providers), exclude).complete()
            return replace(scan, definitions=found, edges=tuple(Edge(*p) for p in pairs))

        return scan, graph, functools.cache(whole)

    def _put_together(
        self, unparsable: list[Unparsable], results: dict[str, FileResults], known: set[str]
    ) -> tuple[ConsumerScan, list[Pair]]:
        """The scan without definitions and edges, and its edges as pairs (an edited scan
        keeps its lines: it holds only a few files' facts, and they are read already)."""
        scan, pairs, self._owners = combine(
            self.packages, self.paths, unparsable, self.lines, self.ignored, results, known
        )
        return scan, pairs

    def _let_lines_go(self, walked: list[FileFacts]) -> None:
        """A big consumer's lines no longer held once its files are walked: read again from
        the tree when a report asks (_Lines), each file's positions kept without them
        (transformers: ~100 MiB less through the cross-file stage)."""
        if len(self.paths) >= LAZY_LINES and not isinstance(self.lines, _Lines):
            for facts in walked:
                facts.positions = facts.positions.compact()
            self.lines = _Lines(self.tree, frozenset(self.lines))

    def _interface(self, facts: FileFacts) -> str | None:
        if self._kept is None or facts.path not in self._keys:
            return None
        return self._kept.interface(self._keys[facts.path], facts)

    def by_file(self) -> dict[str, Any] | None:
        """What the scan keeps for the next one (increment.record), once complete()."""
        if self._kept is None or self._owners is None:
            return None
        from auditor.scan.increment import record

        files = {p: (self._keys.get(p), self._interfaces.get(p)) for p in self.paths}
        return record(files, self._owners, self._subclasses, self._others)

    def _known(self, path: str, *, body: bool = True) -> FileFacts | Unparsable | None:
        """A file's facts without walking it: why it cannot be read, or its kept facts
        (without `body`, only what other files' results read: FactsStore.load)."""
        text = self.texts[path]
        if not isinstance(text, str):
            return text
        if self._kept is None:
            return None
        return self._kept.load(self._keys[path], path, self.lines[path], body=body)

    def _walk_keeping(self, path: str) -> FileFacts | Unparsable:
        """A file parsed and walked (in this process or a forked one), its facts kept."""
        text = self.texts[path]
        assert isinstance(text, str)
        outcome = walk_file(path, text, self.lines[path], self.roots)
        if self._kept is not None:
            self._kept.save(self._keys[path], path, outcome)
        return outcome

    def scan(
        self,
        sites: tuple[Site, ...],
        unparsable: tuple[Unparsable, ...],
        handlers: dict[str, tuple[Handled, ...]],
        gates: dict[str, tuple[VersionGate, ...]],
    ) -> ConsumerScan:
        """A ConsumerScan of these files with these parts (no definitions nor edges)."""
        return ConsumerScan(
            package=",".join(self.packages),
            files=tuple(self.paths),
            definitions=(),
            edges=(),
            sites=sites,
            unparsable=unparsable,
            lines=self.lines,
            suppressions=self.ignored,
            handlers=handlers,
            gates=gates,
        )


def walk_file(
    path: str, text: str, lines: tuple[str, ...], providers: frozenset[str]
) -> FileFacts | Unparsable:
    """One file parsed as Python would parse it (what its parser refuses is unparsable), then
    walked, on a deep stack when its nesting needs one (deep.py): what Python reads, the walk
    reads; a file it still cannot walk is unparsable, which fails the gate."""
    parsed = parse_source(path, text)
    if isinstance(parsed, Unparsable):
        return parsed
    try:
        return deeply(_walk_file, path, parsed, lines, providers)
    except RecursionError:
        return Unparsable(path, "RecursionError: nested too deeply to analyse")


def _walk_file(
    path: str, parsed: ast.Module, lines: tuple[str, ...], providers: frozenset[str]
) -> FileFacts | Unparsable:
    # The walker and what resolves its facts are imported where they are used: a scan kept
    # in the cache (scan_cached) needs none of them, and a warm run starts faster without.
    from auditor.scan.facts import FileFacts, Positions
    from auditor.scan.scopes import Scope
    from auditor.scan.walker import Walker

    module = module_name(path)
    facts = FileFacts(
        path,
        module,
        is_package(path),
        Positions(path, lines),
        Scope("module", module, module),
    )
    facts.definitions.append(Definition(module, "module", _whole_file(path, lines)))
    return Walker(facts, providers, stub=path.endswith(".pyi")).run(parsed)


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
