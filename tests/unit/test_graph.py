"""The call graph: entry points (declared, public API, __main__) and shortest chains."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.graph import build_graph
from auditor.scan import scan_consumer
from auditor.sources.trees import FolderTree

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from auditor.graph import CallGraph


FILES = {
    "widget/__init__.py": "from widget.api import Client as Client\n__all__ = ['Client']\n",
    "widget/api.py": (
        "from widget._impl import work\n\n"
        "class Client:\n"
        "    def send(self):\n"
        "        return work()\n"
    ),
    "widget/_impl.py": (
        "import acme\n\ndef work():\n    return acme.f(1)\n\ndef unused():\n    return acme.g()\n"
    ),
    "widget/cli.py": "from widget._impl import work\n\ndef main():\n    work()\n",
    "widget/__main__.py": "from widget.cli import main\n\nmain()\n",
    "widget/tools.py": "import acme\n\ndef helper():\n    return acme.h()\n",
    "widget/_orphan.py": "import acme\n\ndef lost():\n    return acme.h()\n",
}


def graph_of(
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    tmp_path: Path,
    files: Mapping[str, str],
    entry_points: tuple[str, ...] = (),
) -> CallGraph:
    root = make_tree(tmp_path, files)
    packages = sorted({p.split("/", 1)[0].removesuffix(".py") for p in files})
    tree = FolderTree(root, packages=packages)
    scan = scan_consumer(tree, tuple(packages), ("acme",))
    return build_graph(scan, entry_points)


def test_entry_points_are_scripts_public_api_and_main_modules(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    graph = graph_of(make_tree, tmp_path, FILES, ("widget.cli:main [extra]", "nowhere:main"))
    assert graph.entry_points == {"widget.cli.main", "widget.api.Client", "widget.__main__"}


def test_chains_start_at_the_nearest_entry_points_shortest_first(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    graph = graph_of(make_tree, tmp_path, FILES, ("widget.cli:main",))
    assert graph.reached_from("widget._impl.work") == (
        ("widget.cli.main", "widget._impl.work"),
        ("widget.__main__", "widget.cli.main", "widget._impl.work"),
        ("widget.api.Client", "widget.api.Client.send", "widget._impl.work"),
    )


def test_a_scope_no_entry_point_reaches_falls_back_to_its_public_module(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    graph = graph_of(make_tree, tmp_path, FILES)
    assert graph.reached_from("widget.tools.helper") == (("widget.tools", "widget.tools.helper"),)
    assert graph.reached_from("widget._orphan.lost") == ()
    # importing a module runs it: what an entry point imports is reached through the import
    assert graph.reached_from("widget._impl.unused")[0] == (
        "widget.__main__", "widget.cli", "widget._impl", "widget._impl.unused",
    )  # fmt: skip
    assert graph.reached_from("widget.nowhere") == ()


def test_without_all_every_public_name_of_the_package_is_exported_through_reexports(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    files = {
        "widget/__init__.py": (
            "from .api import Client\nfrom . import tools\nfrom .api import _hidden\n"
            "import widget.tools as toolbox\n\ndef top():\n    pass\n"
        ),
        "widget/api.py": "from widget.core import Client\n\ndef _hidden():\n    pass\n",
        "widget/core.py": "class Client:\n    pass\n",
        "widget/tools.py": "def helper():\n    pass\n",
    }
    graph = graph_of(make_tree, tmp_path, files)
    assert graph.entry_points == {"widget.core.Client", "widget.tools", "widget.top"}


def test_a_script_naming_a_reexported_function_or_a_method_reaches_its_definition(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    files = {
        "widget/__init__.py": "from widget.cli import main\n__all__: list[str] = []\n",
        "widget/cli.py": "def main():\n    pass\n\nclass App:\n    def run(self):\n        pass\n",
    }
    refs = ("widget:main", "widget.cli:App.run", "widget.cli")
    graph = graph_of(make_tree, tmp_path, files, refs)
    assert graph.entry_points == {"widget.cli.main", "widget.cli.App.run", "widget.cli"}


def test_a_single_module_consumer_exports_its_public_functions(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    files = {"tool.py": "import acme\n\ndef run():\n    acme.f()\n\ndef _private():\n    pass\n"}
    graph = graph_of(make_tree, tmp_path, files)
    assert graph.entry_points == {"tool.run"}
    assert graph.reached_from("tool.run") == (("tool.run",),)


def test_an_unparsable_package_init_exports_nothing(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    files = {"widget/__init__.py": "def broken(:\n", "widget/core.py": "def f():\n    pass\n"}
    graph = graph_of(make_tree, tmp_path, files)
    assert graph.entry_points == set()
    assert graph.reached_from("widget.core.f") == (("widget.core", "widget.core.f"),)


def test_chains_are_kept_for_a_graph_of_the_same_shape(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    root = make_tree(tmp_path / "src", FILES)
    tree = FolderTree(root, packages=["widget"])
    store = tmp_path / "chains"
    first = build_graph(scan_consumer(tree, ("widget",), ("acme",)), (), store)
    expected = first.reached_from("widget._impl.work")
    first.save()
    # an edit that keeps who-calls-whom (a comment, a literal) keeps the graph's shape
    edited = FILES["widget/_impl.py"].replace("acme.f(1)", "acme.f(2)  # tuned")
    (root / "widget" / "_impl.py").write_text(edited)
    again = build_graph(scan_consumer(tree, ("widget",), ("acme",)), (), store)
    assert again.fingerprint() == first.fingerprint()
    assert again.reached_from("widget._impl.work") == expected
    assert "graph" not in again.__dict__  # answered from the store: networkx never built it
    # a new call changes the shape: the chains are computed afresh
    (root / "widget" / "tools.py").write_text(
        FILES["widget/tools.py"] + "\ndef more():\n    return acme.k()\n"
    )
    reshaped = build_graph(scan_consumer(tree, ("widget",), ("acme",)), (), store)
    assert reshaped.fingerprint() != first.fingerprint()


TESTS_AND_LIBRARY = {
    "widget/__init__.py": "from widget.core_test import go\n",  # the package imports it
    "widget/core_test.py": "from widget.helpers_test import run\n\ndef go():\n    return run()\n",
    "widget/helpers_test.py": "import acme\n\ndef run():\n    return acme.f(1)\n",
    "widget/tests/__init__.py": "",
    "widget/tests/test_go.py": "from widget.tests.conftest import fixture\nfrom widget import go\n",
    "widget/tests/conftest.py": "import acme\n\ndef fixture():\n    return acme.f(2)\n",
    "widget/lazy_test.py": "def later():\n    return 1\n",
}


def test_files_named_like_tests_that_library_code_reaches_are_production(
    make_tree: Callable[[Path, Mapping[str, str]], Path], tmp_path: Path
) -> None:
    """What the package imports, and what that imports in turn, runs in production; what
    only tests import (conftest.py here) and what nothing imports stay test files."""
    graph = graph_of(make_tree, tmp_path, TESTS_AND_LIBRARY)
    named = {"core_test.py", "helpers_test.py", "conftest.py", "test_go.py", "lazy_test.py"}

    def is_test(path: str) -> bool:
        return "/tests/" in path or path.rsplit("/", 1)[-1] in named

    assert graph.imported_outside_tests(is_test) == {
        "widget/core_test.py",
        "widget/helpers_test.py",
    }
