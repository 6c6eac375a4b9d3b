"""A big consumer's files walked on two processes (scan/parallel.py): the same facts and the
same scan as one process gives, and a child that fails only means this process walks its
files itself."""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

import pytest

from auditor.model import Unparsable
from auditor.scan import consumer, parallel, scan_consumer
from auditor.scan.keptfacts import encode_facts
from tests.helpers import DictTree
from tests.unit.test_keptfacts import _fixture_files, _walk

if TYPE_CHECKING:
    from collections.abc import Callable

    from auditor.scan.facts import FileFacts


def _lines(files: dict[str, str]) -> dict[str, tuple[str, ...]]:
    from auditor.scan.source import split_lines

    return {p: split_lines(t) for p, t in files.items()}


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """walk_shared() forks even for a few files, on a machine it sees as idle."""
    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    monkeypatch.setattr(parallel, "_idle", lambda n: float(n))
    monkeypatch.setattr(parallel, "_processors", lambda: 2)
    monkeypatch.delenv("DRIFT_AUDIT_NO_PARALLEL_SCAN", raising=False)


def _assert_walked_alike(shared: dict[str, FileFacts | Unparsable], files: dict[str, str]) -> None:
    assert set(shared) == set(files)
    for path, text in files.items():
        assert encode_facts(shared[path]) == encode_facts(_walk(path, text)), path


@pytest.mark.usefixtures("forking")
def test_two_processes_give_the_facts_one_gives() -> None:
    files = _fixture_files()
    walked_here: list[str] = []
    me = os.getpid()

    def walk(path: str) -> FileFacts | Unparsable:
        if os.getpid() == me:
            walked_here.append(path)
        return _walk(path, files[path])

    shared = parallel.walk_shared(list(files), walk, _lines(files))
    assert 0 < len(walked_here) < len(files)  # the child walked the others
    _assert_walked_alike(shared, files)


@pytest.mark.usefixtures("forking")
def test_a_failing_child_leaves_its_files_to_this_process() -> None:
    files = _fixture_files()
    me = os.getpid()

    def walk(path: str) -> FileFacts | Unparsable:
        if os.getpid() != me:
            raise MemoryError  # the child fails (a crash: os._exit in it, tried below)
        return _walk(path, files[path])

    def crash(path: str) -> FileFacts | Unparsable:
        if os.getpid() != me:
            os._exit(9)
        return _walk(path, files[path])

    for failing in (walk, crash):
        _assert_walked_alike(parallel.walk_shared(list(files), failing, _lines(files)), files)


@pytest.mark.usefixtures("forking")
def test_a_child_that_hangs_is_killed_at_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PATIENCE", 0.5)
    files = _fixture_files()
    me = os.getpid()

    def hang(path: str) -> FileFacts | Unparsable:
        if os.getpid() != me:
            time.sleep(120)
        return _walk(path, files[path])

    started = time.monotonic()
    shared = parallel.walk_shared(list(files), hang, _lines(files))
    assert time.monotonic() - started < 60
    _assert_walked_alike(shared, files)


def test_no_second_process_when_it_cannot_pay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRIFT_AUDIT_NO_PARALLEL_SCAN", raising=False)
    assert parallel._not_parallel(parallel.MIN_FILES - 1) == "too few"
    monkeypatch.setattr(parallel, "_processors", lambda: 2)
    monkeypatch.setattr(parallel, "_idle", lambda n: 0.9)
    busy = "the processors are busy (0.9 of 2 idle)"
    assert parallel._not_parallel(parallel.MIN_FILES) == busy
    monkeypatch.setattr(parallel, "_idle", lambda n: 1.9)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)  # an idle thread, as the fetcher's are
    thread.start()
    try:
        assert parallel._not_parallel(parallel.MIN_FILES) is None
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(parallel, "_processors", lambda: 1)
    assert parallel._not_parallel(parallel.MIN_FILES) == "one processor"
    monkeypatch.setenv("DRIFT_AUDIT_NO_PARALLEL_SCAN", "1")
    assert parallel._not_parallel(parallel.MIN_FILES) == "DRIFT_AUDIT_NO_PARALLEL_SCAN is set"


@pytest.mark.usefixtures("forking")
def test_a_scan_on_two_processes_is_the_scan_on_one(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _fixture_files()
    packages = sorted({p.split("/", 1)[0] for p in files})
    two = scan_consumer(DictTree(files), packages, ["acme"])
    monkeypatch.setenv("DRIFT_AUDIT_NO_PARALLEL_SCAN", "1")
    assert scan_consumer(DictTree(files), packages, ["acme"]) == two
    assert two.sites


def test_idle_processors_are_measured() -> None:
    idle = parallel._idle(2)
    assert 0.0 <= idle <= 2.0 + 1e-9


def test_a_big_consumer_keeps_no_lines_and_scans_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LAZY_LINES files, a walked file's lines are dropped (its positions keep only the
    lines that are not ASCII) and read again when asked for: the same scan, the same
    columns after a non-ASCII character."""
    files = _fixture_files()
    packages = sorted({p.split("/", 1)[0] for p in files})
    kept = scan_consumer(DictTree(files), packages, ["acme"])
    monkeypatch.setattr(consumer, "LAZY_LINES", 1)
    tree = DictTree(files)
    lazy = scan_consumer(tree, packages, ["acme"])
    assert not isinstance(lazy.lines, dict) and isinstance(kept.lines, dict)
    reads = len(tree.reads)
    assert lazy == kept  # the lines compared too: read again, the same
    assert len(tree.reads) > reads
    at = [s.location for s in lazy.sites if s.location.path == "widget/tricky.py"]
    columns = [loc.column for loc in at if loc.line == 12]
    assert columns == [len('ÉTAT: "acme.State" = ') + 1]  # characters, not bytes


def _facts() -> list[FileFacts]:
    files = _fixture_files()
    walked = [_walk(path, text) for path, text in files.items()]
    return [f for f in walked if not isinstance(f, Unparsable)]


def _stateful() -> Callable[[list[FileFacts]], dict[str, tuple[str, ...]]]:
    """A maker whose results depend on what it made before (as values.py's memo may: it
    cuts a cycle where the lookups first meet it): each file's, the paths made before it."""
    before: list[str] = []

    def make(some: list[FileFacts]) -> dict[str, tuple[str, ...]]:
        out = {}
        for f in some:
            out[f.path] = tuple(before)
            before.append(f.path)
        return out

    return make


@pytest.mark.usefixtures("forking")
def test_results_are_the_same_on_two_processes_and_on_one(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _facts()
    me = os.getpid()
    made_here: list[str] = []
    stateful = _stateful()

    def make(some: list[FileFacts]) -> dict[str, tuple[str, ...]]:
        if os.getpid() == me:
            made_here.extend(f.path for f in some)
        return stateful(some)

    two = parallel.results_shared(files, make, _stateful)
    assert 0 < len(made_here) < len(files)  # the child made the others
    assert list(two) == [f.path for f in files]  # in the order given
    monkeypatch.setattr(parallel, "_idle", lambda n: 0.0)  # a busy machine: one process
    one = parallel.results_shared(files, _stateful(), _stateful)
    assert one == two
    assert two != _stateful()(files)  # one maker over every file would differ: state counts
    monkeypatch.setattr(parallel, "MIN_FILES", len(files) + 1)  # too few to split
    assert parallel.results_shared(files, _stateful(), _stateful) == _stateful()(files)


@pytest.mark.usefixtures("forking")
def test_results_a_child_fails_to_send_are_made_here() -> None:
    files = _facts()
    me = os.getpid()
    honest = parallel.results_shared(files, _stateful(), _stateful)

    def failing(how: str) -> Callable[[list[FileFacts]], dict[str, tuple[str, ...]]]:
        stateful = _stateful()

        def make(some: list[FileFacts]) -> dict[str, tuple[str, ...]]:
            if os.getpid() != me:
                if how == "raise":
                    raise MemoryError
                if how == "crash":
                    os._exit(9)
                return {f"{f.path}.x": () for f in some}  # other files than it was given
            return stateful(some)

        return make

    for how in ("raise", "crash", "wrong"):
        assert parallel.results_shared(files, failing(how), _stateful) == honest, how


@pytest.mark.usefixtures("forking")
def test_a_scan_makes_its_cross_file_results_on_two_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = _fixture_files()
    packages = sorted({p.split("/", 1)[0] for p in files})
    shared: list[int] = []
    results_shared = parallel.results_shared

    def counting(
        files: list[FileFacts], make: Callable[..., dict[str, object]], fresh: Callable[..., Any]
    ) -> object:
        found = results_shared(files, make, fresh)
        shared.append(len(found))
        return found

    monkeypatch.setattr(parallel, "results_shared", counting)
    two = scan_consumer(DictTree(files), packages, ["acme"])
    assert shared and shared[0] > 1
    monkeypatch.setenv("DRIFT_AUDIT_NO_PARALLEL_SCAN", "1")
    assert scan_consumer(DictTree(files), packages, ["acme"]) == two
