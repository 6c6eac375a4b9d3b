"""The set-up test_cache_folder.py and test_trust_files.py share: an isolated machine and acme
0.1 and 0.2 served as wheels big enough to be read by byte ranges (tests/trust/acme.py).

A test module imports the two fixtures by name (`isolated` is autouse) with the helpers:
`from tests.trust.ranged import audit_index, found, index, isolated`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.cli import invoke

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from click.testing import Result

    from tests.trust.fakeindex import FakeIndex


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    """acme 0.1 and 0.2 as wheels big enough to be read by byte ranges."""
    with acme.ranged_index(tmp_path, monkeypatch) as fake:
        yield fake


def found(result: Result, *, clean_stderr: bool = True) -> list[tuple[str, int]]:
    """(kind, line) of a JSON run that worked (with `clean_stderr`: no traceback and no
    internal error on stderr either)."""
    assert result.exit_code in (0, 1), (result.exit_code, result.output, result.exception)
    if clean_stderr:
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return [(f["kind"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def audit_index(project: Path, index: FakeIndex, cache: Path, *more: str) -> Result:
    """The JSON audit of `project` against acme 0.2, baseline 0.1, from the fake index."""
    return invoke(
        str(project), "--against", "acme==0.2", "--baseline", "acme==0.1",
        "--index-url", index.url, "--cache-dir", str(cache), "--format", "json", *more,
    )  # fmt: skip
