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
# Only when it can pay and is safe: at least MIN_FILES files, two processors this process
# may run on, a system with fork(), and no other thread in this process (a thread holding a
# lock at the fork would leave the child that lock held forever). Anything that goes wrong
# in the child (an exception, a crash, facts that do not read back) only means this process
# walks the child's files itself. What comes through the pipe is marshal data written by a
# copy of this very process, never by anyone else: nothing from the cache or the network.
# DRIFT_AUDIT_NO_PARALLEL_SCAN=1 turns it off.
from __future__ import annotations

import logging
import marshal
import os
import threading
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
    pid = os.fork()
    if pid == 0:  # the child: walk its files, send their facts, leave without cleaning up
        os.close(read_end)
        _child(theirs, walk, write_end)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        try:
            found = {path: walk(path) for path in ours}
            data = pipe.read()
        finally:
            pipe.close()  # first: a child still writing then fails, and ends
            _, status = os.waitpid(pid, 0)
    sent = _read_back(data, lines) if status == 0 else {}
    if len(sent) != len(theirs):
        logger.debug("scan: the second process gave no facts (status %d); walked here", status)
    for path in theirs:
        found[path] = sent[path] if path in sent else walk(path)
    logger.debug("scan: %d files walked by two processes", len(paths))
    return found


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
    if _processors() < 2:
        return "one processor"
    if threading.active_count() > 1:
        return "other threads are running"
    return None


def _processors() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _child(paths: list[str], walk: Callable[[str], Outcome], out: int) -> None:
    status = 1
    try:
        data = marshal.dumps([[path, encode_facts(walk(path))] for path in paths])
        with os.fdopen(out, "wb") as pipe:
            pipe.write(data)
        status = 0
    except BaseException:  # any failure: the parent walks them itself
        pass
    finally:
        os._exit(status)


def _read_back(data: bytes, lines: Mapping[str, tuple[str, ...]]) -> dict[str, Outcome]:
    try:
        return {path: decode_facts(facts, path, lines[path]) for path, facts in marshal.loads(data)}
    except (Mismatch, KeyError, IndexError, TypeError, ValueError, EOFError):
        return {}
