"""The docs' figures agree with their sources (issue 35 item 17; tests/docfigures.py).

A figure quoted in README.md, docs/*.md or a tests/*/README.md is written between markers
(`<!-- fig:idioms.probes -->302<!-- /fig -->`); `python -m tests.docfigures --check` fails
when one is not the figure its source gives (the idiom catalogue, the corpus, the world
results, the newest benchmark row, pytest's collection), and `--write` brings them in line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests import docfigures

REPO = Path(__file__).resolve().parents[2]


def test_every_figure_in_the_docs_is_the_one_its_source_gives() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.docfigures", "--check"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


def test_the_docs_quote_the_figures_that_disagreed() -> None:
    """The figures the issue found apart: probes, world results, tests, speed."""
    quoted = {
        name for doc in docfigures.documents() for name, _ in docfigures.markers(doc.read_text())
    }
    for name in (
        "idioms.probes",
        "idioms.idioms",
        "world.precision",
        "world.recall",
        "tests.total",
    ):
        assert name in quoted
    assert any(name.startswith("bench.") for name in quoted)
    readme = {name for name, _ in docfigures.markers((REPO / "README.md").read_text())}
    analysis = {name for name, _ in docfigures.markers((REPO / "docs" / "analysis.md").read_text())}
    assert "idioms.probes" in readme & analysis  # the two that said 261 and 229


def test_a_figure_written_otherwise_is_reported(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text(
        "<!-- fig:idioms.probes -->261<!-- /fig --> probes, "
        "<!-- fig:idioms.idioms -->19<!-- /fig --> idioms, <!-- fig:nothing -->1<!-- /fig -->\n"
    )
    kept = {"idioms.probes": "302", "idioms.idioms": "19", "world.audits": "352"}
    now = {"idioms.probes": "303", "idioms.idioms": "19"}
    assert docfigures.problems(kept, now, [doc], repo=tmp_path) == [
        "docs/figures.json: idioms.probes is 302, its source gives 303",
        "README.md: idioms.probes is written 261, the figure is 302",
        "README.md: no figure named 'nothing'",
    ]
    rewritten = docfigures.rewrite(doc.read_text(), kept)
    assert rewritten.startswith("<!-- fig:idioms.probes -->302<!-- /fig --> probes, ")
    assert "<!-- fig:nothing -->1<!-- /fig -->" in rewritten  # unknown: left for the check


def test_the_kept_figures_are_the_sources_own(tmp_path: Path) -> None:
    kept = json.loads((REPO / "docs" / "figures.json").read_text())
    now = docfigures.computed(collect=False)
    assert {k: kept[k] for k in now} == now
    results = json.loads((REPO / "tests" / "world" / "results.json").read_text())
    assert kept["world.audits"] == f"{results['overall']['audits']:,}"
    assert kept["world.precision"] == f"{results['overall']['precision']:.2f}"
    assert {k for k in kept if k.startswith("tests.")} >= {"tests.total", "tests.network"}
