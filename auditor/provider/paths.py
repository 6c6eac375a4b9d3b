"""Module files for dotted paths: pure string work, no griffe (the warm path imports this)."""

from __future__ import annotations


def module_files(dotted: str) -> list[str]:
    """Every file a lookup of `dotted` may read: each prefix as module or package."""
    parts = [p.removesuffix("()") for p in dotted.split(".")]
    files = []
    for size in range(1, len(parts) + 1):
        base = "/".join(parts[:size])
        files += [f"{base}.pyi", f"{base}.py", f"{base}/__init__.pyi", f"{base}/__init__.py"]
    return files
