# Maintainers: a consumer scan kept in the cache and read back (scan_cached()).
#
# Owns: the key a scan is kept under (store.scan_key over every file's text, or over an
# immutable release's identity), what is kept of it (the sites part: sites, unparsable files,
# handlers, gates, suppressions, which files have lines; the graph part: definitions and
# edges, read back only when a call graph asks), and reading each part back field by field
# (the cache is untrusted: anything that does not fit is a miss, the scan made again).
# Takes: a sources.SourceTree and what scan_consumer() takes, and a store.ScanStore.
# Gives: the scan and a way to the whole ConsumerScan. The walker and the cross-file
# modules are imported only when a scan really runs (consumer._Sources).
"""A consumer scan kept in the cache, and read back without parsing anything."""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor.model import (
    ConsumerScan,
    Definition,
    Edge,
    Handled,
    Site,
    Unparsable,
    VersionGate,
    text_digest,
)
from auditor.scan.consumer import _Lines, _Sources
from auditor.scan.store import Mismatch, decode_edges, decode_list, encode_list, scan_key

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from auditor.scan.store import ScanStore
    from auditor.sources import SourceTree

logger = logging.getLogger("drift_audit")


def scan_cached(
    tree: SourceTree,
    packages: Sequence[str],
    providers: Sequence[str],
    *,
    exclude: Sequence[str] = (),
    store: ScanStore | None = None,
    identity: str | None = None,
) -> tuple[ConsumerScan, Callable[[], ConsumerScan]]:
    """scan_consumer(), kept in `store` (store.py) under a key of every file's text, or of
    `identity` when the tree is an immutable release (a wheel from the index, by its
    sha256): then a kept scan is read back without reading the files at all (their lines
    are read when a report asks for them).

    A kept scan is read back without parsing anything: first what the sites stage needs
    (sites, unparsable files, handlers, gates, lines, suppressions), without definitions
    and edges; the second value gives the whole ConsumerScan, definitions and edges read
    back on its first call (only a call graph asked for a chain needs them).
    DRIFT_AUDIT_NO_SCAN_CACHE=1: no store.
    """
    if store is None or os.environ.get("DRIFT_AUDIT_NO_SCAN_CACHE"):
        scan = _Sources(tree, packages, providers, exclude).complete()
        return scan, lambda: scan
    if identity is not None:
        key = scan_key(packages, providers, exclude, {"\0release": text_digest(identity)})
        kept = _kept_release(tree, packages, store.load(key, ""))
        sources = None if kept is not None else _Sources(tree, packages, providers, exclude)
    else:
        sources = _Sources(tree, packages, providers, exclude)
        key = scan_key(packages, providers, exclude, sources.digests)
        kept = _kept_sites(sources, store.load(key, ""))
        if not os.environ.get("DRIFT_AUDIT_NO_FACTS_KEEP"):
            sources.keep_facts(store, key)
    if kept is not None:
        logger.debug("scan: read back from the cache (%s)", key[:12])
        read = sources

        def again() -> ConsumerScan:  # the whole scan, when its graph part is not kept
            return (read or _Sources(tree, packages, providers, exclude)).complete()

        return kept, lambda: _kept_graph(kept, again, store.load(key, ".graph"))
    assert sources is not None
    scan, graph, whole = sources.parts()
    store.save(key, "", _sites_part(scan))
    store.save(key, ".graph", graph)
    if (by_file := sources.by_file()) is not None:
        from auditor.scan.increment import PART

        store.save(key, PART, by_file)
    store.forget_others(key)
    return scan, whole


def _sites_part(scan: ConsumerScan) -> dict[str, Any]:
    return {
        "sites": encode_list(scan.sites, Site),
        "unparsable": encode_list(scan.unparsable, Unparsable),
        "handlers": {path: encode_list(h, Handled) for path, h in scan.handlers.items()},
        "gates": {path: encode_list(g, VersionGate) for path, g in scan.gates.items()},
        "files": list(scan.files),
        "lined": sorted(scan.lines),
        "suppressions": {
            path: [[line, sorted(slugs)] for line, slugs in sorted(found.items())]
            for path, found in scan.suppressions.items()
        },
    }


def _kept_sites(sources: _Sources, data: dict[str, Any] | None) -> ConsumerScan | None:
    """The kept scan without definitions and edges; None when absent or of another shape."""
    if data is None:
        return None
    try:
        handlers, gates = data["handlers"], data["gates"]
        if not isinstance(handlers, dict) or not isinstance(gates, dict):
            return None
        return sources.scan(
            sites=tuple(decode_list(data["sites"], Site)),
            unparsable=tuple(decode_list(data["unparsable"], Unparsable)),
            handlers={str(p): tuple(decode_list(h, Handled)) for p, h in handlers.items()},
            gates={str(p): tuple(decode_list(g, VersionGate)) for p, g in gates.items()},
        )
    except (Mismatch, KeyError, TypeError):
        return None


def _kept_release(
    tree: SourceTree, packages: Sequence[str], data: dict[str, Any] | None
) -> ConsumerScan | None:
    """A kept scan of an immutable release: its files, lines and suppressions too, as kept
    (the lines read from the tree only when asked for); None when absent or misshapen."""
    if data is None:
        return None
    try:
        files, lined, ignored = data["files"], data["lined"], data["suppressions"]
        if not _strings(files) or not _strings(lined) or not isinstance(ignored, dict):
            return None
        handlers, gates = data["handlers"], data["gates"]
        if not isinstance(handlers, dict) or not isinstance(gates, dict):
            return None
        return ConsumerScan(
            package=",".join(packages),
            files=tuple(files),
            definitions=(),
            edges=(),
            sites=tuple(decode_list(data["sites"], Site)),
            unparsable=tuple(decode_list(data["unparsable"], Unparsable)),
            lines=_Lines(tree, frozenset(lined)),
            suppressions={str(p): _suppressions(rows) for p, rows in ignored.items()},
            handlers={str(p): tuple(decode_list(h, Handled)) for p, h in handlers.items()},
            gates={str(p): tuple(decode_list(g, VersionGate)) for p, g in gates.items()},
        )
    except (Mismatch, KeyError, TypeError, ValueError):
        return None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _suppressions(rows: object) -> dict[int, frozenset[str]]:
    if not isinstance(rows, list):
        raise Mismatch("expected a list")
    found: dict[int, frozenset[str]] = {}
    for row in rows:
        if not isinstance(row, list) or len(row) != 2 or type(row[0]) is not int:
            raise Mismatch("expected [line, slugs]")
        if not _strings(row[1]):
            raise Mismatch("expected slugs")
        found[row[0]] = frozenset(row[1])
    return found


def _kept_graph(
    kept: ConsumerScan, again: Callable[[], ConsumerScan], data: dict[str, Any] | None
) -> ConsumerScan:
    """The kept scan with its definitions and edges; scanned again when they are not kept."""
    try:
        if data is not None:
            definitions = tuple(decode_list(data["definitions"], Definition))
            pairs = decode_edges(data["edges"], [d.name for d in definitions])
            edges = tuple(Edge(*pair) for pair in pairs)
            return replace(kept, definitions=definitions, edges=edges)
    except (Mismatch, KeyError, TypeError):
        pass
    return again()
