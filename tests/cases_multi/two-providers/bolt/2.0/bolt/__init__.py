from __future__ import annotations


def connect(host: str, *, timeout: float) -> str:
    return f"{host}/{timeout}"
