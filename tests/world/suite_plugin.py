"""The test-suite judge's pytest plugin. It runs INSIDE a scratch venv, in a dependent's test
run (suites.py copies it into the venv's site-packages as `_world_suite_plugin.py` and runs
`python -s -m pytest -p _world_suite_plugin ...`); the standard library and pytest only,
pytest 6 to 9.

It appends one JSON line per event to the file `$WORLD_SUITE_RECORD`, flushed at once, so a
run killed at its time limit keeps what it saw:

    {"event": "start", "pytest": V, "site": [...], "stdlib": [...]}   on import
    {"event": "configure", "rootdir": D}
    {"event": "report", "node": N, "when": "setup|call|teardown", "outcome": O, "xfail": B}
    {"event": "collect", "node": N}                      a collector that failed
    {"event": "error", "node": N, "when": W, "exc": E, "mro": [...], "message": M,
     "frames": [[file, line, function], ...]}            what a failing test or collector raised
    {"event": "end", "exitstatus": S}

A node is pytest's node id with its file part made independent of where the run's folders
are: relative to the rootdir (the run's copy of the sdist), or `site:` and the path under
site-packages for the tests a package installs. The exception is the one the test raised,
unwrapped from pytest's collection wrappers (an ImportError while importing a test module, a
conftest that fails). Each test phase is bounded by `$WORLD_SUITE_TEST_SECONDS`
(signal.alarm): a test that hangs fails with TestTimeout and the run goes on.
"""

from __future__ import annotations

import json
import os
import posixpath
import signal
import sysconfig
import traceback
from pathlib import Path
from typing import Any

import pytest

FRAMES = 400  # frames kept per failure: the first 100 and the last 300 beyond it
_STATE: dict[str, Any] = {"rootdir": str(Path.cwd()), "out": None}
_KEYS: dict[str, str] = {}  # node id -> key


class TestTimeout(Exception):
    """The test phase ran out of its time (signal.alarm)."""


def _sites() -> list[str]:
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]}, key=len, reverse=True)


def _write(record: dict[str, Any]) -> None:
    out = _STATE["out"]
    if out is None:
        target = os.environ.get("WORLD_SUITE_RECORD")
        if not target:
            return
        out = _STATE["out"] = open(target, "a", encoding="utf-8")  # noqa: SIM115
    out.write(json.dumps(record, sort_keys=True) + "\n")
    out.flush()


def _where(path: str) -> str:
    for site in _sites():
        if path.startswith(site.rstrip("/") + "/"):
            return "site:" + path[len(site.rstrip("/")) + 1 :]
    root = _STATE["rootdir"].rstrip("/")
    return path[len(root) + 1 :] if path.startswith(root + "/") else path


def key(nodeid: str) -> str:
    """The node's key: its id with the file part relative to the rootdir or site-packages,
    from the node's own path when the node was seen (node_key), else from the id."""
    known = _KEYS.get(nodeid)
    if known is not None:
        return known
    part, sep, rest = nodeid.partition("::")
    if not part or part == ".":
        return sep + rest if rest else ""
    return _where(posixpath.normpath(posixpath.join(_STATE["rootdir"], part))) + sep + rest


def node_key(node: Any) -> str:
    """A node's key from its path (a package's folder, not its `__init__.py`), kept by id."""
    path = getattr(node, "path", None) or getattr(node, "fspath", None)
    nodeid = node.nodeid
    if path is None or not nodeid:
        return key(nodeid)
    text = posixpath.normpath(str(path))
    if type(node).__name__ == "Package" and text.endswith("/__init__.py"):
        text = posixpath.dirname(text)
    rest = nodeid.partition("::")[2]
    if type(node).__name__ in ("Package", "Dir", "Module", "DoctestModule") or "::" not in nodeid:
        rest = ""
    _KEYS[nodeid] = _where(text) + ("::" + rest if rest else "")
    return _KEYS[nodeid]


def pytest_collectstart(collector: Any) -> None:
    node_key(collector)


def pytest_itemcollected(item: Any) -> None:
    node_key(item)


def _unwrap(exc: BaseException) -> BaseException:
    for _ in range(5):
        name = type(exc).__name__
        inner: Any = None
        if name == "CollectError":
            inner = exc.__cause__
        elif name == "ConftestImportFailure":
            inner = getattr(exc, "cause", None) or exc.__cause__
            info = getattr(exc, "excinfo", None)
            if inner is None and isinstance(info, tuple) and len(info) > 1:
                inner = info[1]
        if not isinstance(inner, BaseException):
            return exc
        exc = inner
    return exc


def _text(exc: BaseException) -> str:
    try:
        text = " ".join(str(exc).split())
    except Exception:  # a __str__ that fails is its own message
        text = f"<{type(exc).__name__} whose str() fails>"
    return text if len(text) <= 500 else text[:497] + "..."


def failure(node: str, when: str, exc: BaseException) -> dict[str, Any]:
    exc = _unwrap(exc)
    frames = [[f.filename, f.lineno or 0, f.name] for f in traceback.extract_tb(exc.__traceback__)]
    if len(frames) > FRAMES:
        frames = frames[:100] + frames[-(FRAMES - 100) :]
    return {
        "event": "error",
        "node": node,
        "when": when,
        "exc": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__ if c is not object],
        "message": _text(exc),
        "frames": frames,
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Any:
    outcome = yield
    info = outcome.excinfo
    if info is not None and info[1] is not None:
        _write(failure("", "conftest", info[1]))


def _start() -> None:
    """The first record, written on import: a conftest that fails stops pytest before
    pytest_configure, and the judge still needs to know where site-packages is."""
    paths = sysconfig.get_paths()
    stdlib = sorted({paths["stdlib"], paths["platstdlib"]})
    _write({"event": "start", "pytest": pytest.__version__, "site": _sites(),
            "stdlib": stdlib})  # fmt: skip


_start()


def pytest_configure(config: Any) -> None:
    root = getattr(config, "rootpath", None) or config.rootdir
    _STATE["rootdir"] = posixpath.normpath(str(root))
    _write({"event": "configure", "rootdir": _STATE["rootdir"]})
    if int(os.environ.get("WORLD_SUITE_TEST_SECONDS") or 0) > 0:
        signal.signal(signal.SIGALRM, _on_alarm)


def _on_alarm(signum: int, frame: Any) -> None:
    raise TestTimeout(f"the test phase ran longer than {os.environ['WORLD_SUITE_TEST_SECONDS']} s")


def _arm() -> None:
    seconds = int(os.environ.get("WORLD_SUITE_TEST_SECONDS") or 0)
    if seconds > 0:
        signal.alarm(seconds)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: Any) -> Any:
    _arm()
    try:
        yield
    finally:
        signal.alarm(0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    _arm()
    try:
        yield
    finally:
        signal.alarm(0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: Any, nextitem: Any) -> Any:
    _arm()
    try:
        yield
    finally:
        signal.alarm(0)


def pytest_runtest_logreport(report: Any) -> None:
    _write({"event": "report", "node": key(report.nodeid), "when": report.when,
            "outcome": report.outcome, "xfail": hasattr(report, "wasxfail")})  # fmt: skip


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _write({"event": "collect", "node": key(report.nodeid)})


def pytest_exception_interact(node: Any, call: Any, report: Any) -> None:
    info = getattr(call, "excinfo", None)
    if info is not None:
        _write(failure(node_key(node), getattr(call, "when", ""), info.value))


def pytest_unconfigure(config: Any) -> None:
    _write({"event": "end", "exitstatus": int(getattr(config, "_world_exit", -1))})
    if _STATE["out"] is not None:
        _STATE["out"].close()
        _STATE["out"] = None


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    session.config._world_exit = int(exitstatus)
