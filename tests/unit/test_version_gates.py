"""Version tests decided per release: what Python would compute, or undecided."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import pytest

from auditor.scan.guards import version_test

if TYPE_CHECKING:
    from auditor.model import VersionTest


def parse(test: str, flags: dict[str, VersionTest] | None = None) -> VersionTest | None:
    imports = {"tornado": "tornado", "t": "tornado", "np": "numpy"}
    return version_test(ast.parse(test, mode="eval").body, imports.get, flags or {})


@pytest.mark.parametrize(
    ("test", "release", "runs"),
    [
        ("tornado.version_info >= (5, 0)", "5.0", True),
        ("tornado.version_info >= (5, 0)", "4.5.3", False),
        ("tornado.version_info >= (5, 0, 0)", "5.0", True),  # (5, 0, 0, 0) >= (5, 0, 0)
        ("tornado.version_info < (5,)", "5.1.1", False),
        ("(5, 0) <= t.version_info", "6.0", True),  # literal on the left, through an alias
        ("not tornado.version_info >= (5, 0)", "6.0", False),
        ("tornado.version_info[0] < 5", "4.5.3", True),
        ("tornado.version_info[:2] > (5, 0)", "5.0", False),  # two parts against two: exact
        ("Version(np.__version__) > Version('2.0')", "2.0.0", False),  # packaging pads
        ("parse(np.__version__) >= parse('2.0')", "2.1", True),
        # Python: (5, 0, 0, 0) > (5, 0) is True, (5, 0) > (5, 0) is False: not decidable
        ("tornado.version_info > (5, 0)", "5.0", None),
        ("tornado.version_info <= (5, 0)", "5.0", None),
        ("tornado.version_info > (5, 0)", "5.1", True),  # the prefixes differ: decided
        ("tornado.version_info >= (5, 0)", "5.0rc1", None),  # a pre-release: not compared
    ],
)
def test_decided_as_python_would(test: str, release: str, runs: bool | None) -> None:
    decided = parse(test)
    assert decided is not None
    assert decided.runs(release) is runs


@pytest.mark.parametrize(
    "test",
    [
        "tornado.version_info == (5, 0)",  # equality of tuples of unknown length
        "sys.version_info >= (3, 11)",  # not an imported provider module
        "tornado.__version__ >= '5.0'",  # compares strings: '10.0' < '5.0'
        "tornado.version_info[1] >= 2",  # a middle part
        "tornado.version_info >= (5, 'b')",
        "FLAG",  # a name not bound to a version test
    ],
)
def test_left_undecided(test: str) -> None:
    assert parse(test) is None


def test_a_flag_stands_for_its_test() -> None:
    flag = parse("tornado.version_info >= (5, 0)")
    assert flag is not None
    decided = parse("not REMOVED", {"REMOVED": flag})
    assert decided is not None
    assert decided.runs("5.0") is False
    assert decided.runs("4.5") is True
