"""The consumer scan kept in the cache (scan/store.py): read back exactly, keyed by every
file's text, never trusted beyond its shape; and the lookups that make warm runs cheap
(the memo index, the call graph's own breadth-first search) answer as before."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING

import pytest

from auditor import graph as graph_module
from auditor.graph import build_graph
from auditor.model import (
    ConsumerScan,
    Definition,
    Edge,
    Handled,
    Location,
    Site,
    Unparsable,
    VersionGate,
)
from auditor.provider.memo import ResolutionMemo
from auditor.scan import ScanStore, scan_cached, scan_consumer
from auditor.scan.store import Mismatch, decode, encode, encode_list
from tests.helpers import DictTree

if TYPE_CHECKING:
    from pathlib import Path

CONSUMER = {
    "widget/__init__.py": "from widget.core import run\n",
    "widget/core.py": """\
        import acme
        from acme.io import Reader, open_stream
        try:
            from acme.fast import speed
        except ImportError:
            speed = None

        class Local(Reader):
            def read(self, n, *, block=True):  # drift-audit: ignore[override-mismatch]
                return super().read(n, timeout=3)

        def run(path: str) -> int:
            stream = open_stream(path, mode="rb", **{"buffer": 1})
            rows = [r for r in stream.rows()]
            a, b = acme.pair(1, 2)
            if acme.__version__ >= "2":
                acme.new_api(x=1)
            return len(rows) + Local().read(3)
        """,
    "widget/broken.py": "def oops(:\n",
}


def _scan(files: dict[str, str], store: ScanStore | None) -> tuple[ConsumerScan, ConsumerScan]:
    kept, complete = scan_cached(DictTree(files), ["widget"], ["acme"], store=store)
    return kept, complete()


def test_a_kept_scan_reads_back_as_the_scan_it_kept(tmp_path: Path) -> None:
    fresh = scan_consumer(DictTree(CONSUMER), ["widget"], ["acme"])
    store = ScanStore(tmp_path)
    first, first_complete = _scan(CONSUMER, store)
    assert first == fresh and first_complete == fresh  # a miss: the scan itself
    kept, complete = _scan(CONSUMER, store)
    assert kept.sites == fresh.sites and kept.unparsable == fresh.unparsable
    assert kept.handlers == fresh.handlers and kept.gates == fresh.gates
    assert kept.lines == fresh.lines and kept.suppressions == fresh.suppressions
    assert kept.definitions == () and kept.edges == ()  # read only when a chain is asked for
    assert complete == fresh


def test_a_release_kept_by_its_identity_is_read_back_without_reading_its_files(
    tmp_path: Path,
) -> None:
    fresh = scan_consumer(DictTree(CONSUMER), ["widget"], ["acme"])
    store = ScanStore(tmp_path)
    scan_cached(DictTree(CONSUMER), ["widget"], ["acme"], store=store, identity="acme 1 sha")
    tree = DictTree(CONSUMER)
    kept, complete = scan_cached(tree, ["widget"], ["acme"], store=store, identity="acme 1 sha")
    assert tree.reads == []  # nothing read: the files, lines and suppressions were kept
    assert kept.files == fresh.files and kept.sites == fresh.sites
    assert kept.suppressions == fresh.suppressions and kept.unparsable == fresh.unparsable
    assert dict(kept.lines) == dict(fresh.lines)  # read now, on demand
    assert tree.reads  # ...from the tree
    assert complete() == fresh


def test_an_edited_file_is_a_new_key_and_the_older_scan_goes(tmp_path: Path) -> None:
    store = ScanStore(tmp_path)
    _scan(CONSUMER, store)
    edited = {**CONSUMER, "widget/core.py": CONSUMER["widget/core.py"] + "acme.gone()\n"}
    kept, whole = _scan(edited, store)
    assert whole == scan_consumer(DictTree(edited), ["widget"], ["acme"])
    assert any(s.target == "acme.gone" for s in kept.sites)
    assert len(list((tmp_path / store.folder).glob("*.json"))) == 3  # one scan: 3 parts


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: {**data, "sites": [["call", 1]]},
        lambda data: {**data, "sites": [[*data["sites"][0][:3], "not a location"]]},
        lambda data: {**data, "handlers": []},
        lambda data: {k: v for k, v in data.items() if k != "gates"},
        lambda data: {**data, "format": 99},
    ],
)
def test_a_damaged_kept_scan_is_only_a_miss(tmp_path: Path, damage: object) -> None:
    store = ScanStore(tmp_path)
    _scan(CONSUMER, store)
    for path in (tmp_path / store.folder).glob("*[0-9a-f].json"):
        data = json.loads(path.read_text())
        path.write_text(json.dumps(damage(data)))  # type: ignore[operator]
    kept, complete = _scan(CONSUMER, store)
    assert kept == complete == scan_consumer(DictTree(CONSUMER), ["widget"], ["acme"])


def test_the_encoders_made_per_type_write_what_encode_writes() -> None:
    scan = scan_consumer(DictTree(CONSUMER), ["widget"], ["acme"])
    for values, hint in [
        (scan.sites, Site),
        (scan.unparsable, Unparsable),
        (scan.definitions, Definition),
        (scan.edges, Edge),
        *((h, Handled) for h in scan.handlers.values()),
        *((g, VersionGate) for g in scan.gates.values()),
    ]:
        assert values
        assert encode_list(values, hint) == encode(values)


def test_the_codec_checks_every_field() -> None:
    location = Location("a.py", 1, 2, 3, 4)
    assert decode(encode(location), Location) == location
    with pytest.raises(Mismatch):
        decode(["a.py", 1, 2, 3, True], Location)  # a bool is not an int here
    with pytest.raises(Mismatch):
        decode(["a.py", 1, 2, 3], Location)


def test_the_memo_index_answers_what_a_linear_search_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first stored entry whose every dependency still has its digest, whatever the
    modules each entry depends on."""
    rng = random.Random(7)
    modules = ["a", "b", "c", "d"]
    for _ in range(200):
        entries = []
        for n in range(rng.randint(1, 6)):
            deps = sorted(rng.sample(modules, rng.randint(1, 3)))
            entries.append((tuple((m, str(rng.randint(0, 1))) for m in deps), {"n": n}))
        now = {m: str(rng.randint(0, 1)) for m in modules}
        answers = []
        for switch in ("1", ""):
            monkeypatch.setenv("DRIFT_AUDIT_NO_MEMO_INDEX", switch)
            memo = ResolutionMemo(None)
            for deps, value in entries:
                memo.store("k", deps, value)
            answers.append((memo.lookup("k", now.get), memo.answered, memo.hits, memo.misses))
        assert answers[0] == answers[1]


def test_the_graph_finds_the_chains_networkx_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random graphs, small and larger, with no, one or many entry points (the walk stops
    early once MAX_CHAINS entry points are found at a complete level), public and private
    modules: every scope's chains are networkx's."""
    rng = random.Random(11)
    here = Location("m.py", 1, 1, 1, 1)
    for n in range(300):
        size = rng.randint(2, 12) if n < 100 else rng.randint(10, 60)
        names = [f"pkg.{'_' if rng.random() < 0.3 else ''}m{i}" for i in range(size)]
        edges = {(rng.choice(names), rng.choice(names)) for _ in range(rng.randint(1, 4 * size))}
        scan = ConsumerScan(
            package="pkg",
            files=(),
            definitions=tuple(Definition(n, "module", here) for n in names),
            edges=tuple(Edge(a, b) for a, b in sorted(edges) if a != b),
            sites=(),
            unparsable=(),
        )
        entry = [f"{rng.choice(names)}:x", *rng.sample(names, rng.randint(0, min(6, size)))]
        chains = []
        for switch, walks in (("1", 64), ("", 64), ("", 0)):  # 0: no entry point walked alone
            monkeypatch.setenv("DRIFT_AUDIT_NO_OWN_BFS", switch)
            monkeypatch.setattr(graph_module, "MAX_ENTRY_WALKS", walks)
            graph = build_graph(scan, entry)
            chains.append([graph.reached_from(n) for n in names])
        assert chains[0] == chains[1] == chains[2]


def test_graph_edges_are_kept_as_definition_indices_and_read_back() -> None:
    from auditor.scan.store import decode_edges, encode_edges

    names = ["pkg", "pkg.a", "pkg.b", "pkg.a"]  # a repeated name: its first row
    pairs = [("pkg", "pkg.a"), ("pkg.a", "pkg.b"), ("pkg.b", "elsewhere.c")]
    kept = encode_edges(pairs, names)
    assert kept == [[0, 1], [1, 2], [2, "elsewhere.c"]]  # a name without a row stays a name
    assert decode_edges(kept, names) == pairs
    for bad in ([[0, 4]], [[-1, 0]], [[True, 0]], [[0]], [[0, 1.0]], {"0": 1}, [None]):
        with pytest.raises(Mismatch):
            decode_edges(bad, names)
