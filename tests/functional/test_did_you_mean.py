"""A mistyped kind, command or provider gets the name it is closest to (issue 24).

`--explain missing-arg`, `drift-audit ecosystm ...` (read as a CONSUMER) and
`--against acmee==0.2` for a consumer that requires acme: each is one error line, exit 2, and a
hint naming what was probably meant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.trust import acme, machine
from tests.trust.archives import wheel
from tests.trust.cli import error_line, invoke

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.trust.fakeindex import FakeIndex


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    machine.isolate(monkeypatch)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIndex]:
    def more(dist: Path) -> list[Path]:
        consumer = {"widget/__init__.py": acme.CONSUMER}
        return [wheel(dist, "widget", "1.0", consumer, requires=["acme>=0.1"])]

    with acme.ranged_index(tmp_path, monkeypatch, more) as fake:
        yield fake


def _hint(result: object) -> str:
    lines = [line for line in result.stderr.splitlines() if "hint:" in line]  # type: ignore[attr-defined]
    assert len(lines) == 1, result.stderr  # type: ignore[attr-defined]
    return lines[0]


def test_a_mistyped_kind_to_explain() -> None:
    result = invoke("--explain", "missing-arg")
    assert error_line(result) == "unknown kind 'missing-arg'"
    assert "did you mean 'missing-argument'?" in _hint(result)


def test_a_mistyped_command_read_as_a_consumer(tmp_path: Path) -> None:
    result = invoke("ecosystm", "--against", "acme==0.2", "--cache-dir", str(tmp_path / "c"))
    assert "'ecosystm' is neither a folder" in error_line(result)
    assert "did you mean the command `ecosystem`?" in _hint(result)


def test_a_mistyped_provider_the_consumer_requires(tmp_path: Path, index: FakeIndex) -> None:
    result = invoke(
        "widget==1.0", "--against", "acmee==0.2", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "c"),
    )  # fmt: skip
    assert "acmee" in error_line(result)
    assert "did you mean acme? widget requires it" in _hint(result)
    wrong = invoke(
        "widget==1.0", "--against", "zzz==0.2", "--index-url", index.url,
        "--cache-dir", str(tmp_path / "c"),
    )  # fmt: skip
    assert "did you mean" not in wrong.stderr  # nothing close: no guess
