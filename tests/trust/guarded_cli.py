"""Run drift-audit's CLI under audit hooks that record anything that would run audited code.

Usage: python guarded_cli.py ARGS... with DRIFT_AUDIT_GUARD_LOG (a JSON file written at exit)
and DRIFT_AUDIT_GUARD_ROOTS (the audited folders and archives, os.pathsep-separated).

Recorded as violations: starting any process (subprocess, os.system, exec*, spawn*, fork),
executing a code object whose file is not the standard library, site-packages or auditor/,
opening an absolute path inside an audited tree for writing, and, at exit, any module in
sys.modules loaded from an audited tree and any file of an audited tree that was added,
removed or changed (the `open` event does not carry dir_fd, so writes by relative name, as
the cache makes them, are caught by that comparison instead). The log also counts the events
seen, so a test can tell the hooks were live.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

SPAWN = frozenset(
    {
        "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
        "os.forkpty", "pty.spawn", "os.startfile",
    }
)  # fmt: skip
ROOTS = [os.path.realpath(p) for p in os.environ["DRIFT_AUDIT_GUARD_ROOTS"].split(os.pathsep) if p]
LOG = os.environ["DRIFT_AUDIT_GUARD_LOG"]
REPO = str(Path(__file__).resolve().parents[2])
TRUSTED = tuple(
    os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, REPO}
)
violations: list[str] = []
seen = {"events": 0, "exec": 0, "open": 0}


def _snapshot() -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under the audited roots."""
    found = {}
    for root in ROOTS:
        for parent, _, names in os.walk(root):
            for name in names:
                path = Path(parent) / name
                info = path.lstat()
                found[str(path)] = (info.st_size, info.st_mtime_ns)
    return found


BEFORE = _snapshot()


def _inside(path: object) -> bool:
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    real = os.path.realpath(os.fsdecode(path))
    return any(real == root or real.startswith(root + os.sep) for root in ROOTS)


def _trusted_code(filename: str) -> bool:
    if filename.startswith("<"):
        return True  # exec of a string: dataclasses, attrs and networkx build functions so
    return os.path.realpath(filename).startswith(TRUSTED)


def _hook(event: str, args: tuple[object, ...]) -> None:
    seen["events"] += 1
    if event in SPAWN:
        violations.append(f"{event}: {args!r}"[:500])
    elif event == "exec":
        seen["exec"] += 1
        filename = getattr(args[0], "co_filename", "")
        if not _trusted_code(str(filename)):
            violations.append(f"exec of code from {filename}")
    elif event == "open":
        seen["open"] += 1
        path, mode = args[0], args[1]
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        writing = writing or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        absolute = isinstance(path, (str, bytes)) and Path(os.fsdecode(path)).is_absolute()
        if writing and absolute and _inside(path):
            violations.append(f"write into an audited tree: {path}")


def _finish() -> None:
    after = _snapshot()
    for path in sorted(set(BEFORE) | set(after)):
        if BEFORE.get(path) != after.get(path):
            violations.append(f"an audited tree changed: {path}")
    for name, module in list(sys.modules.items()):
        if _inside(getattr(module, "__file__", None)):
            violations.append(f"module {name} was imported from {module.__file__}")
    with open(LOG, "w", encoding="utf-8") as fh:
        json.dump({"violations": violations, "seen": seen}, fh)


atexit.register(_finish)
sys.addaudithook(_hook)

if __name__ == "__main__":
    sys.path.insert(0, REPO)
    from auditor.cli import main

    sys.argv = ["drift-audit", *sys.argv[1:]]
    main()
