"""Trust, round four, item 1: a release that drops or renames a top-level package is a break.

acme 0.1 ships `acme/` and `pkg_legacy/`; 0.2 only `acme/`. The consumer's `import pkg_legacy`
raised ModuleNotFoundError at 0.2, and the audit said "no drift found", exit 0: the scan
matched imports against the target's top-level names only. Now it matches them against the
baseline's too, and a name the baseline ships and a target does not is a `removed-module`
there (new: it bound at the baseline), with where its definitions live now when the target
has them. The same for a renamed only package (`acme/` -> `acme2/`, the distribution still
acme), an sdist whose package is only a link member, and a wheel that ships another name.
Where a verdict rests on Python's rules, the consumer is run against each release in a
subprocess. Each test of a break fails on cf43118 (the commit before the fix); the near
misses (nothing dropped, a name new in the target) pass on both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from tests.trust import machine
from tests.trust.archives import Member, sdist, wheel
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from click.testing import Result


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


ACME = {"acme/__init__.py": "def ok():\n    return 1\n"}
LEGACY = {"pkg_legacy/__init__.py": "def run(a):\n    return a\n"}
CONSUMER = (
    "import acme\nimport pkg_legacy\nfrom pkg_legacy import run\n\n\n"
    "def go():\n    return acme.ok() + pkg_legacy.run(1) + run(2)\n"
)
RENAMED = "def run(a, b=1, new=3):\n    return a\n"


def _folder(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _project(tmp_path: Path, consumer: str = CONSUMER) -> Path:
    return _folder(tmp_path / "project", {"widget/__init__.py": consumer})


def _python(project: Path, provider: Path) -> str:
    """ "" when `widget.go()` runs against the release's folder, else its last error line."""
    done = subprocess.run(
        [sys.executable, "-c", "import widget; widget.go()"],
        env={"PYTHONPATH": f"{project}{os.pathsep}{provider}", "PATH": os.environ["PATH"]},
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    return "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def _audit(project: Path, targets: list[Path], baseline: Path | None, *more: str) -> Result:
    args = [str(project)]
    for target in targets:
        args += ["--against", f"acme @ {target.as_uri()}"]
    if baseline is not None:
        args += ["--baseline", f"acme @ {baseline.as_uri()}"]
    return invoke(*args, "--cache-dir", str(project.parent / "cache"), *more)


def _report(result: Result) -> dict[str, Any]:
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _findings(report: dict[str, Any]) -> list[tuple[str, int, str, list[str]]]:
    return [(f["kind"], f["line"], f["status"], f["broken_in"]) for f in report["findings"]]


def test_a_top_level_package_the_target_drops_is_a_removed_module(tmp_path: Path) -> None:
    """The repro: both imports of pkg_legacy are new removed-modules at 0.2 (its uses
    folded in), the exit status is 1, and the suggestion says what 0.2 ships instead."""
    project = _project(tmp_path)
    old = _folder(tmp_path / "0.1", {**ACME, **LEGACY})
    new = _folder(tmp_path / "0.2", ACME)
    assert _python(project, old) == ""
    assert _python(project, new) == "ModuleNotFoundError: No module named 'pkg_legacy'"
    report = _report(_audit(project, [new], old, "--format", "json"))
    assert _findings(report) == [
        ("removed-module", 2, "new", ["0.2"]),
        ("removed-module", 3, "new", ["0.2"]),
    ]
    assert [f["also_used_at"] for f in report["findings"]] == [[7], [7]]
    assert {f["symbol"] for f in report["findings"]} == {"pkg_legacy"}
    assert all("pkg_legacy; they ship acme" in f["suggestion"] for f in report["findings"])
    text = _audit(project, [new], old)
    assert text.exit_code == 1 and "no drift found" not in text.stdout, text.output


def test_nothing_dropped_and_a_module_no_release_ships_stay_silent(tmp_path: Path) -> None:
    """The near misses: 0.2 still ships pkg_legacy; `import numpy`, which no release of
    acme ships, is not a site of acme's at all (not counted, not undecided)."""
    consumer = "import numpy\n" + CONSUMER
    project = _project(tmp_path, consumer)
    old = _folder(tmp_path / "0.1", {**ACME, **LEGACY})
    new = _folder(tmp_path / "0.2", {**ACME, **LEGACY})
    report = _report(_audit(project, [new], old, "--format", "json", "--show-unknown"))
    assert report["findings"] == []
    assert report["undecided"] == []
    assert report["stats"]["call_sites"] == 3  # acme.ok, pkg_legacy.run, run: numpy is no site
    result = _audit(project, [new], old)
    assert result.exit_code == 0 and "no drift found" in result.stdout, result.output


def test_a_name_new_in_the_target_is_no_break_and_stays_unknown_without_a_baseline(
    tmp_path: Path,
) -> None:
    """The other direction: a top-level package the target adds binds there (the
    baseline's lacking it is nothing new); with no baseline nothing says a name the target
    lacks was the provider's, so the consumer is still warned that no site was checked."""
    project = _project(tmp_path)
    old = _folder(tmp_path / "0.1", ACME)
    new = _folder(tmp_path / "0.2", {**ACME, **LEGACY})
    assert _report(_audit(project, [new], old, "--format", "json"))["findings"] == []
    renamed = _folder(tmp_path / "ren", {"acme2/__init__.py": RENAMED})
    alone = _audit(_project(tmp_path / "alone", "import acme\n"), [renamed], None)
    assert alone.exit_code == 0 and "has no site into acme" in alone.stderr, alone.output


def test_a_renamed_only_package_is_an_error_with_where_it_went(tmp_path: Path) -> None:
    """0.2 renames acme/ to acme2/: `import acme` is ModuleNotFoundError; the audit reports
    it (no "has no site into acme" warning), and a `from acme import run` says that a
    definition of that name now lives in acme2.run (`from acme2 import run`)."""
    consumer = "import acme\nfrom acme import run\n\n\ndef go():\n    return acme.run(1) + run(2)\n"
    project = _project(tmp_path, consumer)
    requires = '[project]\nname = "widget"\nversion = "1"\ndependencies = ["acme>=0.1"]\n'
    (project / "pyproject.toml").write_text(requires, encoding="utf-8")  # acme: no other home
    old = _folder(tmp_path / "0.1", {"acme/__init__.py": "def run(a, b=1, old=2):\n    return a\n"})
    new = _folder(tmp_path / "0.2", {"acme2/__init__.py": RENAMED})
    assert _python(project, old) == ""
    assert _python(project, new) == "ModuleNotFoundError: No module named 'acme'"
    result = _audit(project, [new], old, "--format", "json")
    assert "has no site into" not in result.stderr, result.stderr
    report = _report(result)
    assert _findings(report) == [
        ("removed-module", 1, "new", ["0.2"]),
        ("removed-module", 2, "new", ["0.2"]),
    ]
    suggestions = [f["suggestion"] for f in report["findings"]]
    assert "they ship acme2" in suggestions[0]
    assert suggestions[1] == (
        "a definition of that name now lives in acme2.run: `from acme2 import run`"
    )


@pytest.mark.parametrize("shape", ["an sdist whose package is a link", "a wheel of another name"])
def test_an_archive_that_ships_no_package_of_that_name_is_an_error(
    tmp_path: Path, shape: str
) -> None:
    """The same through archives: an sdist whose acme/ is only a link member (never
    followed), or a wheel that ships acme2/ instead."""
    project = _project(tmp_path, "import acme\n\n\ndef go():\n    return acme.run(1, old=5)\n")
    old = _folder(tmp_path / "0.1", {"acme/__init__.py": "def run(a, b=1, old=2):\n    return a\n"})
    dist = tmp_path / "dist"
    dist.mkdir()
    if shape.startswith("an sdist"):
        link = Member("acme-0.2/acme", kind="symlink", link=str(old / "acme"))
        target = sdist(dist, "acme", "0.2", {"other.py": "x = 1\n"}, extra=[link])
    else:
        target = wheel(dist, "acme", "0.2", {"acme2/__init__.py": RENAMED}, top_level=["acme2"])
    result = _audit(project, [target], old, "--format", "json")
    assert "has no site into" not in result.stderr, result.stderr
    assert _findings(_report(result)) == [("removed-module", 1, "new", ["0.2"])]


def test_a_range_names_exactly_the_releases_that_lack_the_package(tmp_path: Path) -> None:
    """Several targets: 0.2 drops pkg_legacy, 0.3 ships it again, 0.4 drops it with `run`
    moved into acme, 0.5 drops it but requires a distribution named like it (which may
    install it: undecided there, never a break). broken_in is exactly 0.2 and 0.4; the
    baseline that lacks it makes the same break preexisting."""
    dist = tmp_path / "dist"
    dist.mkdir()
    both = {**ACME, **LEGACY}
    tops = ["acme", "pkg_legacy"]
    moved = {"acme/__init__.py": "def ok():\n    return 1\n\n\ndef run(a):\n    return a\n"}
    wheels = {
        "0.1": wheel(dist, "acme", "0.1", both, top_level=tops),
        "0.2": wheel(dist, "acme", "0.2", ACME),
        "0.3": wheel(dist, "acme", "0.3", both, top_level=tops),
        "0.4": wheel(dist, "acme", "0.4", moved),
        "0.5": wheel(dist, "acme", "0.5", ACME, requires=["pkg-legacy>=1"]),
    }
    consumer = "import acme\nimport pkg_legacy\n\n\ndef go():\n    return pkg_legacy.run(1)\n"
    project = _project(tmp_path, consumer)
    targets = [wheels[v] for v in ("0.2", "0.3", "0.4", "0.5")]
    report = _report(_audit(project, targets, wheels["0.1"], "--format", "json"))
    assert _findings(report) == [("removed-module", 2, "new", ["0.2", "0.4"])]
    alone = _report(
        _audit(project, [wheels["0.5"]], wheels["0.1"], "--format", "json", "--show-unknown")
    )
    assert alone["findings"] == []
    assert {u["line"] for u in alone["undecided"]} == {2, 6}
    assert all("pkg-legacy may provide it" in u["reason"] for u in alone["undecided"])
    again = _audit(project, [wheels["0.3"], wheels["0.4"]], wheels["0.2"], "--format", "json")
    # failing at the baseline too: not new, and no gate
    assert _findings(_report(again)) == [("removed-module", 2, "preexisting", ["0.4"])]
    assert again.exit_code == 0


def test_a_package_another_provider_now_ships_is_that_providers(tmp_path: Path) -> None:
    """pkg_legacy moved from the acme distribution into its own, pkg-legacy, audited in the
    same run: acme no longer owns it, and nothing is reported or left undecided."""
    dist = tmp_path / "dist"
    dist.mkdir()
    old = wheel(dist, "acme", "0.1", {**ACME, **LEGACY}, top_level=["acme", "pkg_legacy"])
    new = wheel(dist, "acme", "0.2", ACME)
    split = wheel(dist, "pkg-legacy", "1.0", LEGACY, top_level=["pkg_legacy"])
    project = _project(tmp_path)
    result = invoke(
        str(project), "--against", f"acme @ {new.as_uri()}",
        "--against", f"pkg-legacy @ {split.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--show-unknown",
    )  # fmt: skip
    report = _report(result)
    assert report["findings"] == [] and report["undecided"] == []
    # acme's sites: `import acme` and `acme.ok()`; pkg_legacy's four are pkg-legacy's only
    assert {p["name"]: p["call_sites"] for p in report["providers"]} == {
        "acme": 2,
        "pkg-legacy": 4,
    }


def test_a_module_the_consumer_requires_from_elsewhere_is_undecided(tmp_path: Path) -> None:
    """acme 0.1 vendored a top-level `six.py`; 0.2 does not. The consumer requires six
    itself, which may install it: undecided, never a removed module."""
    project = _project(tmp_path, "import six\n\n\ndef go():\n    return six.PY3\n")
    requires = '[project]\nname = "widget"\nversion = "1"\ndependencies = ["six", "acme"]\n'
    (project / "pyproject.toml").write_text(requires, encoding="utf-8")
    old = _folder(tmp_path / "0.1", {**ACME, "six.py": "PY3 = True\n"})
    new = _folder(tmp_path / "0.2", ACME)
    report = _report(_audit(project, [new], old, "--format", "json", "--show-unknown"))
    assert report["findings"] == []
    assert [(u["line"], u["target"]) for u in report["undecided"]] == [(1, "six"), (5, "six.PY3")]
    assert "the consumer's requirement six may provide it" in report["undecided"][0]["reason"]
