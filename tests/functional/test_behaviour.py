"""changed-default and changed-return, proven against the interpreter.

tests/behaviour/ holds a tiny provider `acme` at 0.1 and 0.2 whose defaults and declared
returns moved while every call still binds, and a consumer `widget/probes.py` whose
`probe_*` functions each do one thing with it. The test *runs* every probe in a subprocess
against both releases and records what it returned (or the exception that escaped). Then:

- drift-audit's findings are exactly the `# expect: kind` markers (new, at that line);
- for every probe not marked `# oracle: silent`, drift-audit reports a changed-default or
  changed-return in it exactly when its outcome differs between the releases: a near-miss
  (a default passed explicitly, a spelling-only annotation change, a sentinel default, a
  result not used) behaves the same and stays silent;
- `# oracle: silent` probes change outcome but are left alone by design (the result is only
  passed on; `**kwargs` may supply the default): the test checks they do change, so the
  marker is not hiding a probe that means nothing.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from auditor import audit
from auditor.kinds import Severity

ROOT = Path(__file__).resolve().parents[1] / "behaviour"
PROBES = ROOT / "consumer" / "widget" / "probes.py"
BEHAVIOURAL = {"changed-default", "changed-return"}
RUNNER = """
import importlib, json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
probes = importlib.import_module("widget.probes")
out = {}
for name in sorted(n for n in dir(probes) if n.startswith("probe_")):
    try:
        out[name] = repr(getattr(probes, name)())
    except Exception as exc:
        out[name] = type(exc).__name__
print(json.dumps(out))
"""


def _run(version: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(ROOT / "provider" / version), str(ROOT / "consumer")],
        capture_output=True,
        text=True,
        check=True,
    )
    outcome: dict[str, str] = json.loads(done.stdout)
    return outcome


def _probes() -> dict[str, tuple[int, int, str]]:
    """probe name -> (first line, last line, its source)."""
    text = PROBES.read_text(encoding="utf-8")
    lines = text.splitlines()
    return {
        node.name: (
            node.lineno,
            node.end_lineno or node.lineno,
            "\n".join(lines[node.lineno - 1 : node.end_lineno]),
        )
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("probe_")
    }


def _expected() -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(PROBES.read_text(encoding="utf-8").splitlines(), start=1):
        if match := re.search(r"# expect: ([a-z]+-[a-z-]+)", line):
            out.append((number, match.group(1)))
    return sorted(out)


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, str, str, str]]:
    report = audit(
        str(ROOT / "consumer" / "widget"),
        [f"acme @ {(ROOT / 'provider' / '0.2').as_uri()}"],
        baseline=f"acme @ {(ROOT / 'provider' / '0.1').as_uri()}",
        cache_dir=tmp_path_factory.mktemp("cache"),
        offline=True,
    )
    return sorted(
        (f.location.line, f.kind.slug, f.status.value, f.severity.value) for f in report.findings
    )


def test_the_findings_are_the_markers(findings: list[tuple[int, str, str, str]]) -> None:
    assert [(line, kind) for line, kind, _, _ in findings] == _expected()
    assert {status for _, _, status, _ in findings} == {"new"}


def test_each_probe_is_flagged_exactly_when_its_behaviour_changed(
    findings: list[tuple[int, str, str, str]],
) -> None:
    before, after = _run("0.1"), _run("0.2")
    disagreements = []
    for name, (first, last, source) in _probes().items():
        changed = before[name] != after[name]
        flagged = any(
            first <= line <= last and kind in BEHAVIOURAL for line, kind, _, _ in findings
        )
        if "# oracle: silent" in source:
            assert changed and not flagged, (
                f"{name}: an `oracle: silent` probe must change, unflagged"
            )
            continue
        if changed != flagged:
            disagreements.append(
                f"{name}: Python {before[name]} -> {after[name]}; flagged {flagged}"
            )
    assert disagreements == []


def test_shape_and_truth_changes_are_warnings_the_rest_info(
    findings: list[tuple[int, str, str, str]],
) -> None:
    text = PROBES.read_text(encoding="utf-8").splitlines()
    levels = {(text[line - 1].strip().split("(")[0], kind): sev for line, kind, _, sev in findings}
    warnings = {key for key, sev in levels.items() if sev == Severity.WARNING.value}
    # list -> int relied on as a container; strict False -> True, a bool flipped
    assert ("return acme.top_k", "changed-return") in warnings
    assert ("return acme.load", "changed-default") in warnings
    assert ("return acme.fetch", "changed-default") not in warnings  # 3 -> 5: info
    assert all(sev in ("warning", "info") for _, _, _, sev in findings)  # never an error


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown", "html", "gitlab"])
def test_both_kinds_reach_every_format_and_never_fail_the_gate(fmt: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from auditor.cli import cli

    args = [
        str(ROOT / "consumer" / "widget"),
        "--against", f"acme @ {(ROOT / 'provider' / '0.2').as_uri()}",
        "--baseline", f"acme @ {(ROOT / 'provider' / '0.1').as_uri()}",
        "--offline", "--cache-dir", str(tmp_path / "cache"), "--format", fmt,
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output  # warnings and info: --fail-on error passes
    assert "changed-default" in result.stdout and "changed-return" in result.stdout
    gated = CliRunner().invoke(cli, [*args, "--fail-on", "warning"])
    assert gated.exit_code == 1
    ignored = CliRunner().invoke(cli, [*args, "--ignore", "changed-default,changed-return"])
    assert ignored.exit_code == 0
    if fmt in ("text", "github", "markdown", "gitlab"):  # named only where it says so
        lines = ignored.stdout.splitlines()
        shown = "\n".join(line for line in lines if "kinds left out by" not in line)
        assert "changed-default" not in shown and "changed-return" not in shown
        assert len(shown) < len(ignored.stdout)  # the note that they were left out
    if fmt == "json":
        assert json.loads(ignored.stdout)["findings"] == []
