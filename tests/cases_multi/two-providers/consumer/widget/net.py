from __future__ import annotations

import bolt


def dial(host: str) -> str:
    return bolt.connect(host, 81)  # expect: missing-argument, too-many-positional


def hang_up(conn: str) -> None:
    bolt.close(conn)  # expect: removed-symbol


def dial_new(host: str) -> str:
    return bolt.connect(host, timeout=1.0)  # near-miss
