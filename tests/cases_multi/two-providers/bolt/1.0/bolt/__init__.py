from __future__ import annotations


def connect(host: str, port: int = 80) -> str:
    return f"{host}:{port}"


def close(conn: str) -> None:
    return None
