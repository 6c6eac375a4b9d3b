# Maintainers: a big consumer's files walked on two processors.
#
# Owns: `walk_shared()`: part of a long list of files parsed and walked in a forked child
# while this process walks the rest; the child sends its files' facts back in the plain form
# keptfacts.py keeps them in, and this process reads them back into FileFacts. A fork, not a
# new interpreter: the child starts with everything already imported and every file's text
# in memory, and nothing has to be sent to it.
# Takes: the paths to walk, the function that walks one (it may keep the facts it made), and
# every file's lines. Gives: path -> FileFacts or Unparsable, for every path.
#
# Only when it can pay: at least MIN_FILES files, two processors this process may run on,
# not busy already (IDLE_NEEDED of them idle over a short look at /proc/stat: in a batch of
# audits side by side a second process per audit only adds its cost), and fork().
# The child only computes (and writes its files' kept facts, if they are kept): it logs
# nothing and touches no socket and no lock another thread of this process may hold (the
# fetcher's idle workers and its watchdog, a terminal's progress display: the threads a
# run has then), so a fork is safe while they wait. And it is given a deadline: a child
# that has not sent its facts by then is killed. Anything that goes wrong in the child (an
# exception, a crash, a hang, facts that do not read back) only means this process walks
# the child's files itself. What comes through the pipe is marshal data written by a copy
# of this very process, never by anyone else: nothing from the cache or the network.
# DRIFT_AUDIT_NO_PARALLEL_SCAN=1 turns it off.
from __future__ import annotations

import contextlib
import logging
import marshal
import os
import select
import signal
import time
import warnings
from typing import TYPE_CHECKING

from auditor.scan.keptfacts import decode_facts, encode_facts
from auditor.scan.store import Mismatch

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from auditor.model import Unparsable
    from auditor.scan.facts import FileFacts

    Outcome = FileFacts | Unparsable

logger = logging.getLogger("drift_audit")
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
    ours, theirs = _shares(paths, lines)
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
        pid = os.fork()
    if pid == 0:  # the child: walk its files, send their facts, leave without cleaning up
        os.close(read_end)
        _child(theirs, walk, write_end)
    os.close(write_end)
    started = time.monotonic()
    data: bytes | None = None
    try:
        found = {path: walk(path) for path in ours}
        data = _receive(read_end, time.monotonic() + _patience(time.monotonic() - started))
    finally:
        os.close(read_end)  # a child still writing then fails, and ends
        if data is None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    sent = _read_back(data, lines) if data is not None and status == 0 else {}
    del data
    if len(sent) != len(theirs):
        logger.debug("scan: the second process sent no facts (status %d); walked here", status)
    for path in theirs:
        found[path] = sent[path] if path in sent else walk(path)
    logger.debug("scan: %d files walked by two processes", len(paths))
    return found


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


def _shares(
    paths: Sequence[str], lines: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], list[str]]:
    """The paths split by their lines' length, the child's share CHILD_SHARE of it (it also
    writes its facts out, and this process reads them back after its own walk)."""
    ours: list[str] = []
    theirs: list[str] = []
    mine = given = 0
    for path in paths:
        size = sum(map(len, lines.get(path, ()))) + 1
        if given * (1 - CHILD_SHARE) <= mine * CHILD_SHARE:
            theirs.append(path)
            given += size
        else:
            ours.append(path)
            mine += size
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


def _child(paths: list[str], walk: Callable[[str], Outcome], out: int) -> None:
    status = 1
    try:
        logging.disable(logging.CRITICAL)  # a handler's lock may be another thread's
        frames = []  # kept here until all are made: the parent reads once its walk is done
        for path in paths:
            frame = marshal.dumps([path, encode_facts(walk(path))])
            frames += [len(frame).to_bytes(4, "little"), frame]
        with os.fdopen(out, "wb") as pipe:
            pipe.writelines(frames)
        status = 0
    except BaseException:  # any failure: the parent walks them itself
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
