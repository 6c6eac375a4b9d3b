"""A kept ecosystem row is read back whole or not at all (auditor/ecostore.py `kept_result`)."""

from __future__ import annotations

import json

from auditor import ecostore
from auditor.ecostore import kept_result
from auditor.model import ConsumerResult, Outcome


def _row(**fields: object) -> str:
    row = ecostore._row(ConsumerResult("w==1.0", "w", "1.0", "acme==0.1", Outcome.CLEAN))
    row.update(fields)
    return json.dumps({k: v for k, v in row.items() if v is not _GONE})


_GONE = object()


def test_a_row_keeps_its_undecided_count() -> None:
    result = kept_result("w==1.0", _row(undecided=7))
    assert result is not None and result.undecided == 7 and result.outcome is Outcome.CLEAN


def test_a_row_kept_before_undecided_was_counted_still_fits() -> None:
    """Stores written before the count existed are not audited again: the count is 0."""
    gone = {"sites": _GONE, "undecided_sites": _GONE, "baseline_why": _GONE}
    result = kept_result("w==1.0", _row(undecided=_GONE, **gone))
    assert result is not None and result.undecided == 0
    assert result.sites == 0 and result.undecided_sites == ()
    result = kept_result("w==1.0", _row(undecided=3, **gone))
    assert result is not None and (result.undecided, result.sites) == (3, 0)


def test_a_row_keeps_how_its_baseline_was_inferred() -> None:
    why = "the newest release uploaded before w 1.0 (2025-01-02)"
    result = kept_result("w==1.0", _row(baseline_why=why))
    assert result is not None and result.baseline_why == why
    earlier = kept_result("w==1.0", _row(baseline_why=_GONE))  # kept before it was
    assert earlier is not None and earlier.baseline_why is None
    assert kept_result("w==1.0", _row(baseline_why=3)) is None


SITE = {
    "path": "w/a.py", "line": 3, "column": 1, "scope": "w.a", "target": "acme.x",
    "provider": "acme", "reason": "acme writes names into its namespace that are not known",
    "cause": "namespace-writer",
}  # fmt: skip


def test_a_row_keeps_its_sites_and_undecided_sites() -> None:
    result = kept_result("w==1.0", _row(undecided=1, sites=4, undecided_sites=[SITE]))
    assert result is not None and result.sites == 4 and result.undecided_sites == (SITE,)


def test_a_kept_undecided_site_of_another_shape_does_not_fit() -> None:
    assert kept_result("w==1.0", _row(undecided_sites=[{**SITE, "line": "3"}])) is None
    assert kept_result("w==1.0", _row(undecided_sites=[{**SITE, "extra": 1}])) is None
    assert kept_result("w==1.0", _row(undecided_sites=[[1, 2]])) is None
    assert kept_result("w==1.0", _row(sites=-1)) is None


def test_a_row_with_an_unknown_field_or_a_bad_count_does_not_fit() -> None:
    assert kept_result("w==1.0", _row(extra=1)) is None
    assert kept_result("w==1.0", _row(undecided=-1)) is None
    assert kept_result("w==1.0", _row(undecided=True)) is None
    assert kept_result("x==1.0", _row()) is None  # another spec's row
