# Maintainers: what a consumer scan keeps for the next one, so that an edit is scanned again
# only where it can change something.
#
# Owns: `FileResults` (one file's part of a scan: the sites and edges its code makes, its
# handlers and gates), the record kept beside a scan (`<key>.files.json`: each file's facts
# key and interface digest, keptfacts.py, and which of the scan's edges each file made), and
# `Previous`: the last scan kept of the same consumer read back by file.
# Takes: a ScanStore and the consumer part of a scan key. Gives: the last scan by file, or
# None when there is none or it does not fit.
#
# consumer.py uses it so: when the files of an edited consumer are the same files, and each
# edited one parses and keeps its interface (what other files' results read of it: its
# bindings, classes, signatures, stores, flags; not its uses, nor any position), the other
# files' sites, edges, handlers and gates are the last scan's, and only the edited files'
# are made again. Their lookups read other files' interfaces in as they reach them (a
# module's files when a name leads there, resolve.Known); what no lookup can find by name
# comes from this record, unchanged since no interface changed: every definition's name,
# each class's consumer subclasses, and which files store an attribute on other objects
# (a flag of another module reads every file in). Anything else (a file added, removed,
# unparsable, an interface changed, a record that does not fit) is a whole scan, as before.
# The cache is untrusted: a record read back is checked field by field; what does not fit
# is only a miss.
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.model import Handled, Site, Unparsable, VersionGate
from auditor.scan.store import Mismatch, consumer_of, decode_edges, decode_list

if TYPE_CHECKING:
    from collections.abc import Mapping

    from auditor.scan.store import ScanStore

PART = ".files"  # the record's part name beside a scan's "" and ".graph"
Pair = tuple[str, str]  # a model.Edge's caller and callee


@dataclass(frozen=True, slots=True)
class FileResults:
    """One file's part of a consumer scan: its sites (a flag's guard applied), the edges its
    code makes (checked against every file's definitions when a scan is put together), its
    handlers and its version gates (a flag's included)."""

    sites: tuple[Site, ...]
    edges: tuple[Pair, ...]  # (caller, callee) of each model.Edge
    handlers: tuple[Handled, ...]
    gates: tuple[VersionGate, ...]


@dataclass(frozen=True, slots=True)
class Previous:
    """The last scan kept of a consumer, by file, and what it knew of every file: so that
    an edited scan reads a file's interface only when a lookup reaches it."""

    files: dict[str, tuple[str | None, str | None]]  # path -> (facts key, interface digest)
    results: dict[str, FileResults]
    unparsable: tuple[Unparsable, ...]
    definitions: list[Any]  # the graph part's, as kept (store.py's form of model.Definition)
    subclasses: dict[str, list[str]]  # a class -> its direct consumer subclasses
    others: dict[str, list[str]]  # an attribute -> the files that store it on other objects


def record(
    files: Mapping[str, tuple[str | None, str | None]],
    owners: Mapping[str, list[int]],
    subclasses: Mapping[str, list[str]],
    others: Mapping[str, list[str]],
) -> dict[str, Any]:
    """The record kept beside a scan: each file's facts key and interface digest, the
    indices (in the scan's sorted edges) of the edges each file made, each consumer class's
    direct consumer subclasses (resolve.Resolver.subclass_index), and for each attribute
    the files whose stores of it on other objects count (values.Values.other_files)."""
    return {
        "files": {path: list(pair) for path, pair in files.items()},
        "edges": {path: found for path, found in owners.items() if found},
        "subclasses": dict(subclasses),
        "others": dict(others),
    }


def previous(store: ScanStore, key: str) -> Previous | None:
    """The last scan kept of the consumer `key` is a scan of (not `key` itself), by file."""
    consumer = consumer_of(key) + "-"
    for name in store.names():
        if name.startswith(consumer) and name.endswith(PART + ".json"):
            last = name.removesuffix(PART + ".json")
            if last != key:
                return _read(store, last)
    return None


def _read(store: ScanStore, key: str) -> Previous | None:
    kept, sites, graph = store.load(key, PART), store.load(key, ""), store.load(key, ".graph")
    if kept is None or sites is None or graph is None:
        return None
    try:
        files = _files(kept["files"])
        owned = kept["edges"]
        handlers, gates = sites["handlers"], sites["gates"]
        if not isinstance(owned, dict) or not isinstance(handlers, dict):
            return None
        if not isinstance(gates, dict):
            return None
        by_path: dict[str, list[Site]] = {path: [] for path in files}
        for site in decode_list(sites["sites"], Site):
            by_path[site.location.path].append(site)
        subclasses, others = _names(kept["subclasses"]), _names(kept["others"])
        if not all(path in files for paths in others.values() for path in paths):
            return None
        unparsable = tuple(decode_list(sites["unparsable"], Unparsable))
        definitions = _rows(graph["definitions"])
        if not all(u.path in files for u in unparsable):
            return None
        if not all(defined_in(row) in files for row in definitions):
            return None
        edges = decode_edges(graph["edges"], [row[0] for row in definitions])
        results = {
            path: FileResults(
                tuple(by_path[path]),
                _edges(owned.get(path, []), edges),
                tuple(decode_list(handlers.get(path, []), Handled)),
                tuple(decode_list(gates.get(path, []), VersionGate)),
            )
            for path in files
        }
    except (Mismatch, KeyError, TypeError, ValueError, IndexError):
        return None
    return Previous(files, results, unparsable, definitions, subclasses, others)


def _names(data: object) -> dict[str, list[str]]:
    if not isinstance(data, dict):
        raise Mismatch("expected a table")
    for values in data.values():
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise Mismatch("expected a list of names")
    return {str(name): list(values) for name, values in data.items()}


def _files(data: object) -> dict[str, tuple[str | None, str | None]]:
    if not isinstance(data, dict):
        raise Mismatch("expected the files")
    files: dict[str, tuple[str | None, str | None]] = {}
    for path, pair in data.items():
        if not isinstance(pair, list) or len(pair) != 2:
            raise Mismatch("expected [key, interface]")
        if not all(v is None or isinstance(v, str) for v in pair):
            raise Mismatch("expected strings")
        files[str(path)] = (pair[0], pair[1])
    return files


def defined_in(row: Any) -> str | None:
    """The file a kept definition (`[name, kind, [path, ...]]`) is in; None if misshapen."""
    if type(row) is list and len(row) == 3 and type(row[0]) is str and type(row[2]) is list:
        path = row[2][0] if row[2] else None
        return path if type(path) is str else None
    return None


def _rows(data: object) -> list[Any]:
    if type(data) is not list:
        raise Mismatch("expected a list")
    return data


def _edges(indices: object, edges: list[Pair]) -> tuple[Pair, ...]:
    if not isinstance(indices, list) or not all(type(i) is int and i >= 0 for i in indices):
        raise Mismatch("expected edge indices")
    return tuple(edges[i] for i in indices)
