"""Where a gone definition lives now: found beyond the modules an audit happened to load."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.kinds import Kind
from auditor.model import Status
from auditor.pipeline import audit
from tests.functional.test_oracle import IDIOMS

if TYPE_CHECKING:
    from pathlib import Path

MOVES = IDIOMS / "moves"


def _findings(tmp_path: Path) -> dict[str, tuple[Kind, str | None, object]]:
    spec = f"acme @ {(MOVES / 'provider' / '0.2').as_uri()}"
    base = f"acme @ {(MOVES / 'provider' / '0.1').as_uri()}"
    report = audit(
        str(MOVES / "consumer" / "widget"), [spec], baseline=base, cache_dir=tmp_path, offline=True
    )
    return {
        f.scope.rsplit(".", 1)[-1]: (f.kind, f.suggestion, f.hint)
        for f in report.findings
        if f.status is Status.NEW
    }


def test_a_definition_moved_to_a_module_a_surviving_package_imports_is_named(
    tmp_path: Path,
) -> None:
    kind, suggestion, hint = _findings(tmp_path)[
        "probe_a_function_moved_to_a_module_a_package_imports"
    ]
    assert kind is Kind.REMOVED_SYMBOL
    assert suggestion == "a definition of that name now lives in acme.io.readers.load"
    assert getattr(hint, "action", None) == "move-import" and getattr(hint, "safe", None)
    assert getattr(hint, "new", None) == "acme.io.readers"


def test_a_from_import_of_a_gone_module_names_where_the_name_went(tmp_path: Path) -> None:
    kind, suggestion, hint = _findings(tmp_path)["probe_a_module_renamed_private"]
    assert kind is Kind.REMOVED_MODULE
    assert suggestion == "a definition of that name now lives in acme.utils._testing.assert_close"
    assert getattr(hint, "new", None) == "acme.utils._testing"
