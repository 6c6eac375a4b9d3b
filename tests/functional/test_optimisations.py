"""Each speed-up keeps the report: findings with it and without it are the same, field for field.

The switches (each an environment variable that turns one optimisation off):

- DRIFT_AUDIT_NO_SCAN_CACHE: the consumer scan kept in the cache under a key of every file's
  text (scan/store.py), read back on a warm run;
- DRIFT_AUDIT_NO_GC_PAUSE: Python's cyclic collector paused during the audit (pipeline.py);
- DRIFT_AUDIT_NO_MEMO_INDEX: memo entries found by their dependency digests, not compared
  one by one (provider/memo.py), and each release's answers and file digests kept for the
  run (pipeline.py);
- DRIFT_AUDIT_NO_OWN_BFS: the call graph's shortest chains found without networkx (graph.py);
- DRIFT_AUDIT_NO_MEMO: the lookup memo itself (older than these; compared too);
- DRIFT_AUDIT_NO_CLASS_SOURCES: a provider class's source read once for the names it
  assigns to `self` (provider/members.py), not searched and parsed again for every name;
- DRIFT_AUDIT_NO_LEAN_RESULTS: how a call's result is used read in one pass looking down
  (scan/results.py), not through a map of every node's parent;
- DRIFT_AUDIT_NO_FACTS_KEEP: each file's walk kept (scan/keptfacts.py), so that a scan that
  is not kept whole walks only the files whose facts are not kept;
- DRIFT_AUDIT_NO_INCREMENT: an edited consumer's results made again only for the files that
  changed, when no other file's can change (scan/increment.py).

For every fixture case: a cold run and a warm run with everything on, against a run with
everything off and one with each switch off alone, the JSON findings (the `findings` of the
JSON report: every field, `reached_from` chains and source excerpts included) compared.
tests/realworld/compare_optimisations.py does the same over the real-world corpus.
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING, Any

from auditor.reporters import json_report

if TYPE_CHECKING:
    from pathlib import Path

    import pytest
    from conftest import DriftCase

SWITCHES = (
    "DRIFT_AUDIT_NO_SCAN_CACHE",
    "DRIFT_AUDIT_NO_GC_PAUSE",
    "DRIFT_AUDIT_NO_MEMO_INDEX",
    "DRIFT_AUDIT_NO_OWN_BFS",
    "DRIFT_AUDIT_NO_MEMO",
    "DRIFT_AUDIT_NO_CLASS_SOURCES",
    "DRIFT_AUDIT_NO_LEAN_RESULTS",
    "DRIFT_AUDIT_NO_FACTS_KEEP",
    "DRIFT_AUDIT_NO_INCREMENT",
)


def _findings(case: DriftCase, cache: Path) -> list[dict[str, Any]]:
    document = json.loads(json_report.render(case.audit(cache_dir=cache)))
    return list(document["findings"])


def _without(monkeypatch: pytest.MonkeyPatch, switches: tuple[str, ...]) -> None:
    for name in SWITCHES:
        monkeypatch.delenv(name, raising=False)
    for name in switches:
        monkeypatch.setenv(name, "1")


def test_every_optimisation_keeps_the_findings(
    drift_case: DriftCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, SWITCHES)
    plain = _findings(drift_case, tmp_path / "plain")
    _without(monkeypatch, ())
    cold = _findings(drift_case, tmp_path / "fast")
    warm = _findings(drift_case, tmp_path / "fast")
    assert cold == plain
    assert warm == plain
    assert _forget_kept_scans(tmp_path / "fast")
    assert _findings(drift_case, tmp_path / "fast") == plain  # every file's facts read back
    for switch in SWITCHES:
        _without(monkeypatch, (switch,))
        assert _findings(drift_case, tmp_path / "fast") == plain, switch


def test_an_edited_consumer_file_is_scanned_again(
    all_drift_cases: list[DriftCase], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept scan is never reused for a changed file: the edit shows in the findings."""
    case = all_drift_cases[0]
    _without(monkeypatch, ())
    shutil.copytree(case.consumer.parent, tmp_path / "consumer")
    package = tmp_path / "consumer" / case.consumer.name
    before = _audit_folder(case, package, tmp_path / "cache")
    first = sorted(package.rglob("*.py"))[0]
    first.write_text(first.read_text(encoding="utf-8") + "\nimport acme.gone_for_the_test\n")
    after = _audit_folder(case, package, tmp_path / "cache")
    _without(monkeypatch, SWITCHES)
    assert after == _audit_folder(case, package, tmp_path / "plain")
    assert after != before


def test_an_edit_that_moves_lines_gives_the_findings_of_a_plain_run(
    all_drift_cases: list[DriftCase], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every case's consumer audited, then one file of it moved two lines down and given
    one more line (what an edited consumer's scan makes again by file, scan/increment.py):
    the findings are a plain run's, field for field, locations and excerpts included."""
    for case in all_drift_cases:
        _without(monkeypatch, ())
        folder = tmp_path / case.name
        shutil.copytree(case.consumer.parent, folder / "consumer")
        package = folder / "consumer" / case.consumer.name
        _audit_folder(case, package, folder / "cache")
        first = max(package.rglob("*.py"), key=lambda p: p.stat().st_size)
        first.write_text("\n\n" + first.read_text(encoding="utf-8") + "\n# edited\n")
        after = _audit_folder(case, package, folder / "cache")
        _without(monkeypatch, SWITCHES)
        assert after == _audit_folder(case, package, folder / "plain"), case.name


def _forget_kept_scans(cache: Path) -> int:
    """Remove the kept scans (not each file's kept facts); how many were there."""
    kept = list(cache.glob("scan/*/*.json"))
    for path in kept:
        path.unlink()
    return len(kept)


def _audit_folder(case: DriftCase, package: Path, cache: Path) -> list[dict[str, Any]]:
    from auditor.pipeline import audit

    report = audit(
        consumer=str(package),
        against=[case.spec("0.2")],
        baseline=case.spec("0.1") if case.baseline else None,
        cache_dir=cache,
        offline=True,
    )
    return list(json.loads(json_report.render(report))["findings"])
