"""--diff, --fix and --unsafe-fixes, proven by running the fixed code.

tests/fixes/ holds a tiny provider `acme` at 0.1 and 0.2 and a consumer `widget/probes.py`
whose `probe_*` functions each exercise one repair; the line at fault says what must happen:
`# fix: safe` (--fix repairs it), `# fix: unsafe` (only --unsafe-fixes), `# fix: none`
(nothing mechanical repairs it: a new required parameter gets no invented value). Every probe
runs in a subprocess against acme 0.2, with DeprecationWarning as an error, before and after
the fix: a probe with safe repairs must fail before and succeed after, and the re-audit of the
fixed tree must report nothing on a repaired line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from auditor.cli import cli

ROOT = Path(__file__).resolve().parents[1] / "fixes"
PROVIDER = ROOT / "provider"
RUNNER = """
import importlib, json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
probes = importlib.import_module("widget.probes")
out = {}
for name in sorted(n for n in dir(probes) if n.startswith("probe_")):
    try:
        getattr(probes, name)()
        out[name] = "ok"
    except Exception as exc:
        out[name] = type(exc).__name__
print(json.dumps(out))
"""


def run_probes(consumer: Path, version: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", RUNNER,
         str(PROVIDER / version), str(consumer)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    outcome: dict[str, str] = json.loads(done.stdout)
    return outcome


def markers(probes: Path) -> dict[int, str]:
    """line -> safe / unsafe / none."""
    out = {}
    for number, line in enumerate(probes.read_text(encoding="utf-8").splitlines(), start=1):
        if match := re.search(r"(?<!`)# fix: (safe|unsafe|none)\b", line):
            out[number] = match.group(1)
    return out


def probe_of_line(probes: Path) -> dict[int, str]:
    current, out = "", {}
    for number, line in enumerate(probes.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("def probe_"):
            current = line.split("(")[0].removeprefix("def ")
        out[number] = current
    return out


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    copy = tmp_path / "consumer"
    shutil.copytree(ROOT / "consumer", copy)
    return copy


def audit(consumer: Path, tmp_path: Path, *args: str) -> Result:
    argv = [
        str(consumer / "widget"),
        "--against", f"acme @ {(PROVIDER / '0.2').as_uri()}",
        "--baseline", f"acme @ {(PROVIDER / '0.1').as_uri()}",
        "--offline", "--cache-dir", str(tmp_path / "cache"), *args,
    ]  # fmt: skip
    return CliRunner().invoke(cli, argv)


def test_every_probe_works_at_the_baseline_and_fails_at_the_target() -> None:
    assert set(run_probes(ROOT / "consumer", "0.1").values()) == {"ok"}
    assert "ok" not in run_probes(ROOT / "consumer", "0.2").values()


def test_fix_repairs_the_safe_ones_and_the_code_then_runs(consumer: Path, tmp_path: Path) -> None:
    probes = consumer / "widget" / "probes.py"
    marks, owner = markers(probes), probe_of_line(probes)
    result = audit(consumer, tmp_path, "--fix", "--format", "json")
    assert result.exit_code == 1, result.output  # what is left: unsafe and unfixable ones
    # 5 fixes applied, 5 findings gone (the keyword-only call is one finding: one cause);
    # unsafe: the guessed renames (window -> size, iter -> epochs)
    assert "fixed 5 findings in 1 file; 2 unsafe fixes not applied" in result.stderr
    left = json.loads(result.stdout)["findings"]
    after = run_probes(consumer, "0.2")
    safe_probes = {owner[n] for n, kind in marks.items() if kind == "safe"}
    other_probes = {owner[n] for n, kind in marks.items() if kind != "safe"}
    assert {p: after[p] for p in safe_probes} == dict.fromkeys(safe_probes, "ok")
    assert all(after[p] == "TypeError" for p in other_probes)
    # the re-audit reports only the lines nothing safe repairs (lines as in the fixed file)
    fixed_marks = markers(probes)
    left_lines = {f["line"] for f in left if f["status"] == "new"}
    assert {fixed_marks.get(line) for line in left_lines} == {"unsafe", "none"}


def test_unsafe_fixes_are_applied_only_when_asked(consumer: Path, tmp_path: Path) -> None:
    result = audit(consumer, tmp_path, "--fix", "--unsafe-fixes")
    assert result.exit_code == 1  # the new required parameter stays a finding
    assert "error[missing-argument] acme.plan() now requires argument 'budget'" in result.stdout
    after = run_probes(consumer, "0.2")
    # a keyword gone with a value that is not its old default is never dropped: the call
    # still fails rather than running with another behaviour
    assert {p: outcome for p, outcome in after.items() if outcome != "ok"} == {
        "probe_new_required_parameter": "TypeError",
        "probe_removed_keyword_with_a_value": "TypeError",
    }
    # the rename in its own slot is a rename: the call trains 3 epochs, as it asked
    assert "acme.train([1], 50, epochs=3)" in probes_text(consumer)


def probes_text(consumer: Path) -> str:
    return (consumer / "widget" / "probes.py").read_text(encoding="utf-8")


def test_diff_shows_the_fixes_and_changes_nothing(consumer: Path, tmp_path: Path) -> None:
    probes = consumer / "widget" / "probes.py"
    before = probes.read_bytes()
    result = audit(consumer, tmp_path, "--diff")
    assert result.exit_code == 1  # as the audit's
    assert probes.read_bytes() == before
    diff = result.stdout
    assert diff.startswith("--- a/widget/probes.py\n+++ b/widget/probes.py\n")
    assert "+    from acme.utils.math import cdiv\n" in diff
    assert "+    from acme.utils.math import cdiv as ceil_div  # fix: safe" in diff
    assert '+    return acme.build("m", block=16, dtype="auto")  # fix: safe' in diff
    assert '+    return acme.start("job", deadline=5)' in diff
    assert "+    trained = acme.train([1], 50, epochs=3)" not in diff
    unsafe = audit(consumer, tmp_path, "--diff", "--unsafe-fixes").stdout
    assert "+    trained = acme.train([1], 50, epochs=3)  # fix: unsafe" in unsafe
    assert '+    return acme.run("m")' not in unsafe  # verbose=True is never dropped
    assert "+    return acme.stream([1, 2], size=8)" in unsafe


def test_reports_carry_each_fix(consumer: Path, tmp_path: Path) -> None:
    data = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)
    fixes = {(f["line"], f["kind"]): f.get("fix") for f in data["findings"]}
    marks = markers(consumer / "widget" / "probes.py")
    for (line, kind), fix in fixes.items():
        expected = marks.get(line)
        if kind == "missing-argument":
            assert fix is None  # never invented (the keyword-only one is fixed by its own)
        elif expected in ("safe", "unsafe"):
            assert fix is not None and fix["safe"] is (expected == "safe"), (line, kind)
    sarif = json.loads(audit(consumer, tmp_path, "--format", "sarif").stdout)
    with_fixes = [r for r in sarif["runs"][0]["results"] if "fixes" in r]
    change = with_fixes[0]["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "widget/probes.py"
    assert {"deletedRegion", "insertedContent"} <= set(change["replacements"][0])
    schema = Path(__file__).resolve().parents[3] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
    if schema.is_file():  # the SARIF 2.1.0 schema, where this checkout has it
        import jsonschema

        document = json.loads(schema.read_text(encoding="utf-8"))
        validator = jsonschema.validators.validator_for(document)(document)
        assert sorted(str(e.message) for e in validator.iter_errors(sarif)) == []
    html = audit(consumer, tmp_path, "--format", "html").stdout
    assert "Proposed fix (safe: --fix applies it)" in html


def test_fix_needs_a_folder_and_an_unchanged_file(consumer: Path, tmp_path: Path) -> None:
    from auditor import pipeline
    from auditor.errors import AuditError
    from auditor.fixfiles import fixed_files

    report = pipeline.audit(
        str(consumer / "widget"),
        [f"acme @ {(PROVIDER / '0.2').as_uri()}"],
        baseline=f"acme @ {(PROVIDER / '0.1').as_uri()}",
        offline=True,
        cache_dir=tmp_path / "cache",
        fixes=True,
    )
    probes = consumer / "widget" / "probes.py"
    probes.write_text(probes.read_text() + "\n# edited after the audit\n")
    with pytest.raises(AuditError, match="changed since it was audited; nothing was written"):
        fixed_files(report, unsafe=False, option="--fix")
    from dataclasses import replace

    elsewhere = replace(report, consumer=replace(report.consumer, root=None))
    with pytest.raises(AuditError, match="works on a folder consumer"):
        fixed_files(elsewhere, unsafe=False, option="--fix")


# --------------------------------------------------------------------------- kept proposals

WARM_RUN = """
import sys
from auditor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("libcst imported" if "libcst" in sys.modules else "libcst not imported", file=sys.stderr)
"""


def test_kept_proposals_are_the_ones_made_again(
    consumer: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fixkeep.py: a warm run reads the proposals back (no libcst), and they are what
    fixes.py makes afresh, field for field."""
    monkeypatch.delenv("DRIFT_AUDIT_NO_FIX_KEEP", raising=False)
    cold = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)["findings"]
    assert any("fix" in f for f in cold)
    argv = [
        str(consumer / "widget"), "--against", f"acme @ {(PROVIDER / '0.2').as_uri()}",
        "--baseline", f"acme @ {(PROVIDER / '0.1').as_uri()}", "--offline",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    ]  # fmt: skip
    warm = subprocess.run(
        [sys.executable, "-c", WARM_RUN, *argv], capture_output=True, text=True, check=True
    )
    assert "libcst not imported" in warm.stderr, warm.stderr
    assert json.loads(warm.stdout)["findings"] == cold
    monkeypatch.setenv("DRIFT_AUDIT_NO_FIX_KEEP", "1")
    fresh = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)["findings"]
    assert fresh == cold


def test_an_edited_file_gets_its_own_proposals(consumer: Path, tmp_path: Path) -> None:
    """A kept proposal is for one text: after an edit the edits follow the new lines."""
    before = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)["findings"]
    probes = consumer / "widget" / "probes.py"
    probes.write_text("# one more line\n" + probes.read_text(encoding="utf-8"), encoding="utf-8")
    after = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)["findings"]
    old = [e["line"] for f in before if "fix" in f for e in f["fix"]["edits"]]
    new = [e["line"] for f in after if "fix" in f for e in f["fix"]["edits"]]
    assert old and new == [line + 1 for line in old]
    result = audit(consumer, tmp_path, "--fix", "--format", "json")
    assert "fixed 5 findings in 1 file" in result.stderr  # the kept digest is the new text's


def test_proposals_not_kept_are_made_without_libcst(consumer: Path, tmp_path: Path) -> None:
    """fixtext.py: a run whose proposals are not kept (cold, or a file edited) makes the
    plain ones from the text, imports no libcst, and gives what fixes.py gives."""
    argv = [
        str(consumer / "widget"), "--against", f"acme @ {(PROVIDER / '0.2').as_uri()}",
        "--baseline", f"acme @ {(PROVIDER / '0.1').as_uri()}", "--offline",
        "--cache-dir", str(tmp_path / "cache"), "--format", "json",
    ]  # fmt: skip
    env = {**os.environ, "DRIFT_AUDIT_NO_FIX_KEEP": "1", "DRIFT_AUDIT_NO_REPLAY": "1"}
    made = subprocess.run(
        [sys.executable, "-c", WARM_RUN, *argv], capture_output=True, text=True, env=env
    )
    assert "libcst not imported" in made.stderr, made.stderr
    by_text = json.loads(made.stdout)["findings"]
    assert sum(1 for f in by_text if "fix" in f) == 7
    from auditor import fixtext

    def every_file_to_libcst(*_: object) -> None:
        return None

    original = fixtext.file_fixes
    fixtext.file_fixes = every_file_to_libcst  # type: ignore[assignment]
    try:
        by_tree = json.loads(audit(consumer, tmp_path, "--format", "json").stdout)["findings"]
    finally:
        fixtext.file_fixes = original
    assert by_text == by_tree
