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
    result = kept_result("w==1.0", _row(undecided=_GONE))
    assert result is not None and result.undecided == 0


def test_a_row_with_an_unknown_field_or_a_bad_count_does_not_fit() -> None:
    assert kept_result("w==1.0", _row(extra=1)) is None
    assert kept_result("w==1.0", _row(undecided=-1)) is None
    assert kept_result("w==1.0", _row(undecided=True)) is None
    assert kept_result("x==1.0", _row()) is None  # another spec's row
