"""Where a gone definition lives now: found beyond the modules an audit happened to load."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.kinds import Kind
from auditor.model import Status
from auditor.pipeline import audit
from tests.functional.test_oracle import IDIOMS

if TYPE_CHECKING:
    from pathlib import Path

MOVES = IDIOMS / "moves"


def _findings(tmp_path: Path) -> dict[str, tuple[Kind, str | None, object]]:
    spec = f"acme @ {(MOVES / 'provider' / '0.2').as_uri()}"
    base = f"acme @ {(MOVES / 'provider' / '0.1').as_uri()}"
    report = audit(
        str(MOVES / "consumer" / "widget"), [spec], baseline=base, cache_dir=tmp_path, offline=True
    )
    return {
        f.scope.rsplit(".", 1)[-1]: (f.kind, f.suggestion, f.hint)
        for f in report.findings
        if f.status is Status.NEW
    }


def test_a_definition_moved_to_a_module_a_surviving_package_imports_is_named(
    tmp_path: Path,
) -> None:
    kind, suggestion, hint = _findings(tmp_path)[
        "probe_a_function_moved_to_a_module_a_package_imports"
    ]
    assert kind is Kind.REMOVED_SYMBOL
    assert suggestion == (
        "a definition of that name now lives in acme.io.readers.load: "
        "`from acme.io.readers import load`"
    )
    assert getattr(hint, "action", None) == "move-import" and getattr(hint, "safe", None)
    assert getattr(hint, "new", None) == "acme.io.readers"


def test_a_from_import_of_a_gone_module_names_where_the_name_went(tmp_path: Path) -> None:
    kind, suggestion, hint = _findings(tmp_path)["probe_a_module_renamed_private"]
    assert kind is Kind.REMOVED_MODULE
    assert suggestion == (
        "a definition of that name now lives in acme.utils._testing.assert_close: "
        "`from acme.utils._testing import assert_close`"
    )
    assert getattr(hint, "new", None) == "acme.utils._testing"


def test_a_definition_beside_a_gone_module_that_nothing_imports_is_named(
    tmp_path: Path,
) -> None:
    """acme.util is gone; `def g` is in acme.net, which no module imports: found in the
    folder of the surviving package, with the move-import hint."""
    kind, suggestion, hint = _findings(tmp_path)[
        "probe_a_module_gone_whose_function_moved_beside_it"
    ]
    assert kind is Kind.REMOVED_MODULE
    assert (
        suggestion == "a definition of that name now lives in acme.net.g: `from acme.net import g`"
    )
    assert getattr(hint, "new", None) == "acme.net" and getattr(hint, "names", None) == ("g",)
    assert getattr(hint, "safe", None)  # the baseline's kind and signature


def test_two_definitions_beside_a_gone_module_are_no_answer(tmp_path: Path) -> None:
    kind, suggestion, hint = _findings(tmp_path)[
        "probe_a_module_gone_whose_function_two_modules_beside_it_define"
    ]
    assert kind is Kind.REMOVED_MODULE and suggestion is None and hint is None


def test_a_module_beside_that_only_uses_the_name_is_not_visited(tmp_path: Path) -> None:
    """The text is checked for a definition at its top level before griffe reads it: a
    module that imports or calls `g`, defines it in a class, or compares it, is not visited;
    what the search read and listed is its basis (memo.py keeps the answer on it)."""
    from auditor.provider.api import ProviderAPI
    from auditor.sources.trees import FolderTree
    from tests.conftest import make_tree

    root = make_tree(tmp_path / "tree", {
        "acme/__init__.py": "",
        "acme/calls.py": "from acme.other import g\n\n\ndef f():\n    return g(1)\n",
        "acme/nested.py": "class C:\n    def g(self):\n        return 1\n",
        "acme/compare.py": "if g == 1:\n    pass\n",
    })  # fmt: skip
    api = ProviderAPI(FolderTree(root, packages=["acme"]), ["acme"], "0.2")
    assert api.moved("acme.util.g") is None
    basis = api.move_basis()
    assert basis is not None
    read, listed = basis
    assert listed == {"acme"} and read == {"acme.calls", "acme.compare", "acme.nested"}
    assert api.loaded_modules() == {"acme"}  # none of the three visited


def test_a_method_gone_from_a_class_is_not_looked_for_beside_its_module(tmp_path: Path) -> None:
    """`Box.shut` is gone from its class: a module-level `def shut` beside `acme.box` is no
    new home of a method; a module-level `shut` gone from `acme.box` is found there."""
    from auditor.provider.api import ProviderAPI
    from auditor.sources.trees import FolderTree
    from tests.conftest import make_tree

    root = make_tree(tmp_path / "tree", {
        "acme/__init__.py": "",
        "acme/box.py": "class Box:\n    def size(self):\n        return 1\n",
        "acme/other.py": "def shut(x):\n    return x\n",
    })  # fmt: skip
    api = ProviderAPI(FolderTree(root, packages=["acme"]), ["acme"], "0.2")
    assert api.moved("acme.box.Box.shut") is None
    assert api.moved("acme.box.shut") == "acme.other.shut"
