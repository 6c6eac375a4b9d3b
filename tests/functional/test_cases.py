"""The fixture corpus: every folder of tests/cases/ audited, its findings checked against markers.

Each case pairs two versions of a tiny provider `acme` with a consumer `widget` whose comments
say which lines must be flagged (`# expect: slug`, `# expect-preexisting: slug`) and which
look risky but must stay silent (`# near-miss`). tests/cases/README.md has the details; the
harness itself is `DriftCase` in tests/conftest.py.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import DriftCase

# The kinds that gate a merge (plus `unparsable`): each must be exercised by some case.
EXERCISED_KINDS = (
    "removed-module",
    "removed-symbol",
    "unexpected-keyword",
    "missing-argument",
    "too-many-positional",
    "unparsable",
)


def test_findings_match_markers(drift_case: DriftCase, tmp_path: Path) -> None:
    report = drift_case.audit(cache_dir=tmp_path / "cache")
    problems = drift_case.compare(report)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_every_kind_is_expected_somewhere(all_drift_cases: list[DriftCase]) -> None:
    expected = {e.kind for case in all_drift_cases for e in case.expected}
    assert [k for k in EXERCISED_KINDS if k not in expected] == []


def test_case_has_expectations_and_near_misses(drift_case: DriftCase) -> None:
    assert drift_case.expected, f"{drift_case.name}: no `# expect` marker"
    assert sum(m.near_misses for m in drift_case.marks.values()) > 0
    without = [p for p, m in drift_case.marks.items() if m.has_code and not m.near_misses]
    assert without == [], "every consumer file with code needs a `# near-miss` line"


def test_case_layout(drift_case: DriftCase) -> None:
    versions = ["0.2", "0.1"] if drift_case.baseline else ["0.2"]
    for version in versions:
        assert (drift_case.provider(version) / "acme" / "__init__.py").is_file(), version
    assert (drift_case.consumer / "__init__.py").is_file()


def test_provider_sources_parse(drift_case: DriftCase) -> None:
    """Provider files parse, but where the case expects an `unparsable-provider` finding."""
    expects_broken = any(e.kind == "unparsable-provider" for e in drift_case.expected)
    broken = []
    for path in sorted((drift_case.root / "provider").rglob("*.py")):
        try:
            ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError:
            broken.append(path.name)
    assert bool(broken) == expects_broken, broken


def test_unparsable_files_are_expected(drift_case: DriftCase) -> None:
    """A consumer file that does not parse is deliberate: case.toml must expect it."""
    declared = {e.path for e in drift_case.expected if e.kind == "unparsable"}
    assert set(drift_case.unparsable) == declared
