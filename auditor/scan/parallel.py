# Maintainers: a big consumer's scan made on two processors.
#
# Owns: `walk_shared()`: part of a long list of files parsed and walked in a forked child
# while this process walks the rest; the child sends its files' facts back in the plain form
# keptfacts.py keeps them in, and this process reads them back into FileFacts. And
# `results_shared()`: the cross-file stage's per-file results (sites, edges, gates) made the
# same way, the child's sent back pickled, once every file's facts and the cross-file tables
# are made (they are inherited, not sent). A fork, not a new interpreter: the child starts
# with everything already imported and in memory, and nothing has to be sent to it.
# Takes: the paths to walk and the function that walks one (it may keep the facts it made),
# with every file's lines; or the walked files and the function that makes some files'
# results. Gives: path -> FileFacts or Unparsable, or path -> results, for every one.
#
# Only when it can pay: at least MIN_FILES files, two processors this process may run on,
# not busy already (IDLE_NEEDED of them idle over a short look at /proc/stat: in a batch of
# audits side by side a second process per audit only adds its cost), and fork().
# The child only computes (and writes its files' kept facts, if they are kept): it logs
# nothing and touches no socket and no lock another thread of this process may hold (the
# fetcher's idle workers and its watchdog, a terminal's progress display: the threads a
# run has then), so a fork is safe while they wait. And it is given a deadline: a child
# that has not sent its part by then is killed. Anything that goes wrong in the child (an
# exception, a crash, a hang, data that does not read back as what was asked) only means
# this process does the child's part itself. What comes through the pipe (marshal data,
# a pickle) is written by a copy of this very process into a pipe only it holds, never by
# anyone else: nothing from the cache or the network is ever unpickled.
# DRIFT_AUDIT_NO_PARALLEL_SCAN=1 turns it off.
from __future__ import annotations

import contextlib
import logging
import marshal
import os
import pickle
import select
import signal
import time
import warnings
from typing import TYPE_CHECKING, Any, TypeVar

from auditor.scan.keptfacts import decode_facts, encode_facts
from auditor.scan.store import Mismatch

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from auditor.model import Unparsable
    from auditor.scan.facts import FileFacts

    Outcome = FileFacts | Unparsable

logger = logging.getLogger("drift_audit")
T = TypeVar("T")
Made = TypeVar("Made")
MIN_FILES = 300  # below this the child's start and the facts sent back cost what it saves
# The child's share of the text: this process walks a little more, since it reads the
# child's facts back once its own are walked (measured on transformers: 0.45 is balanced).
CHILD_SHARE = 0.45
PATIENCE = 30.0  # seconds a child may take beyond twice this process's own walk
IDLE_WINDOW = 0.05  # seconds: how long a look at the processors' idle time
IDLE_NEEDED = 1.5  # idle processors: one for this process, most of one for the child


def walk_shared(
    paths: Sequence[str],
    walk: Callable[[str], Outcome],
    lines: Mapping[str, tuple[str, ...]],
) -> dict[str, Outcome]:
    """Each path walked by `walk`, some in a forked child when that can pay."""
    why = _not_parallel(len(paths))
    if why is not None:
        if len(paths) >= MIN_FILES:
            logger.debug("scan: %d files walked by one process: %s", len(paths), why)
        return {path: walk(path) for path in paths}
    ours, theirs = _shares(paths, lambda path: sum(map(len, lines.get(path, ()))) + 1)

    def child() -> list[bytes]:
        frames = []  # kept here until all are made: the parent reads once its walk is done
        for path in theirs:
            frame = marshal.dumps([path, encode_facts(walk(path))])
            frames += [len(frame).to_bytes(4, "little"), frame]
        return frames

    found, data = _forked(child, lambda: {path: walk(path) for path in ours})
    sent = _read_back(data, lines) if data is not None else {}
    del data
    if len(sent) != len(theirs):
        logger.debug("scan: the second process sent no facts; walked here")
    for path in theirs:
        found[path] = sent[path] if path in sent else walk(path)
    logger.debug("scan: %d files walked by two processes", len(paths))
    return found


def results_shared(
    files: Sequence[FileFacts],
    make: Callable[[list[FileFacts]], dict[str, Made]],
    fresh: Callable[[], Callable[[list[FileFacts]], dict[str, Made]]],
) -> dict[str, Made]:
    """The results of `files`, in their order: `make(files)` below MIN_FILES; else split in
    two shares, the first made by `make`, the second by a maker as `make` was before it
    ran: a forked child's copy of it when that can pay, else `fresh()`'s.

    Either way each share's results are those of the same maker in the same state, so they
    do not depend on the machine: values.py's memo cuts a cycle (`a = b`, `b = a`) where the
    lookups first meet it, so a file's results may depend on the files made before it with
    the same memo (crossfile.CrossFile.results: `make` a cross-file stage just built, before
    any lookup; `fresh` builds another)."""
    if len(files) < MIN_FILES:
        return make(list(files))
    by_path = {f.path: f for f in files}
    ours, theirs = _shares(list(by_path), lambda path: len(by_path[path].uses) + 1)
    mine, others = [by_path[p] for p in ours], [by_path[p] for p in theirs]
    why = _not_parallel(len(files))
    if why is not None:
        found = make(mine)
        found.update(fresh()(others))
        return {f.path: found[f.path] for f in files}

    def child() -> list[bytes]:  # a copy of `make` as it is now: before `mine` are made
        return [pickle.dumps(make(others), pickle.HIGHEST_PROTOCOL)]

    found, data = _forked(child, lambda: make(mine))
    sent = _unpickled(data, theirs)
    del data
    if sent is None:
        logger.debug("scan: the second process sent no results; made here")
        sent = fresh()(others)
    found.update(sent)
    return {f.path: found[f.path] for f in files}


def _unpickled(data: bytes | None, paths: list[str]) -> dict[str, Any] | None:
    """The child's results, if they are what was asked of it: one value for each path."""
    if data is None:
        return None
    try:
        sent = pickle.loads(data)  # written by a fork of this process, through our own pipe
    except Exception:  # cut short or garbled (any error unpickling): made here then
        return None
    if not isinstance(sent, dict) or list(sent) != paths:
        return None
    return sent


def _forked(child: Callable[[], list[bytes]], ours: Callable[[], T]) -> tuple[T, bytes | None]:
    """`ours()` here while a forked child sends what `child()` makes; that, or None when the
    child failed, crashed or missed its deadline (it is killed then)."""
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
        pid = os.fork()
    if pid == 0:  # the child: make its part, send it, leave without cleaning up
        os.close(read_end)
        _child(child, write_end)
    os.close(write_end)
    started = time.monotonic()
    data: bytes | None = None
    try:
        found = ours()
        data = _receive(read_end, time.monotonic() + _patience(time.monotonic() - started))
    finally:
        os.close(read_end)  # a child still writing then fails, and ends
        if data is None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    return found, data if status == 0 else None


def _patience(ours: float) -> float:
    """How long to wait for the child once this process walked its share in `ours` s."""
    return 2 * ours + PATIENCE


def _receive(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None at the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _shares(paths: Sequence[str], size: Callable[[str], int]) -> tuple[list[str], list[str]]:
    """The paths split by their size, the child's share CHILD_SHARE of it (it also sends
    what it made, and this process reads it back after its own part)."""
    ours: list[str] = []
    theirs: list[str] = []
    mine = given = 0
    for path in paths:
        weight = size(path)
        if given * (1 - CHILD_SHARE) <= mine * CHILD_SHARE:
            theirs.append(path)
            given += weight
        else:
            ours.append(path)
            mine += weight
    return ours, theirs


def _not_parallel(count: int) -> str | None:
    if count < MIN_FILES:
        return "too few"
    if os.environ.get("DRIFT_AUDIT_NO_PARALLEL_SCAN"):
        return "DRIFT_AUDIT_NO_PARALLEL_SCAN is set"
    if not hasattr(os, "fork"):
        return "no fork() on this system"
    processors = _processors()
    if processors < 2:
        return "one processor"
    idle = _idle(processors)
    if idle < IDLE_NEEDED:  # other audits (a batch side by side) use the processors already
        return f"the processors are busy ({idle:.1f} of {processors} idle)"
    return None


def _idle(processors: int) -> float:
    """How many processors sit idle now, this process aside: measured over IDLE_WINDOW
    from /proc/stat (this process sleeps meanwhile); elsewhere from the load average."""
    try:
        before = _cpu_times()
        time.sleep(IDLE_WINDOW)
        after = _cpu_times()
    except (OSError, ValueError, IndexError):
        try:
            return max(0.0, processors - os.getloadavg()[0])
        except (AttributeError, OSError):
            return float(processors)
    total, idle = after[0] - before[0], after[1] - before[1]
    return processors * idle / total if total > 0 else float(processors)


def _cpu_times() -> tuple[int, int]:
    """All processors' time and their idle time (idle and iowait), in ticks."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(f) for f in stat.readline().split()[1:]]
    return sum(fields[:8]), fields[3] + fields[4]


def _processors() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _child(make: Callable[[], list[bytes]], out: int) -> None:
    status = 1
    try:
        logging.disable(logging.CRITICAL)  # a handler's lock may be another thread's
        frames = make()
        with os.fdopen(out, "wb") as pipe:
            pipe.writelines(frames)
        status = 0
    except BaseException:  # any failure: the parent does its part itself
        pass
    finally:
        os._exit(status)


def _read_back(data: bytes, lines: Mapping[str, tuple[str, ...]]) -> dict[str, Outcome]:
    """The child's frames (a length, then one file's path and facts), one at a time: what
    one frame loads is freed before the next is read."""
    found: dict[str, Outcome] = {}
    view = memoryview(data)
    at = 0
    try:
        while at < len(view):
            size = int.from_bytes(view[at : at + 4], "little")
            path, facts = marshal.loads(view[at + 4 : at + 4 + size])
            found[path] = decode_facts(facts, path, lines[path])
            at += 4 + size
    except (Mismatch, KeyError, IndexError, TypeError, ValueError, EOFError):
        return {}
    return found
