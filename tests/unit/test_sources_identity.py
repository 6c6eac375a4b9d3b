"""What names a release's sources for the ecosystem store (auditor/sources/identity.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from auditor.sources import Release
from auditor.sources.identity import folder_digest, release_identity
from auditor.sources.trees import FolderTree

if TYPE_CHECKING:
    from collections.abc import Callable


def _checkout(root: Path) -> Path:
    """A project with src/acme, data beside the code, a cache and a hidden folder."""
    package = root / "src" / "acme"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "acme"\n', encoding="utf-8")
    (package / "__init__.py").write_text("def run(a, b=1):\n    return a\n", encoding="utf-8")
    (package / "data.csv").write_text("a,b\n", encoding="utf-8")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n", encoding="utf-8")
    return package


CHANGES: dict[str, Callable[[Path], None]] = {
    "a module's text": lambda p: (p / "__init__.py").write_text("def run(a):\n    return a\n"),
    "a module added": lambda p: (p / "extra.py").write_text("X = 1\n"),
    "a stub added": lambda p: (p / "__init__.pyi").write_text("def run(a: int) -> int: ...\n"),
    "a namespace folder added": lambda p: (p / "plugins").mkdir(),
    "an extension module added": lambda p: (
        p / "_native.cpython-311-x86_64-linux-gnu.so"
    ).write_bytes(b"\x7fELF"),
    "py.typed added": lambda p: (p / "py.typed").write_text(""),
    "the project's pyproject.toml": lambda p: (p.parents[1] / "pyproject.toml").write_text(
        '[project]\nname = "acme"\nversion = "2"\n'
    ),
    "a module beside the package": lambda p: (p.parent / "acme.py").write_text("X = 1\n"),
}
SAME: dict[str, Callable[[Path], None]] = {
    "a data file": lambda p: (p / "data.csv").write_text("a,b,c\n"),
    "the bytecode cache": lambda p: (p / "__pycache__" / "x.pyc").write_bytes(b"\1"),
    "a hidden folder": lambda p: (p.parents[1] / ".git" / "HEAD").write_text("other\n"),
    "a module's mtime": lambda p: os.utime(p / "__init__.py", (1, 1)),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_what_an_audit_can_read_changes_the_digest(tmp_path: Path, change: str) -> None:
    package = _checkout(tmp_path / "checkout")
    before = folder_digest(package)
    CHANGES[change](package)
    assert before is not None and folder_digest(package) not in (None, before)


@pytest.mark.parametrize("change", list(SAME))
def test_what_no_audit_reads_leaves_the_digest(tmp_path: Path, change: str) -> None:
    package = _checkout(tmp_path / "checkout")
    before = folder_digest(package)
    SAME[change](package)
    assert before is not None and folder_digest(package) == before


def test_the_digest_is_the_content_not_the_place(tmp_path: Path) -> None:
    """A store restored on another runner (another inode, mtime, folder) is still reused."""
    package = _checkout(tmp_path / "one")
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    assert folder_digest(package) == folder_digest(tmp_path / "two" / "src" / "acme")


def test_a_folder_holding_a_link_or_a_fifo_is_named_safely(tmp_path: Path) -> None:
    """A link could lead anywhere, unseen: no name (never reused). A FIFO named like a
    module is not read (no hang): it is named by its kind."""
    package = _checkout(tmp_path / "checkout")
    os.mkfifo(package / "pipe.py")
    assert folder_digest(package) is not None
    (package / "linked.py").symlink_to(package / "__init__.py")
    assert folder_digest(package) is None
    assert folder_digest(tmp_path / "missing") is None


def _release(origin: str, **extra: str) -> Release:
    return Release("acme", "0.2", FolderTree(Path("/")), origin, ("acme",), extra=dict(extra))


def test_a_release_is_named_by_index_and_hash_and_an_installed_one_not_at_all() -> None:
    index = {"index": "http://127.0.0.1/simple", "filename": "acme-0.2-py3-none-any.whl"}
    named = release_identity(_release("index", **index, sha256="ab" * 32))
    assert named is not None and "http://127.0.0.1/simple" in named and "ab" * 32 in named
    elsewhere = {**index, "index": "http://127.0.0.2/simple"}
    assert release_identity(_release("index", **elsewhere, sha256="ab" * 32)) not in (None, named)
    assert release_identity(_release("index", **index)) is None  # no hash, no members: no name
    archive = release_identity(_release("file:///w.whl", sha256="cd" * 32))
    assert archive == f"archive {'cd' * 32} acme 0.2"
    assert release_identity(_release("installed /site-packages", root="/site-packages")) is None
