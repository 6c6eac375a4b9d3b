"""Golden reports: whole documents for one fixture case, in every deterministic format.

A change to a reporter or to the analysis shows up here as a diff of the whole report, reviewed
in the pull request. Volatile values become placeholders ([VERSION], [SECONDS], [PATH]);
`make golden` (pytest --update-golden) rewrites the files after a reviewed change.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.pipeline import audit
from auditor.reporters import REPORTERS

CASES = Path(__file__).resolve().parent.parent / "cases"
GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CASE = "differential"
FORMATS = {
    "json": "json",
    "sarif": "sarif",
    "text": "txt",
    "markdown": "md",
    "github": "github",
    "gitlab": "gitlab",
    "concise": "concise",
    "junit": "junit.xml",
}


def _masked(text: str, case: Path) -> str:
    text = text.replace(case.as_uri(), "[CASE-URI]").replace(str(case), "[CASE]")
    text = re.sub(r'("version":\s*)"[^"]*"(,\s*"informationUri")', r'\1"[VERSION]"\2', text)
    text = re.sub(r'("name": "drift-audit",\s*"version":\s*)"[^"]*"', r'\1"[VERSION]"', text)
    text = re.sub(r'"seconds":\s*[0-9.]+', '"seconds": "[SECONDS]"', text)
    return re.sub(r"in [0-9.]+s\b", "in [SECONDS]s", text)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> object:
    case = CASES / CASE
    return audit(
        str(case / "consumer" / "widget"),
        [f"acme @ {(case / 'provider' / '0.2').as_uri()}"],
        baseline=f"acme @ {(case / 'provider' / '0.1').as_uri()}",
        cache_dir=tmp_path_factory.mktemp("cache"),
        offline=True,
    )


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_report_matches_its_golden_file(fmt: str, report: object, update_golden: bool) -> None:
    rendered = _masked(REPORTERS[fmt](report), CASES / CASE)  # type: ignore[arg-type]
    golden = GOLDEN / f"widget-vs-acme.{FORMATS[fmt]}"
    if update_golden or not golden.exists():
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(rendered, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"{golden.name} was missing and has been written: review and commit it")
    assert rendered == golden.read_text(encoding="utf-8"), (
        f"{fmt} report differs from {golden}; if the change is intended, run `make golden`"
    )


def test_reports_are_byte_identical_across_runs(report: object) -> None:
    for fmt in FORMATS:
        assert REPORTERS[fmt](report) == REPORTERS[fmt](report)  # type: ignore[arg-type]
