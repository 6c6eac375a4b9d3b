"""Trust, round four: an ecosystem run says what it could not read, and its store answers
only for the inputs a row was made from (issue 34, items 6 and 7).

Item 6: `ecosystem --dependents` left out a dependent whose project page, `.metadata` or
wheel failed (404, 5xx, a timeout) as "not a dependent", and passed while it regressed.
Item 7: `ecosystem --store` answered from a row made against another provider: a changed
`file://` checkout, or the same `acme==0.2` from another index, read as "clean, from the
store".

The fixture is tests/trust/acme.py: acme 0.1 `run(a, b=1, old=2)`, 0.2 with `new=3`; on the
loopback fake index widget 1.0 (requires acme==0.1, calls `acme.run(1, old=5)`) regresses
and gadget 2.0 (calls `acme.run(1)`) stays clean.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from auditor.cli import ecosystem_cli
from auditor.sources import fetch
from tests.trust import acme, machine
from tests.trust.archives import sdist, wheel
from tests.trust.cli import error_line
from tests.trust.fakeindex import FakeIndex, serving

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from click.testing import Result

GADGET = "import acme\n\n\ndef go():\n    return acme.run(1)\n"
WIDGET_WHEEL = "widget-1.0-py3-none-any.whl"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def eco(*args: str, env: dict[str, str] | None = None) -> Result:
    """`drift-audit ecosystem ARGS` in this process, stdout and stderr apart."""
    return CliRunner().invoke(ecosystem_cli, list(args), env=env, prog_name="drift-audit ecosystem")


def rows(result: Result) -> dict[str, dict[str, Any]]:
    return {c["spec"]: c for c in json.loads(result.stdout)["consumers"]}


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    return folder


@pytest.fixture
def index(dist: Path) -> Iterator[FakeIndex]:
    """acme 0.1 and 0.2, widget 1.0 (regresses) and gadget 2.0 (clean) on loopback."""
    fake = FakeIndex()
    fake.add(*acme.wheels(dist))
    fake.add(wheel(dist, "widget", "1.0", {"widget/__init__.py": acme.CONSUMER},
                   requires=["acme==0.1"]))  # fmt: skip
    fake.add(wheel(dist, "gadget", "2.0", {"gadget/__init__.py": GADGET}, requires=["acme>=0.1"]))
    with serving(fake):
        yield fake


# --------------------------------------------------------------------------- item 6


def _gone(fake: FakeIndex) -> None:
    fake.missing_files.add(WIDGET_WHEEL)


def _wheel_fails(fake: FakeIndex) -> None:
    fake.file_status[WIDGET_WHEEL] = 503


def _page_fails(fake: FakeIndex) -> None:
    fake.page_status["widget"] = 503


def _page_missing(fake: FakeIndex) -> None:
    fake.page_status["widget"] = 404


def _metadata_fails(fake: FakeIndex) -> None:
    fake.metadata_files.update(n for n in fake.files if n.startswith(("widget-", "gadget-")))
    fake.file_status[f"{WIDGET_WHEEL}.metadata"] = 500


def _never_answers(fake: FakeIndex) -> None:
    fake.hang_projects.add("widget")


FAULTS: dict[str, tuple[Callable[[FakeIndex], None], str, str]] = {
    # fault: (how, the row's spec, what its reason says)
    "its wheel is gone (404)": (_gone, "widget==1.0", "not there (404)"),
    "its wheel answers 503": (_wheel_fails, "widget==1.0", "503"),
    "its project page answers 503": (_page_fails, "widget", "project page could not be read"),
    "its project page is missing (404)": (_page_missing, "widget", "no project page"),
    "its .metadata answers 500": (_metadata_fails, "widget==1.0", ".metadata: HTTP 500"),
    "its project page never answers": (_never_answers, "widget", "timed out"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_dependent_that_cannot_be_read_is_an_error_row_and_fails_the_run(
    tmp_path: Path, index: FakeIndex, fault: str
) -> None:
    """Item 6: widget was left out as "not a dependent" ("against 1 consumers", exit 0) while
    it regressed. Whatever of it cannot be read (its page, its `.metadata`, its wheel; 404,
    5xx or no answer), it is an `error` row saying why, and the run cannot pass (exit 2)."""
    how, spec, reason = FAULTS[fault]
    how(index)
    result = eco(
        "--against", "acme==0.2", "--dependents", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--jobs", "1",
        env={fetch.TIMEOUT_ENV: "0.5", fetch.RETRIES_ENV: "0"},
    )  # fmt: skip
    assert "1 of 2 audits failed" in error_line(result)
    found = rows(result)
    assert {s: r["outcome"] for s, r in found.items()} == {"gadget==2.0": "clean", spec: "error"}
    why = found[spec]["error"]
    assert why.startswith("could not be examined as a dependent: ") and reason in why, why


def test_a_dependent_whose_only_file_is_an_sdist_of_unknown_size_is_audited(
    tmp_path: Path, index: FakeIndex, dist: Path
) -> None:
    """Item 6: an sdist the page gives no size for was not read, so its project was left
    out. It is read whole (within the download limits): widget is found and regresses."""
    del index.files[WIDGET_WHEEL]
    index.add(sdist(dist, "widget", "1.0", {
        "widget/__init__.py": acme.CONSUMER,
        "pyproject.toml": '[project]\nname = "widget"\nversion = "1.0"\n'
                          'dependencies = ["acme==0.1"]\n',
    }))  # fmt: skip
    index.sizes = False
    result = eco(
        "--against", "acme==0.2", "--dependents", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "json", "--jobs", "1",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert {s: r["outcome"] for s, r in rows(result).items()} == {
        "gadget==2.0": "clean",
        "widget==1.0": "regressed",
    }
