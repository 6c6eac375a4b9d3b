"""The console script leaves an audit without the interpreter's teardown (auditor.cli.script):
what it prints, writes and exits with is what a normal exit gives.

A scratch project (tests/scratch.py: provider acme 0.1 -> 0.2, local folders, offline) is
audited by the installed `drift-audit` script and by `python -m auditor`, each with and
without DRIFT_AUDIT_NO_FAST_EXIT=1, in subprocesses: the same exit status, the same report
on stdout and in the `-o` file, the same stderr. A run that cannot audit (exit 2) and one
whose stdout is closed early (a pipe to `head`) behave as before too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.scratch import Project, make_project

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

BREAK = "import acme\n\n\ndef work(model):\n    acme.stop(model, reason='done')\n"
SCRIPT = Path(sys.executable).with_name("drift-audit")
COMMANDS = {"script": [str(SCRIPT)], "module": [sys.executable, "-m", "auditor"]}


@pytest.fixture
def project(
    tmp_path: Path,
    make_tree: Callable[[Path, Mapping[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Project:
    return make_project(
        tmp_path, make_tree, monkeypatch,
        folder="proj", name="widget", files={"widget/__init__.py": "", "widget/jobs.py": BREAK},
        replays=False,
    )  # fmt: skip


def run(project: Project, command: str, *args: str, fast: bool) -> subprocess.CompletedProcess[str]:
    argv = [*COMMANDS[command], *args, "--offline", "--cache-dir", str(project.cache)]
    return subprocess.run(argv, cwd=project.root, env=env(fast), capture_output=True, text=True)


def env(fast: bool) -> dict[str, str]:
    """This environment, with the fast exit on (the default) or switched off."""
    kept = {k: v for k, v in os.environ.items() if k != "DRIFT_AUDIT_NO_FAST_EXIT"}
    return kept if fast else {**kept, "DRIFT_AUDIT_NO_FAST_EXIT": "1"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_audit_prints_writes_and_exits_as_a_normal_exit_does(
    project: Project, command: str
) -> None:
    if command == "script" and not SCRIPT.is_file():
        pytest.skip(f"{SCRIPT} is not installed")
    run(project, command, "--format", "json", fast=False)  # both compared runs are warm
    outcomes = []
    report = project.root / "report.sarif"
    for fast in (True, False):
        printed = run(project, command, "--format", "json", fast=fast)
        written = run(project, command, "--format", "sarif", "-o", str(report), fast=fast)
        seen = (printed.returncode, _steady(printed.stdout), _steady(printed.stderr))
        kept = (written.returncode, written.stdout, _steady(written.stderr))
        outcomes.append((*seen, *kept, _steady(report.read_text())))
    assert outcomes[0] == outcomes[1]
    status, stdout, _, written_status, nothing, _, sarif = outcomes[0]
    assert (status, written_status, nothing) == (1, 1, "")
    assert '"kind": "unexpected-keyword"' in stdout
    assert '"ruleId": "unexpected-keyword"' in sarif
    assert sarif.rstrip().endswith("}")


def _steady(text: str) -> str:
    """A report, or the summary on stderr, without what changes from one run to the next:
    how long it took (`"seconds": 0.03` in a report, `in 0.03s)` in the summary)."""
    text = re.sub(r'"(seconds|startTimeUtc|endTimeUtc)": [^,\n]+', r'"\1": _', text)
    return re.sub(r"\bin \d+(?:\.\d+)?s\)", "in _s)", text)


def test_a_run_that_cannot_audit_says_so_and_exits_2_either_way(project: Project) -> None:
    args = ("nothing-here==9", "--against", "acme==0.2")  # a release from the index: no settings
    outcomes = [run(project, "module", *args, fast=fast) for fast in (True, False)]
    assert [(o.returncode, o.stdout, o.stderr) for o in outcomes] == [
        (2, "", outcomes[1].stderr)
    ] * 2
    assert "error" in outcomes[0].stderr and "Traceback" not in outcomes[0].stderr


def test_stdout_closed_early_exits_as_before(project: Project) -> None:
    statuses = []
    for fast in (True, False):
        argv = [*COMMANDS["module"], "--format", "json", "--offline"]
        argv += ["--cache-dir", str(project.cache)]
        audit = subprocess.Popen(
            argv, cwd=project.root, env=env(fast), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert audit.stdout is not None and audit.stderr is not None
        audit.stdout.close()  # nobody reads the report
        stderr = audit.stderr.read().decode()
        audit.stderr.close()
        statuses.append((audit.wait(timeout=60), "Traceback" in stderr))
    assert statuses[0] == statuses[1]


@pytest.mark.parametrize(("args", "paused"), [(["widget"], True), (["cache", "info"], False)])
def test_the_collector_is_paused_for_an_audit_up_to_the_exit_and_restored_without_it(
    monkeypatch: pytest.MonkeyPatch, args: list[str], paused: bool
) -> None:
    """An audit command runs with the cyclic collector off and what was alive frozen, so
    that its end pays for no collection the fast exit makes pointless; when the exit cannot
    be fast the collector is back as it was. `cache` and `ecosystem` leave it alone."""
    import gc

    import auditor.cli as cli

    seen: list[tuple[bool, bool]] = []

    def main(argv: list[str]) -> None:
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        raise SystemExit(0)

    monkeypatch.setattr(cli, "main", main)
    monkeypatch.setattr(sys, "argv", ["drift-audit", *args])
    monkeypatch.setenv("DRIFT_AUDIT_NO_FAST_EXIT", "1")
    monkeypatch.delenv("DRIFT_AUDIT_NO_GC_PAUSE", raising=False)
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with pytest.raises(SystemExit) as done:
        cli.script()
    assert done.value.code == 0
    assert seen == [(not paused, paused or frozen > 0)]
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_collection_in_a_pause_frees_cycles_and_leaves_a_running_collector_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc
    import weakref

    from auditor.collector import collect_in_pause, collector_paused

    class Node:
        pass

    def cycle() -> weakref.ref[Node]:
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        return weakref.ref(a)

    monkeypatch.delenv("DRIFT_AUDIT_NO_GC_PAUSE", raising=False)
    with collector_paused():
        gone = cycle()
        assert gone() is not None  # garbage in a cycle, kept while the collector is off
        assert collect_in_pause() >= 2
        assert gone() is None
    assert gc.isenabled()
    assert collect_in_pause() == 0  # the collector on: it collects by itself
