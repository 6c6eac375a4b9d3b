"""A run replayed (auditor/replay.py): the same question on the same inputs is answered with
the earlier run's report, and never when anything it rested on may have changed.

The consumer `widget` 1.0 and the provider `acme` 0.1/0.2 are wheels on a fake index on
loopback (tests/trust); `widget` calls `acme.run(1, old=5)`, which Python refuses against
0.2 (`test_the_fixture_breaks_as_the_interpreter_says` in test_trust_files.py). Each replay
is compared with the run it replays, format by format (only the run's own seconds and the
`replayed` flag may differ), and its findings with those of a run made with replays off.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import TYPE_CHECKING

import pytest

from auditor import replay
from auditor.reporters import FORMATS
from tests.trust import acme, machine
from tests.trust.archives import wheel
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from click.testing import Result

    from tests.trust.fakeindex import FakeIndex

CONSUMER = {"widget/__init__.py": acme.CONSUMER}
UNUSED = {"widget/__init__.py": acme.CONSUMER + "x = 1  # drift-audit: ignore[removed]\n"}
_STATS = re.compile(r"call site|provider module|\d+ files?\b")  # lines that tell a run's work


def comparable(output: str) -> object:
    """A report without what tells one run's work from another's (its stats): what a replay
    must show exactly as the run it replays."""
    try:
        document = json.loads(output)
    except ValueError:
        return [line for line in output.splitlines() if not _STATS.search(line)]
    if isinstance(document, dict):
        document.pop("stats", None)
    return document


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)
    monkeypatch.delenv(replay.SWITCH, raising=False)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    def more(dist: Path) -> list[Path]:
        return [
            wheel(dist, "acme", "0.3", acme.NEW, extra=[acme.PADDING]),
            wheel(dist, "widget", "1.0", CONSUMER, requires=["acme>=0.1"]),
            wheel(dist, "widget", "2.0", UNUSED, requires=["acme>=0.1"]),
        ]

    with acme.ranged_index(tmp_path, monkeypatch, more) as fake:
        yield fake


def run(index: FakeIndex, cache: Path, *extra: str, consumer: str = "widget==1.0") -> Result:
    return invoke(
        consumer, "--against", "acme==0.2", "--baseline", "0.1", "--index-url", index.url,
        "--cache-dir", str(cache), *extra,
    )  # fmt: skip


def stats(result: Result) -> dict[str, object]:
    assert result.exit_code == 1, (result.exit_code, result.output, result.exception)
    report = json.loads(result.stdout)
    assert [(f["kind"], f["line"]) for f in report["findings"]] == [acme.BREAK]
    found: dict[str, object] = report["stats"]
    return found


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_replay_says_what_a_run_says(
    tmp_path: Path, index: FakeIndex, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = run(index, cache, "--format", fmt)
    asked = len(index.requests)
    again = run(index, cache, "--format", fmt)
    assert len(index.requests) == asked  # nothing asked of the index
    monkeypatch.setenv(replay.SWITCH, "1")
    fresh = run(index, cache, "--format", fmt)
    for result in (first, again, fresh):
        assert result.exit_code == 1, (result.output, result.exception)
    assert comparable(again.stdout) == comparable(first.stdout)  # the run it replays
    assert again.stderr == first.stderr == fresh.stderr
    fresh_findings = json.loads(run(index, cache, "--format", "json").stdout)["findings"]
    monkeypatch.delenv(replay.SWITCH)
    assert json.loads(run(index, cache, "--format", "json").stdout)["findings"] == fresh_findings
    if fmt == "text":
        assert "replayed in" in again.stdout and "replayed in" not in fresh.stdout


def test_json_says_it_was_replayed_and_what_this_run_did(tmp_path: Path, index: FakeIndex) -> None:
    cache = tmp_path / "cache"
    cold = stats(run(index, cache, "--format", "json"))
    warm = stats(run(index, cache, "--format", "json"))
    assert cold["replayed"] is False and warm["replayed"] is True
    assert cold["requests"] and cold["bytes_fetched"] and cold["provider_modules_loaded"]
    assert warm["requests"] == warm["bytes_fetched"] == warm["provider_modules_loaded"] == 0
    assert (warm["files_scanned"], warm["call_sites"]) == (
        cold["files_scanned"],
        cold["call_sites"],
    )


def test_the_files_a_run_writes_are_written_by_its_replay(tmp_path: Path, index: FakeIndex) -> None:
    cache = tmp_path / "cache"
    out = tmp_path / "out"
    out.mkdir()
    args = (
        "--format",
        "sarif",
        "-o",
        str(out / "r.sarif"),
        "--write-baseline",
        str(out / "b.json"),
    )
    assert run(index, cache, *args).exit_code == 1
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    for path in out.iterdir():
        path.unlink()
    result = run(index, cache, *args)
    assert result.exit_code == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == written
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False  # another question


def test_another_question_is_not_replayed(tmp_path: Path, index: FakeIndex) -> None:
    cache = tmp_path / "cache"
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False
    assert stats(run(index, cache, "--format", "json", "--fail-on", "info"))["replayed"] is False
    assert stats(run(index, cache, "--format", "json", "--fail-on", "info"))["replayed"] is True
    result = run(index, cache, "--format", "json", "--fail-on", "never")
    assert result.exit_code == 0 and json.loads(result.stdout)["stats"]["replayed"] is False


def test_a_cache_record_replaced_since_is_no_replay(tmp_path: Path, index: FakeIndex) -> None:
    """Another run replaces what the kept run read (here the project page it resolved
    with): the next run audits again."""
    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    page = next((cache / "pages").rglob("acme.json"))
    page.write_bytes(page.read_bytes())  # the same text, another file
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False
    assert stats(run(index, cache, "--format", "json"))["replayed"] is True


def test_another_release_fetched_since_leaves_the_replay(tmp_path: Path, index: FakeIndex) -> None:
    """Fetching acme 0.3 rewrites acme's trees index.json; the entries the kept run used
    (0.1 and 0.2) are the same, so it is still a replay. Another tree for 0.2 is not."""
    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    other = invoke(
        "widget==1.0", "--against", "acme==0.3", "--baseline", "0.1", "--index-url", index.url,
        "--cache-dir", str(cache), "--format", "json",
    )  # fmt: skip
    assert other.exit_code == 1, other.output
    (listing,) = (cache / "trees").glob("*/acme/index.json")
    assert sorted(json.loads(listing.read_text())) == ["0.1", "0.2", "0.3"]
    assert stats(run(index, cache, "--format", "json"))["replayed"] is True
    moved = json.loads(listing.read_text())
    moved["0.2"] = moved["0.3"]
    listing.write_text(json.dumps(moved))
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False


def test_pages_past_their_freshness_are_no_replay(tmp_path: Path, index: FakeIndex) -> None:
    """The baseline inferred from widget's `acme>=0.1` reads acme's page: the replay holds
    only while that page would be reused."""
    cache = tmp_path / "cache"

    def inferred() -> Result:
        return invoke(
            "widget==1.0", "--against", "acme==0.2", "--index-url", index.url,
            "--cache-dir", str(cache), "--format", "json",
        )  # fmt: skip

    stats(inferred())
    assert stats(inferred())["replayed"] is True
    (entry,) = [
        p for p in (cache / replay.FOLDER).iterdir() if json.loads(p.read_text())["fresh_until"]
    ]
    kept = json.loads(entry.read_text())
    kept["fresh_until"] = 1.0
    entry.write_text(json.dumps(kept))
    assert stats(inferred())["replayed"] is False


def test_other_code_is_no_replay(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    monkeypatch.setattr(replay, "code_stamp", lambda: "another build")
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False


def test_a_run_that_warned_is_not_kept(tmp_path: Path, index: FakeIndex) -> None:
    """widget 2.0 has an unused suppression: every run warns of it, replays could not."""
    cache = tmp_path / "cache"
    for _ in range(2):
        result = run(index, cache, "--format", "json", consumer="widget==2.0")
        assert "suppresses nothing" in result.stderr or "unused" in result.stderr, result.stderr
        assert stats(result)["replayed"] is False


def aged(root: Path, seconds: float = 60.0) -> Path:
    """Every file under `root` last changed `seconds` ago (a checkout made a while back)."""
    when = time.time() - seconds
    for path in [root, *root.rglob("*")]:
        os.utime(path, (when, when), follow_symlinks=False)
    return root


def folder_run(index: FakeIndex, cache: Path, project: Path) -> dict[str, object]:
    return stats(run(index, cache, "--format", "json", consumer=str(project / "widget")))


def test_a_folder_consumer_is_replayed_until_a_file_it_reads_changes(
    tmp_path: Path, index: FakeIndex
) -> None:
    cache = tmp_path / "cache"
    project = aged(acme.consumer(tmp_path / "project", extra={"pyproject.toml": ""}))
    assert folder_run(index, cache, project)["replayed"] is False
    assert folder_run(index, cache, project)["replayed"] is True
    (project / "README.md").write_text("not read by the audit\n", encoding="utf-8")
    assert folder_run(index, cache, project)["replayed"] is True
    edits = {
        "a module edited": ("widget/__init__.py", acme.CONSUMER + "\n\ny = 2\n"),
        "a module added": ("widget/more.py", "import acme\n"),
        "the project file above": ("pyproject.toml", "[project]\nname = 'widget'\n"),
        "metadata beside": ("widget.egg-info/PKG-INFO", "Metadata-Version: 2.1\nName: widget\n"),
    }
    for what, (rel, text) in edits.items():
        (project / rel).parent.mkdir(exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
        aged(project)
        assert folder_run(index, cache, project)["replayed"] is False, what
        assert folder_run(index, cache, project)["replayed"] is True, what


def test_a_folder_just_changed_or_with_a_link_is_not_kept(tmp_path: Path, index: FakeIndex) -> None:
    """A file changed in the seconds before the run could change again unseen (same mtime):
    not kept, as git's racily clean rule. A link could lead elsewhere later: not kept."""
    cache = tmp_path / "cache"
    fresh = acme.consumer(tmp_path / "fresh")
    for _ in range(2):
        assert folder_run(index, cache, fresh)["replayed"] is False
    linked = acme.consumer(tmp_path / "linked")
    (linked / "notes.txt").write_text("notes\n", encoding="utf-8")
    (linked / "widget" / "notes.txt").symlink_to(linked / "notes.txt")
    aged(linked)
    for _ in range(2):
        assert folder_run(index, cache, linked)["replayed"] is False


def test_the_switch_and_a_damaged_entry(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    for entry in (cache / replay.FOLDER).iterdir():
        entry.write_bytes(b'{"format": 1, "key": "')
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False
    monkeypatch.setenv(replay.SWITCH, "1")
    assert stats(run(index, cache, "--format", "json"))["replayed"] is False


def test_fix_diff_and_debug_runs_are_never_replayed(tmp_path: Path, index: FakeIndex) -> None:
    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    result = run(index, cache, "--format", "json", "--debug")
    assert stats(result)["replayed"] is False and "stage checking" in result.stderr


REPLAY_RUN = """
import sys
from auditor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in ("griffe", "libcst", "auditor.pipeline", "auditor.scan.walker")
               if m in sys.modules)
print("imported: " + ",".join(heavy), file=sys.stderr)
"""


def test_a_replay_imports_neither_the_pipeline_nor_griffe(tmp_path: Path, index: FakeIndex) -> None:
    """What makes a replay cheap: the report is read back and rendered; nothing that
    resolves, scans or parses is imported (checked in a fresh interpreter)."""
    import subprocess
    import sys

    cache = tmp_path / "cache"
    stats(run(index, cache, "--format", "json"))
    argv = ["widget==1.0", "--against", "acme==0.2", "--baseline", "0.1", "--index-url",
            index.url, "--cache-dir", str(cache), "--format", "json"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != replay.SWITCH}
    done = subprocess.run(
        [sys.executable, "-c", REPLAY_RUN, *argv], capture_output=True, text=True, env=env
    )
    assert json.loads(done.stdout)["stats"]["replayed"] is True, done.stderr
    assert "imported: \n" in done.stderr, done.stderr
