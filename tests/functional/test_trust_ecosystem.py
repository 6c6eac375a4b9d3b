"""Trust, round three: `drift-audit ecosystem` holds against what it reads (issue 22).

Items 1, 13, 14, 15, 20, 21 and 22 of the review, each through the command line: a Ray worker
importing the current folder's `griffe.py`; tracebacks for a damaged, foreign or edited
`--store` and for a hostile project list; a dependent whose `.metadata` fails its hash check
dropped without a word; Markdown and HTML passing what a dependent or a store row holds;
a quadratic `--consumers` read with rows padded to the longest line; `--timeout inf` and
`nan`; a run whose every audit failed exiting 0.

The fixture is tests/trust/acme.py: acme 0.1 `run(a, b=1, old=2)`, 0.2 with `new=3`, the
consumer `acme.run(1, old=5)` (one new `unexpected-keyword` at line 5). The providers are
folders (direct references) unless a test needs the loopback fake index, where widget 1.0
(requires acme==0.1) regresses and gadget 2.0 (calls `acme.run(1)`) stays clean.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from auditor.cli import ecosystem_cli
from tests.trust import acme, machine
from tests.trust.archives import Member, wheel
from tests.trust.cli import error_line
from tests.trust.fakeindex import FakeIndex, serving

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from click.testing import Result

GADGET = "import acme\n\n\ndef go():\n    return acme.run(1)\n"
MISSING = "/nonexistent/consumer/folder"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


def eco(*args: str, env: dict[str, str] | None = None) -> Result:
    """`drift-audit ecosystem ARGS` in this process, stdout and stderr apart."""
    return CliRunner().invoke(ecosystem_cli, list(args), env=env, prog_name="drift-audit ecosystem")


def no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


def listing(folder: Path, *specs: str) -> Path:
    path = folder / "consumers.txt"
    path.write_text("".join(f"{s}\n" for s in specs), encoding="utf-8")
    return path


def folder_run(tmp_path: Path, *specs: str) -> list[str]:
    """--against/--baseline as folders, the consumers listed, a cache: no index at all."""
    return [
        *acme.folder_args(tmp_path), "--consumers", str(listing(tmp_path, *specs)),
        "--cache-dir", str(tmp_path / "cache"), "--offline",
    ]  # fmt: skip


def rows(result: Result) -> dict[str, dict[str, Any]]:
    return {c["spec"]: c for c in json.loads(result.stdout)["consumers"]}


def breaks(row: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(f["kind"], f["symbol"], f["line"]) for f in row["findings"]]


BREAK = [("unexpected-keyword", "acme.run", acme.BREAK[1])]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[FakeIndex]:
    """acme 0.1 and 0.2, widget 1.0 (regresses) and gadget 2.0 (clean) on loopback."""
    dist = tmp_path / "dist"
    dist.mkdir()
    fake = FakeIndex()
    fake.add(*acme.wheels(dist))
    fake.add(wheel(dist, "widget", "1.0", {"widget/__init__.py": acme.CONSUMER},
                   requires=["acme==0.1"]))  # fmt: skip
    fake.add(wheel(dist, "gadget", "2.0", {"gadget/__init__.py": GADGET}, requires=["acme>=0.1"]))
    with serving(fake):
        yield fake


# --------------------------------------------------------------------------- item 1: Ray


def _hostile_checkout(folder: Path, marks: Path) -> Path:
    """A consumer's checkout whose modules would each leave a mark if anything imported them:
    the ones a worker imports (griffe, networkx, packaging, auditor itself) and one of Ray's."""
    checkout = acme.consumer(folder)
    mark = f"os.path.join({str(marks)!r}, __name__ + '-' + str(os.getpid()))"
    code = f"import os\nopen({mark}, 'w')\n"
    for module in ("griffe", "networkx", "packaging", "msgpack"):
        (checkout / f"{module}.py").write_text(code, encoding="utf-8")
    (checkout / "auditor").mkdir()
    (checkout / "auditor" / "__init__.py").write_text(code, encoding="utf-8")
    return checkout


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_no_engine_imports_anything_from_the_current_folder(
    tmp_path: Path, index: FakeIndex, engine: str
) -> None:
    """Item 1: run from a consumer's checkout, a Ray worker imported its griffe.py (Ray puts
    the driver's current folder first on every worker's sys.path and makes it the workers'
    own folder); the row crashed and the run exited 0. Both engines, the real console script,
    a real Ray: nothing of the folder runs, and the rows are right (a consumer named by a
    folder relative to where the run started, too)."""
    if engine == "ray":
        pytest.importorskip("ray")
    script = Path(sys.executable).with_name("drift-audit")
    assert script.exists(), script
    marks = tmp_path / "marks"
    marks.mkdir()
    checkout = _hostile_checkout(tmp_path / "checkout", marks)
    consumers = listing(tmp_path, "widget==1.0", "./widget")
    env = {k: v for k, v in os.environ.items() if k not in machine.PIP_ENV}
    env["PIP_CONFIG_FILE"] = os.devnull
    done = subprocess.run(
        [str(script), "ecosystem", "--against", "acme==0.2", "--baseline", "acme==0.1",
         "--consumers", str(consumers), "--index-url", index.url,
         "--cache-dir", str(tmp_path / "cache"), "--engine", engine, "--jobs", "2",
         "--format", "json"],
        cwd=checkout, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert sorted(p.name for p in marks.iterdir()) == []
    assert done.returncode == 1, done.stderr
    found = {c["spec"]: c for c in json.loads(done.stdout)["consumers"]}
    assert {spec: row["outcome"] for spec, row in found.items()} == {
        "widget==1.0": "regressed",
        "./widget": "regressed",
    }
    assert all(breaks(row) == BREAK for row in found.values())


# --------------------------------------------------------------------------- item 22: exit


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_a_run_with_failed_audits_never_exits_zero(tmp_path: Path, engine: str) -> None:
    """Item 22 (and item 1's last line): every audit failed, and the run exited 0, as if no
    consumer regressed. An `error` row fails the run (exit 2, one line saying how many)
    unless --max-errors allows that many; a regressed consumer is still exit 1."""
    if engine == "ray":
        pytest.importorskip("ray")
    unreadable = tmp_path / "empty"
    unreadable.mkdir()  # a folder without a Python package: the audit cannot run
    base = [*folder_run(tmp_path, MISSING, str(unreadable)), "--engine", engine, "--jobs", "2"]
    failed = eco(*base, "--format", "json")
    assert "2 of 2" in error_line(failed)
    assert {r["outcome"] for r in rows(failed).values()} == {"error"}  # the report is written
    assert eco(*base, "--max-errors", "1").exit_code == 2
    allowed = eco(*base, "--max-errors", "2")
    assert allowed.exit_code == 0, allowed.output
    no_traceback(allowed)
    widget = str(acme.consumer(tmp_path / "project") / "widget")
    both = eco(*folder_run(tmp_path, widget, MISSING), "--engine", engine, "--format", "json")
    assert both.exit_code == 1, both.output
    assert {s: r["outcome"] for s, r in rows(both).items()} == {
        widget: "regressed",
        MISSING: "error",
    }
    assert "1 of 2" in both.stderr


def test_the_help_says_what_an_error_row_does_to_the_exit_status() -> None:
    shown = eco("--help").stdout
    assert "--max-errors" in shown
    assert re.search(r"2\s+the run could not\s+start, or more audits failed", shown), shown


# --------------------------------------------------------------------------- item 21: timeout


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--timeout", "inf"),
        ("--timeout", "1e308"),
        ("--timeout", "nan"),
        ("--timeout", "-inf"),
        ("--timeout", "1e9"),
        ("--timeout", "0"),
        ("--memory", "99999999999999"),
    ],
)
def test_an_absurd_timeout_or_memory_is_a_usage_error(
    tmp_path: Path, option: str, value: str
) -> None:
    """Item 21: --timeout inf and 1e308 were OverflowError tracebacks; nan turned the
    timeout off. A finite, positive, bounded number of seconds, or one usage line, exit 2."""
    widget = str(acme.consumer(tmp_path / "project") / "widget")
    result = eco(*folder_run(tmp_path, widget), option, value)
    assert result.exit_code == 2, result.output
    no_traceback(result)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and option in errors[0], result.stderr
    assert result.stdout == ""


# --------------------------------------------------------------------------- item 13: store


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], dict[str, Any]]:
    """A store holding one finished audit (widget regressed), the run's arguments, its row."""
    folder = tmp_path_factory.mktemp("kept")
    widget = str(acme.consumer(folder / "project") / "widget")
    args = folder_run(folder, widget)
    store = folder / "kept.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        machine.isolate(patch)
        first = eco(*args, "--store", str(store), "--format", "json")
    assert first.exit_code == 1, first.output
    with sqlite3.connect(store) as db:
        (row,) = db.execute("SELECT row FROM audits").fetchone()
    db.close()
    stored: dict[str, Any] = json.loads(row)
    assert stored["findings"] == rows(first)[widget]["findings"]
    return store, args, stored


def _damage(kind: str, store: Path, good: Path) -> None:
    if kind == "random bytes":
        store.write_bytes(os.urandom(5000))
    elif kind == "another schema":
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE audits (id INTEGER PRIMARY KEY, result BLOB)")
        db.close()
    elif kind == "another program's database":
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE users (name TEXT)")
        db.close()
    elif kind == "a newer schema version":
        shutil.copy(good, store)
        with sqlite3.connect(store) as db:
            db.execute("PRAGMA user_version = 99")
        db.close()
    elif kind == "a FIFO":
        os.mkfifo(store)
    elif kind == "a folder":
        store.mkdir()
    elif kind == "a symbolic link":
        store.symlink_to(good)
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "random bytes",
        "another schema",
        "another program's database",
        "a newer schema version",
        "a FIFO",
        "a folder",
        "a symbolic link",
    ],
)
def test_a_store_that_is_not_a_drift_audit_store_is_one_line(
    tmp_path: Path, kept: tuple[Path, list[str], dict[str, Any]], kind: str
) -> None:
    """Item 13: a --store of random bytes, of another schema, or a FIFO was a raw traceback
    with exit 1 (read as "some regressed"). One line naming --store, exit 2, nothing audited,
    and the file left as it was."""
    good, args, _ = kept
    copy = tmp_path / "good.sqlite"
    shutil.copy(good, copy)
    store = tmp_path / "store.sqlite"
    _damage(kind, store, copy)
    before = store.read_bytes() if store.is_file() and not store.is_symlink() else None
    line = error_line(eco(*args, "--store", str(store)))
    assert "--store" in line, line
    if before is not None:
        assert store.read_bytes() == before
    assert copy.read_bytes() == good.read_bytes()  # a link's target was not written either


def _edit(row: dict[str, Any], how: str) -> object:
    """The kept row, edited as an attacker would (or as damage might)."""
    edited = json.loads(json.dumps(row))
    finding = edited["findings"][0]
    if how == "another shape":
        return {"spec": 1}
    if how == "not an object":
        return [edited]
    if how == "a field missing":
        del edited["findings"]
    elif how == "a field of another type":
        edited["seconds"] = "fast"
    elif how == "a finding of another shape":
        finding["line"] = "5"
    elif how == "a finding that is not an object":
        edited["findings"] = ["x"]
    elif how == "a kind that is none":
        finding["kind"] = "<img src=x onerror=alert(1)>\n\n# INJECTED"
    elif how == "a message that is not its kind's":
        finding["message"] = "all is well"
    elif how == "an outcome its findings contradict":
        edited["outcome"] = "clean"
    elif how == "an outcome that is none":
        edited["outcome"] = "pwned"
    elif how == "a spec that is not its key":
        edited["spec"] = "other==1.0"
    elif how == "fixed of another type":
        edited["fixed"] = [1, 2]
    elif how == "seconds not finite":
        edited["seconds"] = float("inf")
    else:
        raise AssertionError(how)
    return edited


EDITS = [
    "another shape",
    "not an object",
    "a field missing",
    "a field of another type",
    "a finding of another shape",
    "a finding that is not an object",
    "a kind that is none",
    "a message that is not its kind's",
    "an outcome its findings contradict",
    "an outcome that is none",
    "a spec that is not its key",
    "fixed of another type",
    "seconds not finite",
]
RAW_ROWS: dict[str, Callable[[str], object]] = {
    "not JSON": lambda row: row[: len(row) // 2],
    "nested too deeply": lambda row: "[" * 100_000 + "]" * 100_000,
    "a blob": lambda row: row.encode(),
    "a number": lambda row: 7,
}


@pytest.mark.parametrize("how", [*EDITS, *RAW_ROWS])
def test_a_store_row_that_does_not_fit_is_audited_again(
    tmp_path: Path, kept: tuple[Path, list[str], dict[str, Any]], how: str
) -> None:
    """Item 13: an edited row (`{"spec": 1}`) was a KeyError traceback, and a row claiming
    `clean` beside its own new error was believed. Every field read back is checked, each
    finding against the audit's JSON shape: a row that does not fit is a miss, audited again,
    and the result is the audit's."""
    good, args, row = kept
    store = tmp_path / "store.sqlite"
    shutil.copy(good, store)
    raw = RAW_ROWS[how](json.dumps(row)) if how in RAW_ROWS else json.dumps(_edit(row, how))
    with sqlite3.connect(store) as db:
        db.execute("UPDATE audits SET row = ?", (raw,))
    db.close()
    again = eco(*args, "--store", str(store), "--format", "json")
    no_traceback(again)
    assert again.exit_code == 1, again.output
    data = json.loads(again.stdout)
    assert data["stats"]["audited"] == 1 and data["stats"]["reused_from_store"] == 0
    (result,) = data["consumers"]
    assert result["outcome"] == "regressed" and result["findings"] == row["findings"]
    third = json.loads(eco(*args, "--store", str(store), "--format", "json").stdout)
    assert third["stats"]["reused_from_store"] == 1  # the row written again is whole


def test_a_hostile_project_list_with_a_folder_extra_index_is_no_traceback(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Item 13: a 100,000-character project name on the index's root page, with a file://
    extra index configured: OSError (File name too long) as a traceback. A name no folder can
    hold is a project that folder does not have; the run goes on with the others. (Round
    four, item 6: a listed project whose page cannot be read is an `error` row, not left
    out.)"""
    listed = index.root

    def root(*, html: bool = False) -> bytes:
        if html:
            return listed(html=True)
        doc = json.loads(listed())
        doc["projects"].append({"name": "x" * 100_000})
        return json.dumps(doc).encode()

    index.root = root  # type: ignore[method-assign]
    folder_index = tmp_path / "localindex"
    folder_index.mkdir()
    result = eco(
        "--against", "acme==0.2", "--dependents", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
        env={"PIP_EXTRA_INDEX_URL": folder_index.as_uri()},
    )  # fmt: skip
    no_traceback(result)
    assert result.exit_code == 1, result.output
    found = rows(result)
    assert {s: r["outcome"] for s, r in found.items()} == {
        "gadget==2.0": "clean",
        "widget==1.0": "regressed",
        "x" * 100_000: "error",
    }
    assert "project page could not be read" in found["x" * 100_000]["error"]


def test_a_run_with_no_consumer_to_audit_is_one_line(tmp_path: Path) -> None:
    """A listing of nothing but comments, or an index none of whose projects require the
    provider, audits nothing: one line and exit 2, never a pass over nobody."""
    empty = eco(*folder_run(tmp_path, "# nothing here"))
    assert "no consumer" in error_line(empty)


# --------------------------------------------------------------------------- item 14: .metadata


def test_a_dependent_whose_metadata_fails_its_hash_is_an_error_row(
    tmp_path: Path, index: FakeIndex
) -> None:
    """Item 14: widget's `.metadata` did not match the sha256 its page gave; widget was
    dropped as "not a dependent" and the run passed. An integrity failure is an `error` row
    (it may well depend on the provider) and fails the run."""
    wheels = [n for n in index.files if n.startswith(("widget-", "gadget-"))]
    index.metadata_files.update(wheels)
    index.lying_metadata.update(n for n in wheels if n.startswith("widget-"))
    result = eco(
        "--against", "acme==0.2", "--dependents", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    )  # fmt: skip
    assert "1 of 2" in error_line(result)
    found = rows(result)
    assert {s: r["outcome"] for s, r in found.items()} == {
        "gadget==2.0": "clean",
        "widget==1.0": "error",
    }
    assert "does not match the sha256" in found["widget==1.0"]["error"]


# --------------------------------------------------------------------------- item 15: sinks


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


def _markup_outside_ours(markdown: str) -> list[str]:
    """What in an ecosystem Markdown document could render as markup the report did not put
    there: HTML other than its own <details>/<summary>, an @-mention, a link, a heading."""
    ours = re.compile(r"</?(details|summary)>")
    text = _CODE_SPAN.sub("", markdown)  # inside a code span all is literal
    bad = [m.group() for m in re.finditer(r"<[^>]*>?", ours.sub("", text))]
    bad += re.findall(r"(?<![\\&#\w])@\w+", text)
    bad += re.findall(r"(?<!\\)\]\((?:https?:|#)", text)
    bad += [line for line in markdown.splitlines() if re.match(r"#+ (?!drift-audit|Blast)", line)]
    return bad


def test_a_dependents_member_names_cannot_write_markdown(tmp_path: Path, index: FakeIndex) -> None:
    """Item 15: a dependent's wheel holding a member named `x <img ...> @octocat [click](...)`
    (its RECORD hash wrong) put raw HTML, a mention and a link into the `error` cell."""
    dist = tmp_path / "dist"
    name = "mal/x <img src=x onerror=alert(1)> @octocat [click](https://evil.example) .py"
    index.add(wheel(dist, "mal", "1.0", {"mal/__init__.py": acme.CONSUMER},
                    extra=[Member.text(name, "y = 1\n")], tamper=name,
                    requires=["acme==0.1"]))  # fmt: skip
    result = eco(
        "--against", "acme==0.2", "--dependents", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "cache"), "--format", "markdown",
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # widget regressed; mal is an error row
    (row,) = [line for line in result.stdout.splitlines() if "mal==1.0" in line]
    assert "| error |" in row and "does not match" in row
    assert _markup_outside_ours(result.stdout) == []


def test_an_edited_store_row_cannot_write_markdown(
    tmp_path: Path, kept: tuple[Path, list[str], dict[str, Any]]
) -> None:
    """Item 15: a kept finding's `kind` edited to HTML and a heading landed raw in the
    release pull request's comment."""
    good, args, row = kept
    store = tmp_path / "store.sqlite"
    shutil.copy(good, store)
    with sqlite3.connect(store) as db:
        db.execute("UPDATE audits SET row = ?", (json.dumps(_edit(row, "a kind that is none")),))
    db.close()
    result = eco(*args, "--store", str(store), "--format", "markdown")
    assert result.exit_code == 1, result.output
    assert _markup_outside_ours(result.stdout) == []
    assert "unexpected-keyword" in result.stdout


def test_bidi_controls_and_pipes_in_a_spec_are_shown_not_obeyed(tmp_path: Path) -> None:
    """Item 15: the ecosystem HTML showed a U+202E in a consumer spec raw (the audit's HTML
    makes it visible); Markdown broke its table on a `|`. Every format, the same spec."""
    spec = "/nonexistent/abc\u202egpj.exe|x`y @octocat <b>"
    args = folder_run(tmp_path, spec)  # its row is an error: the report is written anyway
    shown = {fmt: eco(*args, "--format", fmt).stdout for fmt in ("text", "markdown", "html")}
    for fmt, text in shown.items():
        assert "\u202e" not in text, fmt
    assert "<b>" not in shown["html"] and "&lt;b&gt;" in shown["html"]
    markdown = shown["markdown"]
    (row,) = [line for line in markdown.splitlines() if "nonexistent" in line]
    assert len(re.split(r"(?<!\\)\|", row)) == 5, row  # three cells, none split by the spec
    assert _markup_outside_ours(markdown) == []
    assert "\\u202e" in shown["html"] and "\\u202e" in shown["text"]


# --------------------------------------------------------------------------- item 20: the list


def test_a_long_consumer_list_is_read_whole_and_rows_stay_narrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 20: reading --consumers was quadratic (100,000 lines: 331 s) and every text row
    was padded to the longest spec. 100,000 consumers (all kept in the store, so none is
    audited) plus one spec of 5,000 characters: every row is listed, and no short spec's row
    is padded to the long one. (Round four, item 7: a row is reused only for the consumer it
    was made from, which no index here can name: each is named `kept`.)"""
    from auditor import ecosystem

    monkeypatch.setattr(ecosystem, "_consumer_id", lambda spec, index: "kept")
    target, baseline = acme.folder_args(tmp_path)[1::2]
    specs = [f"p{i}==1.0" for i in range(100_000)] + ["q" * 5000 + "==1.0"]
    store = tmp_path / "store.sqlite"
    _keep_fixed(store, specs, target, baseline)
    consumers = listing(tmp_path, *specs, *specs[:10], "# a comment")  # repeats are listed once
    result = eco(
        "--against", target, "--baseline", baseline, "--consumers", str(consumers),
        "--store", str(store), "--cache-dir", str(tmp_path / "cache"), "--offline",
    )  # fmt: skip
    assert result.exit_code == 0, result.output[-2000:]
    lines = result.stdout.splitlines()
    assert f"outcomes: 0 regressed, 0 error, 0 still-broken, {len(specs)} fixed, 0 clean" in lines
    listed = [line for line in lines if line.startswith("  fixed ")]
    assert len(listed) == len(specs)
    assert all(line.endswith("1 baseline break repaired") for line in listed)
    assert max(len(line) for line in listed if "q" * 5000 not in line) < 100


def _keep_fixed(store: Path, specs: list[str], target: str, baseline: str) -> None:
    """Rows a finished run would have kept: each spec `fixed` (a row with a detail to
    show after its spec), nothing found; made from the folders `target` and `baseline`
    name, and a consumer named `kept`."""
    from auditor import ecosystem
    from auditor.sources import open_index
    from auditor.sources.identity import spec_identity

    ecosystem.Store(store).close()  # the schema, as the tool makes it
    index = open_index(None, store.parent / "cache", offline=True)
    made = [spec_identity(target, index), spec_identity(baseline, index), "kept"]
    index.close()
    with sqlite3.connect(store) as db:
        db.executemany(
            "INSERT INTO audits VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (spec, target, baseline, json.dumps(_fixed_row(spec, baseline)), 0.0, *made)
                for spec in specs
            ),
        )
    db.close()


def _fixed_row(spec: str, baseline: str) -> dict[str, Any]:
    name, _, version = spec.partition("==")
    return {
        "spec": spec, "name": name, "version": version, "baseline": baseline,
        "outcome": "fixed", "error": None, "findings": [], "fixed": ["f" * 32], "seconds": 0.5,
    }  # fmt: skip
