"""It never runs what it audits: not a module, not setup.py, not a build backend, not a .pth.

A provider `acme` and a consumer `widget` are built here so that running any of their code
leaves a marker file in `markers/` (an absolute path baked into the code at test time):
module-level code in every module, `__main__.py`, `conftest.py`, `setup.py`, an in-tree build
backend named by pyproject.toml, `sitecustomize.py`, and `.pth` files (at the project root,
at a wheel's root and in its purelib). Both are audited as folders, wheels and sdists.

Out of process: the real CLI under audit hooks (tests/trust/guarded_cli.py) that record any
process started, any code object executed from outside the interpreter and auditor/, any
write into the audited trees, and any module imported from them. In process: every
combination through `auditor.pipeline.audit`, with process creation patched to fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from auditor import pipeline
from tests.trust.archives import Member, write_tar, write_zip

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO_ROOT = Path(__file__).resolve().parents[2]
GUARD = REPO_ROOT / "tests" / "trust" / "guarded_cli.py"
FORMS = ("folder", "wheel", "sdist")


def leave(markers: Path, name: str) -> str:
    """A line of Python that, if it ever ran, would leave the marker `name`."""
    target = markers / name
    return (
        f"import os; f = open({str(target)!r}, 'w'); f.write('ran'); f.close(); "
        f"os.system('touch {target}.shell')  # noqa\n"
    )


def project(root: Path, markers: Path, name: str, module: str, body: str) -> dict[str, str]:
    """{relative path: text} of a project whose every executable piece leaves a marker."""
    backend = (
        leave(markers, f"{name}-backend")
        + "def build_wheel(*a, **k):\n    raise SystemExit('built')\n"
        + "build_sdist = get_requires_for_build_wheel = prepare_metadata_for_build_wheel = "
        + "build_wheel\n"
    )
    return {
        f"{module}/__init__.py": leave(markers, f"{name}-module") + body,
        f"{module}/core.py": leave(markers, f"{name}-core")
        + "def run(x, *, fast=False):\n    return x\n",
        f"{module}/__main__.py": leave(markers, f"{name}-main"),
        f"{module}/conftest.py": leave(markers, f"{name}-conftest"),
        "setup.py": leave(markers, f"{name}-setup") + "from setuptools import setup\nsetup()\n",
        "backend.py": backend,
        "sitecustomize.py": leave(markers, f"{name}-sitecustomize"),
        f"{name}.pth": leave(markers, f"{name}-pth"),
        "pyproject.toml": (
            f'[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n\n'
            f'[project]\nname = "{name}"\nversion = "1.0"\n'
        ),
    }


def write_folder(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def as_wheel(folder: Path, files: dict[str, str], name: str, module: str) -> Path:
    info = f"{name}-1.0.dist-info"
    members = [Member.text(p, t) for p, t in files.items() if p.startswith(f"{module}/")]
    members += [
        Member.text(f"{name}.pth", files[f"{name}.pth"]),  # installers put it in site-packages
        Member.text(f"{name}-1.0.data/purelib/{name}_data.pth", files[f"{name}.pth"]),
        Member.text(f"{info}/METADATA", f"Name: {name}\nVersion: 1.0\n"),
        Member.text(f"{info}/top_level.txt", f"{module}\n"),
        Member.text(f"{info}/entry_points.txt", f"[console_scripts]\n{name} = {module}:run\n"),
    ]
    path = folder / f"{name}-1.0-py3-none-any.whl"
    write_zip(path, members, compression=8)
    return path


def as_sdist(folder: Path, files: dict[str, str], name: str) -> Path:
    top = f"{name}-1.0"
    members = [Member.text(f"{top}/{p}", t) for p, t in files.items()]
    members.append(Member.text(f"{top}/PKG-INFO", f"Name: {name}\nVersion: 1.0\n"))
    path = folder / f"{top}.tar.gz"
    write_tar(path, members)
    return path


class World:
    """The provider and the consumer in every form, and the markers folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.markers = root / "markers"
        self.markers.mkdir()
        consumer_body = "from acme import run\n\nrun(1, slow=True)\n"
        acme = project(root, self.markers, "acme", "acme", "from acme.core import run\n")
        widget = project(root, self.markers, "widget", "widget", consumer_body)
        dist = root / "dist"
        dist.mkdir()
        self.provider = {
            "folder": write_folder(root / "acme-src", acme),
            "wheel": as_wheel(dist, acme, "acme", "acme"),
            "sdist": as_sdist(dist, acme, "acme"),
        }
        self.consumer = {
            "folder": write_folder(root / "widget-src", widget),
            "wheel": as_wheel(dist, widget, "widget", "widget"),
            "sdist": as_sdist(dist, widget, "widget"),
        }

    def spec(self, form: str) -> str:
        return f"acme @ {self.provider[form].as_uri()}"

    def roots(self) -> list[Path]:
        return [*self.provider.values(), *self.consumer.values()]

    def left_markers(self) -> list[str]:
        return sorted(p.name for p in self.markers.iterdir())


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@pytest.fixture
def no_processes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Starting a process in this block fails the test (and is recorded)."""
    started: list[str] = []

    def refuse(name: str) -> object:
        def refused(*args: object, **kwargs: object) -> object:
            started.append(f"{name}{args!r}"[:200])
            raise AssertionError(f"the audit started a process: {name}")

        return refused

    for owner, attr in [
        (subprocess, "Popen"),
        (os, "system"),
        (os, "fork"),
        (os, "posix_spawn"),
        (os, "posix_spawnp"),
        (os, "execv"),
        (os, "execve"),
    ]:
        if hasattr(owner, attr):
            monkeypatch.setattr(owner, attr, refuse(attr))
    yield started
    assert started == []


def audited_modules(world: World) -> list[str]:
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and any(Path(path).resolve().is_relative_to(r.resolve()) for r in world.roots()):
            found.append(name)
    return found


@pytest.mark.parametrize("consumer_form", FORMS)
@pytest.mark.parametrize("provider_form", FORMS)
def test_an_audit_in_process_runs_nothing_it_reads(
    world: World, provider_form: str, consumer_form: str, no_processes: list[str]
) -> None:
    consumer = world.consumer[consumer_form]
    if consumer_form == "folder":
        consumer = consumer / "widget"
    before = set(sys.modules)
    report = pipeline.audit(
        str(consumer),
        [world.spec(provider_form)],
        baseline=None,
        cache_dir=world.root / "cache",
        offline=True,
    )
    assert [(f.kind.slug, f.location.line) for f in report.findings] == [("unexpected-keyword", 4)]
    assert world.left_markers() == []
    assert audited_modules(world) == []
    assert not {m for m in set(sys.modules) - before if m.split(".")[0] in ("acme", "widget")}


@pytest.mark.parametrize("form", FORMS)
def test_the_cli_runs_nothing_it_reads_under_audit_hooks(world: World, form: str) -> None:
    log = world.root / "guard.json"
    consumer = world.consumer[form]
    cwd = consumer if form == "folder" else world.root  # a project folder: `drift-audit .`
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(world.root / "home"),
        "PIP_CONFIG_FILE": os.devnull,
        "PYTHONDONTWRITEBYTECODE": "1",
        "DRIFT_AUDIT_GUARD_LOG": str(log),
        "DRIFT_AUDIT_GUARD_ROOTS": os.pathsep.join(str(r) for r in world.roots()),
    }
    done = subprocess.run(
        [
            sys.executable, str(GUARD), "." if form == "folder" else str(consumer),
            "--against", world.spec(form), "--offline", "--cache-dir", str(world.root / "cache"),
            "--format", "json",
        ],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings] == [("unexpected-keyword", 4)]
    guard = json.loads(log.read_text(encoding="utf-8"))
    assert guard["violations"] == []
    assert guard["seen"]["events"] > 0 and guard["seen"]["open"] > 0  # the hooks were live
    assert world.left_markers() == []
    assert not list(world.root.rglob("__pycache__"))  # nothing was compiled to bytecode


def test_the_markers_would_be_left_if_the_code_ran(world: World) -> None:
    """The fixture is honest: running its code does leave the markers."""
    folder = world.provider["folder"]
    subprocess.run(
        [sys.executable, "-c", "import acme, acme.core"],
        cwd=folder, check=True, timeout=60, capture_output=True,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "setup.py", "--name"], cwd=folder, check=False, timeout=60,
        capture_output=True,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "-c", "import backend"], cwd=folder, check=True, timeout=60,
        capture_output=True,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "-c", f"import site; site.addsitedir({str(folder)!r})"],
        check=True, timeout=60, capture_output=True,
    )  # fmt: skip  # processes acme.pth, as a site-packages folder would
    left = world.left_markers()
    for marker in ("acme-module", "acme-core", "acme-setup", "acme-backend", "acme-pth"):
        assert marker in left, left


def test_the_guard_sees_an_import_from_a_guarded_tree(tmp_path: Path) -> None:
    """The hooks are not blind: guarding auditor/ itself, the CLI's own imports show up."""
    log = tmp_path / "guard.json"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DRIFT_AUDIT_GUARD_LOG": str(log),
        "DRIFT_AUDIT_GUARD_ROOTS": str(REPO_ROOT / "auditor"),
    }
    subprocess.run(
        [sys.executable, str(GUARD), "--list-kinds"],
        env=env, capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    violations = json.loads(log.read_text(encoding="utf-8"))["violations"]
    assert any(v.startswith("module auditor.cli was imported from") for v in violations)
