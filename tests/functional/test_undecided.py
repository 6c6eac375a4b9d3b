"""Undecided is visible: a site the analysis cannot decide is never a finding, but it is
counted in the summary, listed with --show-unknown (each with its reason), and carried by
JSON (its count always, its list with --show-unknown), which reads back.

acme 0.2 serves `ANYTHING` through a module `__getattr__` whose answer depends on the
environment, and has `run`, whose signature a decorator hides; `widget.go()` runs against
it (checked by the interpreter), and the tool must neither report nor forget those two sites.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from auditor.reporters.json_report import from_dict, to_dict
from tests.trust import machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

PROVIDER = {
    "acme/__init__.py": (
        "import os\n\n_REGISTRY = dict(os.environ)\n\n\n"
        "def _opaque(f):\n"
        "    return _Wrapper(f)\n\n\n"
        "class _Wrapper:\n"
        "    def __init__(self, f):\n        self.f = f\n\n"
        "    def __call__(self, *a, **k):\n        return self.f(*a)\n\n\n"
        "@_opaque\n"
        "def run(a):\n    return a\n\n\n"
        "def plain(a):\n    return a\n\n\n"
        "def __getattr__(name):\n"
        "    return _REGISTRY.get(name) or plain\n"
    ),
}
CONSUMER = (
    "import acme\n\n\n"
    "def go():\n"
    "    acme.ANYTHING(1)\n"  # served by __getattr__: undecided
    "    acme.run(1, fast=True)\n"  # a signature the wrapper hides: undecided
    "    return acme.plain(2)\n"  # decided: binds
)


def project(tmp_path: Path) -> tuple[Path, list[str]]:
    folders = []
    for version in ("0.1", "0.2"):
        root = tmp_path / f"acme-{version}"
        for rel, text in PROVIDER.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        folders.append(root)
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    (widget / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    args = ["--against", f"acme @ {folders[1].as_uri()}"]
    return widget, [*args, "--baseline", f"acme @ {folders[0].as_uri()}"]


def test_python_runs_the_consumer(tmp_path: Path) -> None:
    widget, _ = project(tmp_path)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'acme-0.2'}{os.pathsep}{widget.parent}"}
    done = subprocess.run(
        [sys.executable, "-c", "import widget; widget.go()"], env=env, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_undecided_sites_are_counted_listed_and_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine.isolate(monkeypatch)
    widget, args = project(tmp_path)
    common = [str(widget), *args, "--cache-dir", str(tmp_path / "cache")]
    text = invoke(*common)
    assert text.exit_code == 0, text.output
    assert "no drift found" in text.stdout and "2 undecided" in text.stdout
    assert "--- undecided" not in text.stdout  # counted, not listed
    listed = invoke(*common, "--show-unknown")
    assert "--- undecided (2 sites: not checked, never findings)" in listed.stdout
    assert "widget/__init__.py:5:5: acme.ANYTHING:" in listed.stdout
    assert "widget/__init__.py:6:5: acme.run:" in listed.stdout
    plain = json.loads(invoke(*common, "--format", "json").stdout)
    assert plain["findings"] == [] and plain["stats"]["undecided"] == 2
    assert "undecided" not in plain  # the list only when asked: a big consumer has thousands
    full = json.loads(invoke(*common, "--format", "json", "--show-unknown").stdout)
    rows = [(u["line"], u["target"], bool(u["reason"])) for u in full["undecided"]]
    assert rows == [(5, "acme.ANYTHING", True), (6, "acme.run", True)]
    kept = from_dict(full)  # how a replay reads a kept run back
    assert kept.stats.undecided == 2 and [u.target for u in kept.undecided] == [
        "acme.ANYTHING",
        "acme.run",
    ]
    assert to_dict(kept, undecided=True)["undecided"] == full["undecided"]


HOOKS = (
    "class Trainer:\n    def fit(self, model):\n        return model\n\n\n"
    "class Callback:\n"
    "    def on_end(self, trainer: Trainer, logs=None):\n        return None\n\n\n"
    "def run(callback):\n    return callback.on_end(Trainer(), {})\n"
)
OVERRIDES = (
    "import acme\n\n\n"
    "class Mine(acme.Callback):\n"
    "    def on_end(self, trainer, logs=None):\n"
    "        logs.get('x')\n"  # a parameter the provider declares no type for: not counted
    "        return trainer.fit(1)\n"  # typed from the provider's method: decided
    "    def own(self, thing):\n"
    "        return thing.fit(1)\n"  # the consumer's own method's parameter: not counted
    "\n\ndef spread(frame):\n"
    "    return frame.mad()\n"  # only the `probable` rule asks: never counted
)


def test_only_what_the_provider_passes_counts_as_a_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An override's parameter adds a site only where the provider declares its type; the
    questions of the `probable` rule are never sites (nor undecided)."""
    machine.isolate(monkeypatch)
    folders = []
    for version in ("0.1", "0.2"):
        (tmp_path / f"acme-{version}" / "acme").mkdir(parents=True)
        (tmp_path / f"acme-{version}" / "acme" / "__init__.py").write_text(HOOKS, "utf-8")
        folders.append(tmp_path / f"acme-{version}")
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    (widget / "__init__.py").write_text(OVERRIDES, encoding="utf-8")
    args = [
        "--against",
        f"acme @ {folders[1].as_uri()}",
        "--baseline",
        f"acme @ {folders[0].as_uri()}",
    ]
    common = [str(widget), *args, "--cache-dir", str(tmp_path / "cache")]
    report = json.loads(invoke(*common, "--format", "json", "--show-unknown").stdout)
    assert report["findings"] == []
    assert report["stats"]["undecided"] == 0 and report.get("undecided", []) == []
    # the import, the subclass, the two overrides and `trainer.fit`; not `logs.get`,
    # `thing.fit` nor `frame.mad`
    assert report["stats"]["sites"] == 5, report["stats"]


def test_an_element_typed_by_a_type_variable_is_undecided_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Wrapper().resolve()[node].line` where `resolve` returns `Mapping[Node, T]` (libcst's
    `MetadataWrapper.resolve`): the element's type is a TypeVar, not a class. That was an
    internal error (exit 2: `'_Typed' object has no attribute 'path'`), so no audit of a
    consumer of libcst could run; it is an undecided site, with its reason."""
    machine.isolate(monkeypatch)
    provider = tmp_path / "acme-0.1" / "acme"
    provider.mkdir(parents=True)
    (provider / "__init__.py").write_text(
        "from typing import Mapping, TypeVar\n\nT = TypeVar('T')\n\n\n"
        "class Node:\n    line = 1\n\n\n"
        "class Wrapper:\n    def resolve(self) -> Mapping[Node, T]:\n        return {}\n",
        encoding="utf-8",
    )
    widget = tmp_path / "consumer" / "widget"
    widget.mkdir(parents=True)
    (widget / "__init__.py").write_text(
        "import acme\n\n\ndef go(node):\n    return acme.Wrapper().resolve()[node].line\n",
        encoding="utf-8",
    )
    result = invoke(
        str(widget), "--against", f"acme @ {provider.parent.as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--show-unknown",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [undecided] = json.loads(result.stdout)["undecided"]
    assert undecided["target"] == "acme.Wrapper().resolve()[].line"
    assert undecided["reason"] == "the type of an element of Mapping[Node, T] is not a class"
