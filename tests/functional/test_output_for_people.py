"""Output a person reads (issue 35, items 4, 15, 16 and 18): through the CLI.

A provider `acme` at 0.1 (the baseline), 0.2 and 0.3, as folders named by direct references:
`configure()` has thirty parameters whose annotations 0.2 spells anew (`Optional[int]`
becomes `int | None`) and loses `legacy`; `stop()` loses both `reason` and `force`, which
the consumer passes on one line (`force` at its default: a drop fix keeps what the call does).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result

from auditor.cli import cli

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

MANY = [f"option_{i:02d}" for i in range(30)]


def _configure(spelling: str, *, legacy: bool) -> str:
    params = [f"{name}: {spelling} = None" for name in MANY]
    if legacy:
        params.insert(15, "legacy: Optional[bool] = None")
    return f"def configure(name: str, {', '.join(params)}) -> None:\n    return None\n"


HEAD = "from typing import Optional\n\n\n"
STOP_01 = "def stop(job, reason=None, force=False):\n    return job\n"
STOP_02 = "def stop(job):\n    return job\n"
RELEASES = {
    "0.1": HEAD + _configure("Optional[int]", legacy=True) + "\n\n" + STOP_01,
    "0.2": HEAD + _configure("int | None", legacy=False) + "\n\n" + STOP_02,
    "0.3": HEAD + _configure("int | None", legacy=False) + "\n\n" + STOP_02,
}
JOBS = """\
from acme import configure, stop


def work(model):
    stop(model, reason='done', force=False)
    configure('x', legacy=True)
"""


@pytest.fixture
def world(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    for version, text in RELEASES.items():
        make_tree(tmp_path / "providers" / version, {"acme/__init__.py": text})
    make_tree(tmp_path / "widget-project", {"widget/__init__.py": "", "widget/jobs.py": JOBS})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("DRIFT_AUDIT_NO_REPLAY", "1")
    for var in ("PIP_INDEX_URL", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def run(world: Path, *args: str, targets: tuple[str, ...] = ("0.2",)) -> Result:
    refs = [a for v in targets for a in ("--against", _ref(world, v))]
    argv = ["widget-project", *refs, "--baseline", _ref(world, "0.1"), "--offline",
            "--cache-dir", str(world / "cache"), *args]  # fmt: skip
    result = CliRunner().invoke(cli, argv, prog_name="drift-audit")
    assert result.exit_code == 1, result.output
    return result


def _ref(world: Path, version: str) -> str:
    return f"acme @ {(world / 'providers' / version).as_uri()}"


def _blocks(text: str) -> dict[str, list[str]]:
    """Each finding's lines in the text report, by `line:parameter`."""
    blocks: dict[str, list[str]] = {}
    for block in text.split("\n\n"):
        lines = block.splitlines()
        head = next((line for line in lines if re.match(r"widget/jobs\.py:\d+:\d+: ", line)), None)
        if head is not None:
            line = head.split(":")[1]
            name = re.search(r"keyword '(\w+)'", head)
            blocks[f"{line}:{name.group(1) if name else ''}"] = lines[lines.index(head) :]
    return blocks


def _rows(lines: list[str], width: int = 80) -> int:
    return sum(max(1, -(-len(line) // width)) for line in lines)


def test_a_long_signature_shows_what_matters_and_counts_the_rest(world: Path) -> None:
    """Item 4: the thirty parameters whose annotation is only spelled anew are counted as
    unchanged; the parameter at fault is shown; the finding fits a screen at 80 columns."""
    block = _blocks(run(world).stdout)["6:legacy"]
    baseline = next(i for i, line in enumerate(block) if line.startswith("    baseline: "))
    target = next(i for i, line in enumerate(block) if line.startswith("    target:   "))
    old, new = " ".join(block[baseline:target]), " ".join(block[target : target + 3])
    assert "legacy: Optional[bool] = None" in old
    assert "(... 16 unchanged, legacy" in old and "... 15 unchanged" in old, block
    assert "(... 31 unchanged) -> None" in new, block
    assert "option_0" not in old + new and "int | None" not in new, block
    assert all(len(line) <= 80 for line in block[baseline:target]), block
    assert _rows(block) <= 24, block


@pytest.mark.parametrize("fmt", ["github", "junit", "markdown"])
def test_ci_formats_cut_signatures_too(world: Path, fmt: str) -> None:
    out = run(world, "--format", fmt).stdout
    assert "(... 16 unchanged, legacy: Optional[bool] = None, ... 15 unchanged)" in out, out
    assert "option_03" not in out


def test_carets_go_under_the_keyword_when_the_call_is_on_one_line(world: Path) -> None:
    """Item 16: `stop(model, reason='done', force=True)` gives two findings; each caret
    line underlines its own keyword, as mypy and ruff do, not the whole call."""
    blocks = _blocks(run(world).stdout)
    for name in ("reason", "force"):
        source, carets = blocks[f"5:{name}"][1:3]
        text = source.split(" | ", 1)[1]
        underlined = carets.split(" | ", 1)[1]
        start = len(underlined) - len(underlined.lstrip(" "))
        assert underlined.strip() == "^" * len(name), blocks[f"5:{name}"]
        assert text[start : start + len(name) + 1] == f"{name}=", blocks[f"5:{name}"]


def test_timeline_rows_name_the_parameter(world: Path) -> None:
    """Item 15: the two findings of line 5 have one row each, telling them apart."""
    out = run(world, targets=("0.2", "0.3")).stdout
    table = out.split("drift timeline: x broken, . works (acme)\n")[1].split("\n\n")[0]
    labels = [line.split()[0:3] for line in table.splitlines()[1:]]
    assert ["widget/jobs.py:5", "unexpected-keyword", "reason"] in labels
    assert ["widget/jobs.py:5", "unexpected-keyword", "force"] in labels
    assert len({" ".join(label) for label in labels}) == len(labels)


def test_markdown_says_why_first_broken_is_not_known_and_gives_suggestions_and_fixes(
    world: Path,
) -> None:
    """Item 18: one release audited: "First broken" says it is not known (not blank); each
    new finding's suggestion and fix are in the comment."""
    out = run(world, "--format", "markdown").stdout
    rows = [line for line in out.splitlines() if line.startswith("| `widget/jobs.py:")]
    assert rows and all(row.rstrip(" |").endswith("not known: only 0.2 audited") for row in rows)
    data = json.loads(run(world, "--format", "json").stdout)
    fixes = [f["fix"]["description"] for f in data["findings"] if f.get("fix")]
    assert fixes, data["findings"]
    details = out.split("<summary>Details: signatures, suggestions and fixes</summary>")[1]
    for description in fixes:
        assert description.replace("_", "\\_") in details, details
    assert "  - fix (" in details


@pytest.mark.network
def test_the_headline_audit_fits_one_screen_per_finding_at_80_columns(tmp_path: Path) -> None:
    """Item 4's done-when, on the README's own demo (the package index, once, then cached):
    every finding of `drift-audit speculators==0.3.0 --against vllm==0.17.0` is at most 24
    rows of an 80-column terminal, and a signature line is wider than one only when it holds
    a single parameter longer than the line (`label: (name: annotation` at most)."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "auditor", "speculators==0.3.0", "--against", "vllm==0.17.0"]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 1, run.stderr
    blocks = _headline_blocks(run.stdout)
    assert len(blocks) >= 4, run.stdout
    for block in blocks:
        assert _rows(block) <= 24, "\n".join(block)
        labels = ("    baseline:", "    target:", " " * 14)
        signatures = [line for line in block if line.startswith(labels)]
        wide = [line for line in signatures if len(line) > 80]  # only a parameter too long
        alone = [line.count(": ") <= (1 if line.startswith(" " * 14) else 2) for line in wide]
        assert signatures and all(alone), wide


HEADLINE = re.compile(r"^\S+\.py:\d+:\d+: (error|warning|info)\[", re.M)


def _headline_blocks(text: str) -> list[list[str]]:
    """Each finding's lines (from its headline on), in a text report."""
    out = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        heads = [i for i, line in enumerate(lines) if HEADLINE.match(line)]
        if heads:
            out.append(lines[heads[0] :])
    return out
