"""The one doors, by the source: only the network client's modules open sockets, and only
the file-system door's modules make fd-level calls.

docs/security.md names one door per danger. Modules move and split; this keeps each door one
door whatever the layout: a module that imports a socket, TLS or HTTP client module is
sources/fetch.py or one of the parts it owns (connect.py, watchdog.py); a module that calls
`os.open` or passes a `dir_fd` is files.py or one of its parts (filewalk.py, confined.py),
but for the two listed in FD_EXEMPT, which open no path a run reads or writes. (The import
graph says the same of the parts themselves: the protected contracts in .importlinter.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import auditor

PACKAGE = Path(auditor.__file__).parent
NETWORK_MODULES = frozenset(
    {"socket", "ssl", "http", "http.client", "urllib3", "requests", "httpx", "aiohttp", "asyncio"}
)
URLOPENERS = frozenset({"urlopen", "build_opener", "OpenerDirector", "Request"})
NETWORK_DOOR = frozenset({"sources/fetch.py", "sources/connect.py", "sources/watchdog.py"})
FILE_DOOR = frozenset({"files.py", "filewalk.py", "confined.py"})
FD_EXEMPT = {
    "engine.py": "reopens the working folder, to come back to it",
    "cli/output.py": "points standard output at os.devnull after a failed write",
}
FD_KEYWORDS = frozenset({"dir_fd", "src_dir_fd", "dst_dir_fd"})


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _reaches_network(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name in NETWORK_MODULES for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module in NETWORK_MODULES:
            return True
        opener = isinstance(node, ast.ImportFrom) and node.module == "urllib.request"
        if opener and any(a.name in URLOPENERS for a in node.names):
            return True
    return False


def test_only_the_network_client_imports_sockets_tls_or_http() -> None:
    found = {name for name, tree in _modules() if _reaches_network(tree)}
    assert found <= NETWORK_DOOR, f"outside the network door: {sorted(found - NETWORK_DOOR)}"
    assert "sources/fetch.py" in found and "sources/connect.py" in found  # the test sees them


def _fd_level(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "open"
            and (isinstance(func.value, ast.Name) and func.value.id == "os")
        ):
            return True
        if any(k.arg in FD_KEYWORDS for k in node.keywords):
            return True
    return False


def test_only_the_file_door_makes_fd_level_calls() -> None:
    found = {name for name, tree in _modules() if _fd_level(tree)}
    outside = found - FILE_DOOR - set(FD_EXEMPT)
    assert not outside, f"fd-level file calls outside files.py and its parts: {sorted(outside)}"
    assert {"files.py", "filewalk.py", "confined.py"} <= found  # the test sees them
    assert set(FD_EXEMPT) <= found, "an exemption no longer needed: drop it from FD_EXEMPT"
