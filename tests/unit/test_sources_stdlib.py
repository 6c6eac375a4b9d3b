"""The standard library as typeshed's stubs (auditor/sources/stdlib.py): the branches this
Python takes, the modules VERSIONS gives it, and the provider's own names first."""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING

import pytest

from auditor.sources import stdlib
from auditor.sources.stdlib import StdlibStubs, WithStdlib, typeshed_root
from auditor.sources.trees import FolderTree

if TYPE_CHECKING:
    from pathlib import Path

NOW = sys.version_info[:2]


def _kept(source: str) -> list[str]:
    body = stdlib._taken(ast.parse(source).body)
    return [ast.unparse(node) for node in body]


@pytest.mark.parametrize(
    ("test", "taken"),
    [
        (f"sys.version_info >= {NOW}", True),
        (f"sys.version_info >= ({NOW[0]}, {NOW[1] + 1})", False),
        (f"sys.version_info < ({NOW[0]}, {NOW[1] + 1})", True),
        (f"sys.version_info[:2] == {NOW}", True),
        (f"sys.version_info[0] >= {NOW[0]}", True),
        (f"sys.platform == {sys.platform!r}", True),
        (f"sys.platform != {sys.platform!r}", False),
        (f"sys.platform.startswith({sys.platform[:3]!r})", True),
        (f"sys.version_info >= {NOW} and sys.platform == 'no-such'", False),
        (f"not sys.version_info >= {NOW}", False),
    ],
)
def test_a_branch_on_this_pythons_version_or_platform_is_decided(test: str, taken: bool) -> None:
    assert _kept(f"if {test}:\n    def new(): ...\nelse:\n    def old(): ...\n") == [
        "def new():\n    ..." if taken else "def old():\n    ..."
    ]


def test_a_branch_that_cannot_be_decided_keeps_both_and_classes_are_pruned_inside() -> None:
    later = f"({NOW[0]}, {NOW[1] + 1})"
    source = (
        "if FLAG:\n    a = 1\nelse:\n    b = 2\n"
        f"class C:\n    if sys.version_info >= {later}:\n        def m(self): ...\n"
    )
    kept = _kept(source)
    assert kept[0].startswith("if FLAG:") and "b = 2" in kept[0]
    assert kept[1] == "class C:\n    pass"


def test_versions_give_only_the_modules_of_this_python(tmp_path: Path) -> None:
    (tmp_path / "VERSIONS").write_text(
        f"gone: 3.0-{NOW[0]}.{NOW[1] - 1}\nnew: {NOW[0]}.{NOW[1] + 1}-\nkept: 3.0-\n"
        "pkg.sub: 3.0-  # a comment\n"
    )
    for name in ("gone.pyi", "new.pyi", "kept.pyi", "pkg/__init__.pyi", "pkg/sub.pyi"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: int\n")
    stubs = StdlibStubs(tmp_path)
    assert stubs.read_text("kept.pyi") == "x: int\n"
    assert stubs.read_text("gone.pyi") is None and stubs.read_text("new.pyi") is None
    assert stubs.read_text("pkg/sub.pyi") == "x: int\n"
    assert stubs.read_text("kept.py") is None  # stubs only: the stdlib reads as declared
    assert stubs.read_text("../kept.pyi") is None
    assert stubs.digest("kept.pyi") == stubs.digest("kept.pyi") is not None


@pytest.mark.skipif(typeshed_root() is None, reason="typeshed_client is not installed")
def test_the_providers_own_names_come_first(tmp_path: Path) -> None:
    (tmp_path / "enum").mkdir()
    (tmp_path / "enum" / "__init__.py").write_text("OWN = 1\n")
    root = typeshed_root()
    assert root is not None
    tree = WithStdlib(FolderTree(tmp_path, packages=["enum"]), StdlibStubs(root), ["enum"])
    assert tree.read_text("enum/__init__.py") == "OWN = 1\n"
    assert tree.read_text("enum.pyi") is None  # the provider's package, not the stdlib's
    assert tree.read_text("unittest/case.pyi") is not None
    assert "class TestCase" in (tree.read_text("unittest/case.pyi") or "")
    assert not tree.has_extension("unittest/case")
