"""Decided by difference, through the CLI: a site no single release settles (an attribute a
standard-library base sets at run time, a data key a class serves) is decided "unchanged"
when the baseline's lookups, answers and files are the same; one changed file it rests on
makes it undecided again. Python agrees: the attribute is there in every release."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from click.testing import CliRunner

from auditor.cli import cli

if TYPE_CHECKING:
    from collections.abc import Callable

IDIOM = Path(__file__).resolve().parents[1] / "idioms" / "difference"
CONSUMER = """\
import acme


def check():
    assert acme.Case()._outcome is None
    assert acme.Keyed(colour="red").colour == "red"
"""


def _audit(tmp_path: Path, target: Path, baseline: Path) -> dict[str, object]:
    result = CliRunner().invoke(
        cli,
        [
            str(tmp_path / "widget"),
            "--against", f"acme @ {target.as_uri()}",
            "--baseline", f"acme @ {baseline.as_uri()}",
            "--format", "json", "--show-unknown", "--offline",
            "--cache-dir", str(tmp_path / "cache"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def _runs(provider: Path, tmp_path: Path) -> bool:
    code = f"import sys; sys.path[:0] = [{str(provider)!r}, {str(tmp_path)!r}]; "
    done = subprocess.run(
        [sys.executable, "-I", "-c", code + "import widget; widget.check()"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    return done.returncode == 0


def _edited(tmp_path: Path, name: str, edit: Callable[[str], str]) -> Path:
    folder = tmp_path / name
    shutil.copytree(IDIOM / "provider" / "0.2", folder)
    cases = folder / "acme" / "cases.py"
    cases.write_text(edit(cases.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def test_a_site_resting_on_the_same_definitions_is_unchanged_and_one_changed_undecides_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "widget").mkdir()
    (tmp_path / "widget" / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    old, new = IDIOM / "provider" / "0.1", IDIOM / "provider" / "0.2"
    beside = _edited(tmp_path, "0.3", lambda t: t + "\n\ndef added():\n    return None\n")
    inside = _edited(
        tmp_path,
        "0.4",
        lambda t: t.replace("class Case(unittest.TestCase):", "class Mixin:\n    pass\n\n\n"
                            "class Case(Mixin, unittest.TestCase):").replace(
            "        try:", "        if name == 'unused':\n            return None\n        try:"),
    )  # fmt: skip
    assert all(_runs(p, tmp_path) for p in (old, new, beside, inside))  # Python: fine in all

    same = _audit(tmp_path, new, old)  # tools.py changed; cases.py, what they rest on, did not
    assert same["findings"] == [] and same["undecided"] == []
    assert same["stats"]["unchanged"] == 2  # type: ignore[index]

    apart = _audit(tmp_path, beside, new)  # cases.py changed, not what Case or Keyed rest on
    assert apart["undecided"] == [] and apart["stats"]["unchanged"] == 2  # type: ignore[index]

    changed = _audit(tmp_path, inside, new)  # a base added, __getattr__ edited: not by difference
    assert changed["findings"] == [] and changed["stats"]["unchanged"] == 0  # type: ignore[index]
    listed = [(u["line"], u["cause"]) for u in changed["undecided"]]  # type: ignore[union-attr,index]
    assert listed == [(5, "stdlib"), (6, "instance-attribute")]


def test_statistics_say_how_many_sites_the_difference_decided(tmp_path: Path) -> None:
    (tmp_path / "widget").mkdir()
    (tmp_path / "widget" / "__init__.py").write_text(CONSUMER, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            str(tmp_path / "widget"),
            "--against", f"acme @ {(IDIOM / 'provider' / '0.2').as_uri()}",
            "--baseline", f"acme @ {(IDIOM / 'provider' / '0.1').as_uri()}",
            "--statistics", "--offline", "--cache-dir", str(tmp_path / "cache"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "no findings",
        "decided by difference: 2 sites (the same in both releases)",
    ]
