"""The one doors, by the source: only the network client's modules open sockets.

docs/security.md names one door per danger. Modules move and split; this keeps the network
door one door whatever the layout: a module that imports a socket, TLS or HTTP client
module is sources/fetch.py or one of the parts it owns (connect.py, watchdog.py).
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
