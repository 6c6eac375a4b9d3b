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


# --------------------------------------------------------------------------- item 7


def _stats(result: Result) -> tuple[int, int]:
    data = json.loads(result.stdout)
    return data["stats"]["audited"], data["stats"]["reused_from_store"]


def _outcome(result: Result) -> str:
    (row,) = json.loads(result.stdout)["consumers"]
    return str(row["outcome"])


def _edit_target(folders: dict[str, Path]) -> None:  # 0.2 keeps `old`: widget is clean
    (folders["target"] / "acme" / "__init__.py").write_text(
        "def run(a, b=1, old=2, new=3):\n    return a\n", encoding="utf-8"
    )


def _edit_baseline(folders: dict[str, Path]) -> None:  # 0.1 without `old`: broken there too
    (folders["baseline"] / "acme" / "__init__.py").write_text(
        "def run(a, b=1):\n    return a\n", encoding="utf-8"
    )


def _edit_consumer(folders: dict[str, Path]) -> None:  # widget no longer passes `old`
    (folders["consumer"] / "__init__.py").write_text(GADGET, encoding="utf-8")


EDITS: dict[str, tuple[Callable[[dict[str, Path]], None], str]] = {
    "the target checkout": (_edit_target, "clean"),
    "the baseline checkout": (_edit_baseline, "still-broken"),
    "the consumer folder": (_edit_consumer, "clean"),
}


@pytest.mark.parametrize("edited", list(EDITS))
def test_a_kept_row_is_reused_only_for_the_folders_it_was_made_from(
    tmp_path: Path, edited: str
) -> None:
    """Item 7: a row was keyed by its specs alone, so a provider checkout edited between two
    runs (`acme @ file:///...`, the same spec) read as the old result, "1 from the store".
    A row is kept with the content hashes of the target, the baseline and the consumer:
    after an edit to any of them it is audited again and says what a run without the store
    says; unchanged, it is reused."""
    old, new = acme.provider_folders(tmp_path)
    widget = acme.consumer(tmp_path / "project") / "widget"
    folders = {"target": new, "baseline": old, "consumer": widget}
    listing = tmp_path / "consumers.txt"
    listing.write_text(f"{widget}\n", encoding="utf-8")
    args = [
        "--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--consumers", str(listing), "--cache-dir", str(tmp_path / "cache"), "--offline",
        "--format", "json", "--jobs", "1",
    ]  # fmt: skip
    store = ["--store", str(tmp_path / "store.sqlite")]
    first = eco(*args, *store)
    assert (_outcome(first), _stats(first)) == ("regressed", (1, 0))
    assert _stats(eco(*args, *store)) == (0, 1)  # unchanged: reused
    change, outcome = EDITS[edited]
    change(folders)
    again = eco(*args, *store)
    assert (_outcome(again), _stats(again)) == (outcome, (1, 0))
    assert _outcome(eco(*args)) == outcome  # what a run without the store says
    assert _stats(eco(*args, *store)) == (0, 1)


def _staging(dist: Path) -> FakeIndex:
    """Another index with the same names and versions: its acme 0.2 keeps `old` too."""
    fake = FakeIndex()
    fake.add(wheel(dist, "acme", "0.1", acme.OLD))
    fake.add(wheel(dist, "acme", "0.2", {"acme/__init__.py": "def run(a, b=1, old=2, new=3):\n"
                                         "    return a\n"}))  # fmt: skip
    fake.add(wheel(dist, "widget", "1.0", {"widget/__init__.py": acme.CONSUMER},
                   requires=["acme==0.1"]))  # fmt: skip
    return fake


def test_a_kept_row_is_not_reused_for_the_same_release_from_another_index(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Item 7: `acme==0.2` from a staging index (compatible), then from the real one
    (breaking), with one store: the second run was "clean, 1 from the store". A row names
    the index and the sha256 of each file it read (the target, the inferred baseline, the
    consumer): from another index it is audited again."""
    staging_dist = tmp_path / "staging"
    staging_dist.mkdir()
    listing = tmp_path / "consumers.txt"
    listing.write_text("widget==1.0\n", encoding="utf-8")
    args = [
        "--against", "acme==0.2", "--consumers", str(listing), "--store",
        str(tmp_path / "store.sqlite"), "--cache-dir", str(tmp_path / "cache"),
        "--format", "json", "--jobs", "1",
    ]  # fmt: skip
    with serving(_staging(staging_dist)) as staging:
        first = eco(*args, "--index-url", staging.url)
        assert (_outcome(first), _stats(first)) == ("clean", (1, 0))
        assert _stats(eco(*args, "--index-url", staging.url)) == (0, 1)
    real = eco(*args, "--index-url", index.url)
    assert (_outcome(real), _stats(real)) == ("regressed", (1, 0))
    assert _stats(eco(*args, "--index-url", index.url)) == (0, 1)


def test_a_store_of_the_earlier_schema_is_migrated_and_none_of_its_rows_reused(
    tmp_path: Path,
) -> None:
    """Item 7: a store written before rows said what they were made from (schema version
    1: spec, target and baseline only) holds a row claiming widget is clean. It is migrated
    in place, and its row is a miss: audited again (regressed), then reused."""
    import sqlite3

    old, new = acme.provider_folders(tmp_path)
    widget = str(acme.consumer(tmp_path / "project") / "widget")
    target, baseline = f"acme @ {new.as_uri()}", f"acme @ {old.as_uri()}"
    path = tmp_path / "store.sqlite"
    row = {"spec": widget, "name": "widget", "version": None, "baseline": None, "seconds": 0.1,
           "outcome": "clean", "error": None, "findings": [], "fixed": []}  # fmt: skip
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE audits (spec TEXT NOT NULL, target TEXT NOT NULL,"
            " baseline TEXT NOT NULL, row TEXT NOT NULL, finished REAL NOT NULL,"
            " PRIMARY KEY (spec, target, baseline))"
        )
        db.execute("PRAGMA user_version = 1")
        db.execute("INSERT INTO audits VALUES (?, ?, ?, ?, ?)",
                   (widget, target, baseline, json.dumps(row), 0.0))  # fmt: skip
    db.close()
    listing = tmp_path / "consumers.txt"
    listing.write_text(f"{widget}\n", encoding="utf-8")
    args = [
        "--against", target, "--baseline", baseline, "--consumers", str(listing),
        "--store", str(path), "--cache-dir", str(tmp_path / "cache"), "--offline",
        "--format", "json", "--jobs", "1",
    ]  # fmt: skip
    first = eco(*args)
    assert (_outcome(first), _stats(first)) == ("regressed", (1, 0))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)
        assert db.execute("SELECT count(*) FROM audits").fetchone() == (1,)
    db.close()
    assert _stats(eco(*args)) == (0, 1)


def test_a_row_is_never_reused_for_a_folder_that_cannot_be_named(tmp_path: Path) -> None:
    """Item 7: a folder holding a link cannot be named by its content (where the link leads
    could change unseen): its row is kept but never reused, each run audits it again."""
    old, new = acme.provider_folders(tmp_path)
    widget = acme.consumer(tmp_path / "project") / "widget"
    (widget / "alias.py").symlink_to(widget / "__init__.py")
    listing = tmp_path / "consumers.txt"
    listing.write_text(f"{widget}\n", encoding="utf-8")
    args = [
        "--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--consumers", str(listing), "--store", str(tmp_path / "store.sqlite"),
        "--cache-dir", str(tmp_path / "cache"), "--offline", "--format", "json", "--jobs", "1",
    ]  # fmt: skip
    for _ in range(2):
        result = eco(*args)
        assert (_outcome(result), _stats(result)) == ("regressed", (1, 0))
