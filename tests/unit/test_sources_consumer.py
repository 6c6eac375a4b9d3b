"""Consumers (folders, package folders, installed distributions) and the inferred baseline."""

from __future__ import annotations

import importlib.metadata
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from auditor.errors import ConsumerNotFoundError, FetchError, PackageNotFoundError
from auditor.sources import Release, infer_baseline, open_index, resolve_consumer
from auditor.sources.trees import FolderTree

if TYPE_CHECKING:
    from auditor.sources import Index


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)


@pytest.fixture
def index(tmp_path: Path) -> Index:
    """An index that must never be asked: offline, cold cache, unreachable URL."""
    return open_index("http://127.0.0.1:9/simple", cache_dir=tmp_path / "cache", offline=True)


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


PYPROJECT = """\
[project]
name = "Widget_Tools"
version = "1.2.0"
dependencies = ["acme>=0.2", "click"]

[project.optional-dependencies]
gen = ["acme==0.1; python_version >= '3.9'"]
"""


# --------------------------------------------------------------------------- folders


def test_project_root_with_src_layout_walks_only_its_packages(tmp_path: Path, index: Index) -> None:
    root = make_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "src/widget/__init__.py": "",
            "src/widget/cli.py": "import acme\n",
            "src/widget/sub/deep.pyi": "",
            "tests/test_widget.py": "",
            "docs/conf.py": "",
            ".venv/lib/site.py": "",
            "setup.py": "raise SystemExit\n",
        },
    )
    consumer = resolve_consumer(str(root), index)
    assert (consumer.name, consumer.version) == ("widget-tools", "1.2.0")
    assert consumer.import_names == ("widget",)
    assert list(consumer.tree.walk()) == [
        "widget/__init__.py",
        "widget/cli.py",
        "widget/sub/deep.pyi",
    ]
    assert consumer.requires == (
        "acme>=0.2",
        "click",
        "acme==0.1; (python_version >= '3.9') and extra == \"gen\"",
    )
    assert consumer.origin == f"folder {root}"


def test_flat_project_root_without_metadata_finds_packages_and_modules(
    tmp_path: Path, index: Index
) -> None:
    root = make_tree(
        tmp_path / "flat",
        {
            "widget/__init__.py": "",
            "helper.py": "",
            "conftest.py": "",
            "setup.py": "",
            "tests/__init__.py": "",
            "build/lib/widget/__init__.py": "",
            "notes/readme.py": "",  # no __init__.py: not a package
        },
    )
    consumer = resolve_consumer(str(root), index)
    assert (consumer.name, consumer.version) == ("flat", None)
    assert consumer.import_names == ("helper", "widget")
    assert list(consumer.tree.walk()) == ["helper.py", "widget/__init__.py"]


def test_a_src_folder_without_packages_is_not_the_import_root(tmp_path: Path, index: Index) -> None:
    root = make_tree(tmp_path / "ext", {"src/fast.c": "", "widget/__init__.py": ""})
    consumer = resolve_consumer(str(root), index)
    assert consumer.import_names == ("widget",)
    assert consumer.extra["root"] == str(root)


def test_package_folder_itself_is_its_own_import_name(tmp_path: Path, index: Index) -> None:
    root = make_tree(
        tmp_path / "proj",
        {"pyproject.toml": PYPROJECT, "src/widget/__init__.py": "", "src/other/__init__.py": ""},
    )
    consumer = resolve_consumer(str(root / "src" / "widget"), index)
    assert consumer.import_names == ("widget",)
    assert consumer.name == "widget-tools"  # from the project that holds it
    assert isinstance(consumer.tree, FolderTree) and consumer.tree.root == root / "src"
    assert list(consumer.tree.walk()) == ["widget/__init__.py"]


def test_folder_without_python_is_consumer_not_found(tmp_path: Path, index: Index) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConsumerNotFoundError, match=r"no Python package found"):
        resolve_consumer(str(tmp_path / "empty"), index)


def test_pkg_info_supplies_metadata_of_an_unpacked_sdist(tmp_path: Path, index: Index) -> None:
    root = make_tree(
        tmp_path / "widget-2.0",
        {
            "PKG-INFO": "Metadata-Version: 2.1\nName: widget\nVersion: 2.0\n"
            "Requires-Dist: acme==0.3.0\n",
            "widget/__init__.py": "",
        },
    )
    consumer = resolve_consumer(str(root), index)
    assert (consumer.name, consumer.version, consumer.requires) == (
        "widget",
        "2.0",
        ("acme==0.3.0",),
    )


def test_source_with_a_coding_cookie_is_decoded(tmp_path: Path) -> None:
    pkg = tmp_path / "widget"
    pkg.mkdir()
    (pkg / "__init__.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n")
    tree = FolderTree(tmp_path, packages=("widget",))
    assert tree.read_text("widget/__init__.py") == "# -*- coding: latin-1 -*-\nname = 'é'\n"
    assert tree.read_text("widget/missing.py") is None


# --------------------------------------------------------------------------- installed


def _install_fake_dist(site: Path, *, editable_to: Path | None = None) -> None:
    info = site / "widget_dist-3.1.dist-info"
    files = {
        "wdg/__init__.py": "",
        "wdg/core.py": "",
        "wdg/data.json": "{}",
        f"{info.name}/METADATA": "Metadata-Version: 2.1\nName: widget-dist\nVersion: 3.1\n"
        "Requires-Dist: acme>=0.2\n",
        f"{info.name}/top_level.txt": "wdg\n",
        "other/__init__.py": "",
    }
    make_tree(site, files)
    record = [f"{rel},," for rel in files if not rel.startswith("other/")]
    if editable_to is not None:
        direct = {"url": editable_to.as_uri(), "dir_info": {"editable": True}}
        (info / "direct_url.json").write_text(json.dumps(direct))
    (info / "RECORD").write_text("\n".join(record) + "\n")


@pytest.mark.parametrize("arg", ["widget-dist", "widget_dist", "wdg"])
def test_installed_distribution_by_name_or_import_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: Index, arg: str
) -> None:
    site = tmp_path / "site"
    _install_fake_dist(site)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)
    consumer = resolve_consumer(arg, index)
    assert (consumer.name, consumer.version) == ("widget-dist", "3.1")
    assert consumer.import_names == ("wdg",)
    assert list(consumer.tree.walk()) == ["wdg/__init__.py", "wdg/core.py"]
    assert consumer.tree.read_text("other/__init__.py") is None
    assert consumer.requires == ("acme>=0.2",)
    assert consumer.origin.startswith("installed ")


def test_editable_install_is_read_from_its_source_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: Index
) -> None:
    source = make_tree(tmp_path / "checkout", {"pyproject.toml": PYPROJECT, "src/widget/a.py": ""})
    (source / "src" / "widget" / "__init__.py").write_text("")
    site = tmp_path / "site"
    _install_fake_dist(site, editable_to=source)
    monkeypatch.syspath_prepend(str(site))
    consumer = resolve_consumer("widget-dist", index)
    assert list(consumer.tree.walk()) == ["widget/__init__.py", "widget/a.py"]
    assert consumer.origin == f"installed (editable) {source}"


def test_unknown_bare_name_is_consumer_not_found(tmp_path: Path, index: Index) -> None:
    with pytest.raises(ConsumerNotFoundError) as caught:
        resolve_consumer("surely-not-installed-xyz", index)
    assert "surely-not-installed-xyz==VERSION" in (caught.value.hint or "")


def test_missing_path_is_consumer_not_found(tmp_path: Path, index: Index) -> None:
    with pytest.raises(ConsumerNotFoundError, match=r"not a folder"):
        resolve_consumer(str(tmp_path / "no" / "such" / "dir"), index)


def test_requirement_consumer_offline_with_cold_cache_is_a_fetch_error(index: Index) -> None:
    with pytest.raises(FetchError, match=r"not in the cache and --offline"):
        resolve_consumer("speculators==0.3.0", index)


# --------------------------------------------------------------------------- baseline


class FakeVersions:
    """Stands in for Index in infer_baseline: only `versions` is asked."""

    def __init__(self, versions: list[str] | None) -> None:
        self._versions = versions
        self.asked = 0

    def versions(self, name: str, *, pre: bool = False) -> list[str]:
        self.asked += 1
        if self._versions is None:
            raise PackageNotFoundError(f"no project named {name!r}")
        return self._versions


def _consumer(*requires: str) -> Release:
    return Release("widget", "1.0", FolderTree(Path()), "test", ("w",), requires)


def _infer(consumer: Release, versions: list[str] | None, provider: str = "vllm") -> str | None:
    return infer_baseline(consumer, provider, cast("Any", FakeVersions(versions)))


@pytest.mark.parametrize(
    ("requires", "expected"),
    [
        (("vllm==0.11.0",), "0.11.0"),
        (("torch", 'vllm==0.11.0; extra == "datagen"'), "0.11.0"),
        (("VLLM >= 0.12, <0.18",), "0.12.1"),
        (("vllm~=0.13.0",), "0.13.2"),
        (("vllm>0.12.1",), "0.13.2"),
        (("vllm==0.12.*",), "0.12.1"),
        (("vllm>=0.12; python_version < '3'", "vllm==0.11.0; extra == 'x'"), "0.11.0"),
        # the requirement for this environment, not the first one written
        (("vllm==0.10.0; python_version < '3'", "vllm==0.11.0; python_version >= '3'"), "0.11.0"),
        (("vllm>=0.13; sys_platform == 'no-such-os'", "vllm>=0.12"), "0.12.1"),
        (("vllm==0.10.0; extra == 'old' and python_version < '3'", "vllm>=0.13"), "0.13.2"),
        # none holds here: all of them, as written
        (("vllm==0.11.0; sys_platform == 'no-such-os'",), "0.11.0"),
    ],
)
def test_baseline_from_a_pin_or_the_lowest_release_in_the_bound(
    requires: tuple[str, ...], expected: str
) -> None:
    assert _infer(_consumer(*requires), ["0.10.0", "0.12.1", "0.13.2", "0.14.0"]) == expected


def test_a_pin_needs_no_index() -> None:
    fake = FakeVersions(None)
    assert infer_baseline(_consumer("vllm==0.11.0"), "vllm", cast("Any", fake)) == "0.11.0"
    assert fake.asked == 0


def test_unknown_releases_fall_back_to_the_literal_lower_bound() -> None:
    assert _infer(_consumer("vllm>=0.12,<1"), None) == "0.12"


def test_without_a_bound_the_installed_provider_version_is_the_baseline() -> None:
    installed = importlib.metadata.version("packaging")
    assert _infer(_consumer("packaging<99"), [], provider="packaging") == installed


def test_without_any_information_there_is_no_baseline() -> None:
    assert _infer(_consumer("torch"), [], provider="surely-not-installed-xyz") is None
