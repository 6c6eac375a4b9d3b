"""sources.folder_entries: what a provider folder holds, as moves.py lists it, and how
release reuse (probes.py) and the memo (memo.py) take it into account."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.probes import Answers, ProbedTree
from auditor.sources import folder_entries
from auditor.sources.trees import FolderTree
from tests.conftest import make_tree

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pkg/__init__.py": "",
    "pkg/net.py": "",
    "pkg/net.pyi": "",
    "pkg/notes.txt": "",
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": "",
    "pkg/bad-name.py": "",
}
LISTED = ("__init__.py", "net.py", "net.pyi", "sub")


def test_a_folder_lists_the_names_that_may_be_modules(tmp_path: Path) -> None:
    root = make_tree(tmp_path, FILES)
    assert folder_entries(FolderTree(root, packages=["pkg"]), "pkg") == LISTED
    by_list = FolderTree(root, files=list(FILES))
    assert folder_entries(by_list, "pkg") == LISTED
    assert folder_entries(by_list, "pkg/sub") == ("__init__.py", "deep.py")
    assert folder_entries(by_list, "gone") == ()
    assert folder_entries(FolderTree(root), "../..") == ()  # never outside the tree


def test_a_tree_that_cannot_list_says_so() -> None:
    class Plain:
        def read_text(self, path: str) -> str | None:
            return None

    assert folder_entries(Plain(), "pkg") is None  # type: ignore[arg-type]


def test_release_reuse_sees_a_module_added_to_a_listed_folder(tmp_path: Path) -> None:
    old = make_tree(tmp_path / "0.2", FILES)
    probed = ProbedTree(FolderTree(old, packages=["pkg"]))
    assert probed.entries("pkg") == LISTED
    probes = probed.probes()
    same = make_tree(tmp_path / "0.3", FILES)
    assert probes.answered_by(Answers(FolderTree(same, packages=["pkg"]), [probes]))
    grown = make_tree(tmp_path / "0.4", {**FILES, "pkg/wire.py": "def g():\n    pass\n"})
    assert not probes.answered_by(Answers(FolderTree(grown, packages=["pkg"]), [probes]))
