"""Text codecs for records."""

from __future__ import annotations


def parse(text: str) -> dict[str, str]:
    key, _, value = text.partition("=")
    return {key: value}


def render(record: dict[str, str]) -> str:
    return ";".join(f"{k}={v}" for k, v in record.items())
