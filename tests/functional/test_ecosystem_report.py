"""The ecosystem report a release manager reads (issue 35, items 3, 7 and 14): through the CLI.

A fake index on loopback (tests/trust) serves the provider `acme` 0.1 (`run(a, b=1, old=2,
older=3)`) and 0.2 (`run(a, b=1)`), and the consumer `widget` 1.0 and 1.1, which requires
`acme>=0.1`. Upload times say acme 0.1 came first, then widget 1.1, then acme 0.2: the
baseline of widget 1.1 is acme 0.1, "the newest release uploaded before" it. widget 1.1 calls
`acme.run(1, old=5, older=6)` (two findings, one call site) and `acme.run(2, old=1)` (one
more): three findings on two sites. widget 1.0 calls nothing that changed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from auditor.cli import ecosystem_cli
from tests.trust import machine
from tests.trust.archives import wheel
from tests.trust.fakeindex import FakeIndex, indexes_closed_after, serving

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

OLD = {"acme/__init__.py": "def run(a, b=1, old=2, older=3):\n    return a\n"}
NEW = {"acme/__init__.py": "def run(a, b=1):\n    return a\n"}
WIDGET_10 = {"widget/__init__.py": "import acme\n\n\ndef go():\n    return acme.run(1)\n"}
WIDGET_11 = {
    "widget/__init__.py": (
        "import acme\n\n\ndef go():\n"
        "    acme.run(1, old=5, older=6)\n"
        "    return acme.run(2, old=1)\n"
    )
}


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    machine.isolate(monkeypatch)
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    made = [
        wheel(dist, "acme", "0.1", OLD),
        wheel(dist, "acme", "0.2", NEW),
        wheel(dist, "widget", "1.0", WIDGET_10, requires=["acme>=0.1"]),
        wheel(dist, "widget", "1.1", WIDGET_11, requires=["acme>=0.1"]),
    ]
    fake.add(*made)
    days = {"acme-0.1": "2024-01-01", "widget-1.0": "2024-02-01", "widget-1.1": "2024-03-01",
            "acme-0.2": "2024-06-01"}  # fmt: skip
    for path in made:
        day = next(d for prefix, d in days.items() if path.name.startswith(prefix + "-"))
        fake.upload_times[path.name] = f"{day}T00:00:00Z"
    with serving(fake), indexes_closed_after(monkeypatch):
        yield fake


def eco(index: FakeIndex, tmp_path: Path, listed: str, *args: str) -> Any:
    (tmp_path / "consumers.txt").write_text(listed, encoding="utf-8")
    argv = ["--against", "acme==0.2", "--consumers", str(tmp_path / "consumers.txt"),
            "--index-url", index.url, "--cache-dir", str(tmp_path / "cache"), "--jobs", "1",
            *args]  # fmt: skip
    return CliRunner().invoke(ecosystem_cli, argv, catch_exceptions=False)


def test_a_bare_name_is_its_newest_release(index: FakeIndex, tmp_path: Path) -> None:
    """Item 3: `widget` in --consumers is widget 1.1, the newest release, as the README
    and `ecosystem --help` say; never an error row."""
    result = eco(index, tmp_path, "widget\n", "--format", "json")
    assert result.exit_code == 1, result.output  # it regressed: audited, not an error
    (row,) = json.loads(result.stdout)["consumers"]
    assert (row["spec"], row["name"], row["version"], row["outcome"]) == (
        "widget", "widget", "1.1", "regressed",
    )  # fmt: skip
    assert row["error"] is None


def test_help_describes_the_consumers_file() -> None:
    out = CliRunner().invoke(ecosystem_cli, ["--help"]).stdout
    lines = out.split("The --consumers FILE:")[1].split("\n\n")[0]
    forms = (("name==version", "that release"), ("name ", "newest release"),
             ("./folder", "folder"), ("name @ file:///path", "wheel or sdist"))  # fmt: skip
    for form, meaning in forms:
        assert any(form in line and meaning in line for line in lines.splitlines()), lines


def test_the_blast_radius_counts_call_sites_once(index: FakeIndex, tmp_path: Path) -> None:
    """Item 7: three findings on two sites are two sites; the page links each site once."""
    data = json.loads(eco(index, tmp_path, "widget==1.1\n", "--format", "json").stdout)
    findings = data["consumers"][0]["findings"]
    assert len([f for f in findings if f["symbol"] == "acme.run"]) == 3
    assert data["symbols"] == [{"symbol": "acme.run", "consumers": 1, "sites": 2}]
    text = eco(index, tmp_path, "widget==1.1\n").stdout
    assert "     1     2  acme.run" in text
    page = eco(index, tmp_path, "widget==1.1\n", "--format", "html").stdout
    where = page.split('<td class="sites"')[1].split("</td>")[0].replace("<wbr>", "")
    assert where.count("widget/__init__.py:5") == 1 and where.count("widget/__init__.py:6") == 1


def test_an_inferred_baseline_says_how_its_audit_inferred_it(
    index: FakeIndex, tmp_path: Path
) -> None:
    """Item 14: the reason is the single audit's (an upload date here), never "inferred
    from its metadata"."""
    data = json.loads(eco(index, tmp_path, "widget==1.1\n", "--format", "json").stdout)
    (row,) = data["consumers"]
    assert row["baseline"] == "0.1"
    why = row["baseline_inferred"]
    assert why.startswith("the newest release uploaded before widget 1.1 (2024-03-01)"), why
    page = eco(index, tmp_path, "widget==1.1\n", "--format", "html").stdout
    assert "inferred from its metadata" not in page
    assert f"inferred: {why}" in page.replace("&gt;", ">").replace("&lt;", "<")
