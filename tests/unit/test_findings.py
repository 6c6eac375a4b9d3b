"""collect_findings(): several providers merged, the matrix, fixed findings, unused suppressions."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from auditor.bind import Problem, Verdict
from auditor.findings import (
    ProviderChecks,
    SiteCheck,
    collect_findings,
    fixed_findings,
    unused_suppressions,
)
from auditor.graph import build_graph
from auditor.kinds import Kind
from auditor.model import (
    Action,
    CallShape,
    ConsumerInfo,
    ConsumerScan,
    Finding,
    Location,
    Lookup,
    ProviderInfo,
    Recorded,
    Report,
    Resolution,
    Site,
    Status,
    Unparsable,
    timeline,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

UKW = Kind.UNEXPECTED_KEYWORD


def site(target: str, line: int, path: str = "widget/core.py") -> Site:
    return Site(
        Action.CALL,
        target,
        "widget.core.run",
        Location(path, line, 5, line, 20),
        call=CallShape(0, ("old",)),
    )


def ok(path: str) -> Verdict:
    return Verdict(Resolution(Lookup.FOUND, path))


def bad(path: str) -> Verdict:
    return Verdict(Resolution(Lookup.FOUND, path), (Problem(UKW, "old"),), "(new)")


def scan_of(
    *sites: Site,
    suppressions: Mapping[str, Mapping[int, frozenset[str]]] | None = None,
    unparsable: tuple[Unparsable, ...] = (),
) -> ConsumerScan:
    return ConsumerScan(
        package="widget",
        files=("widget/core.py",),
        definitions=(),
        edges=(),
        sites=sites,
        unparsable=unparsable,
        suppressions=suppressions or {},
    )


def test_several_providers_merge_sorted_with_a_matrix_column_per_release() -> None:
    acme, bolt = site("acme.f", 9), site("bolt.g", 3)
    audits = [
        ProviderChecks(
            "acme",
            ("0.2", "0.3"),
            (SiteCheck(acme, ok("acme.f"), (("0.2", ok("acme.f")), ("0.3", bad("acme.f")))),),
        ),
        ProviderChecks(
            "bolt", ("2.0",), (SiteCheck(bolt, ok("bolt.g"), (("2.0", bad("bolt.g")),)),)
        ),
    ]
    scan = scan_of(acme, bolt)
    collected = collect_findings(scan, audits, build_graph(scan))
    assert [(f.symbol, f.location.line, f.broken_in) for f in collected.findings] == [
        ("bolt.g", 3, ("2.0",)),
        ("acme.f", 9, ("0.3",)),
    ]
    assert collected.matrix == ((None, None, True), (False, True, None))


def test_the_same_version_of_two_providers_is_two_columns() -> None:
    acme, bolt = site("acme.f", 1), site("bolt.g", 2)
    audits = [
        ProviderChecks("acme", ("1.0",), (SiteCheck(acme, None, (("1.0", bad("acme.f")),)),)),
        ProviderChecks("bolt", ("1.0",), (SiteCheck(bolt, None, (("1.0", bad("bolt.g")),)),)),
    ]
    scan = scan_of(acme, bolt)
    assert collect_findings(scan, audits, build_graph(scan)).matrix == (
        (True, None),
        (None, True),
    )


def test_unparsable_files_are_reported_once_with_no_release_marked() -> None:
    scan = scan_of(unparsable=(Unparsable("widget/bad.py", "SyntaxError: x", 2, 1),))
    audits = [ProviderChecks("acme", ("0.2",), ()), ProviderChecks("bolt", ("2.0",), ())]
    collected = collect_findings(scan, audits, build_graph(scan))
    assert [(f.kind, f.symbol) for f in collected.findings] == [(Kind.UNPARSABLE, "acme")]
    assert collected.matrix == ((None, None),)


def finding(line: int, kind: Kind = UKW, status: Status = Status.NEW, **fields: object) -> Finding:
    values: dict[str, object] = {
        "kind": kind,
        "location": Location("widget/core.py", line, 5, line, 9),
        "scope": "widget.core.run",
        "symbol": "acme.f",
        "parameter": "old",
        "broken_in": ("0.2",),
        "baseline_signature": None,
        "target_signature": None,
        "status": status,
    }
    values.update(fields)
    return Finding(**values)  # type: ignore[arg-type]


def test_recorded_findings_are_baselined_across_moved_lines_and_gone_ones_are_fixed() -> None:
    moved = site("acme.f", 40)
    check = SiteCheck(moved, ok("acme.f"), (("0.2", bad("acme.f")),))
    recorded = Recorded.of(
        [(finding(7), 1), (finding(8, parameter="gone"), 1), (finding(9, parameter="gone"), 1)]
    )
    scan = scan_of(moved)
    collected = collect_findings(
        scan, [ProviderChecks("acme", ("0.2",), (check,))], build_graph(scan), recorded=recorded
    )
    assert [(f.location.line, f.status) for f in collected.findings] == [(40, Status.BASELINED)]
    assert [(f.location.line, f.parameter) for f in collected.fixed] == [(8, "gone")]


def test_fixed_ignores_status_and_lines_and_keeps_one_per_fingerprint() -> None:
    now = [finding(50, status=Status.PREEXISTING)]
    recorded = [finding(1), finding(2, kind=Kind.MISSING_ARGUMENT), finding(3, scope="other")]
    assert [(f.kind, f.scope) for f in fixed_findings(recorded, now)] == [
        (Kind.MISSING_ARGUMENT, "widget.core.run"),
        (UKW, "other"),
    ]


@pytest.mark.parametrize(
    ("ignores", "found", "unused"),
    [
        ({3: frozenset()}, [finding(3, status=Status.SUPPRESSED)], []),
        ({3: frozenset()}, [], [("widget/core.py", 3, ())]),
        ({3: frozenset({"unexpected-keyword"})}, [finding(3, status=Status.SUPPRESSED)], []),
        (
            {3: frozenset({"unexpected-keyword", "removed-symbol"})},
            [finding(3, status=Status.SUPPRESSED)],
            [("widget/core.py", 3, ("removed-symbol",))],
        ),
        (
            {4: frozenset({"unexpected-keyword"})},
            [finding(3, status=Status.SUPPRESSED)],
            [("widget/core.py", 4, ("unexpected-keyword",))],
        ),
        (
            {3: frozenset({"unexpected-keywrd"})},
            [],
            [("widget/core.py", 3, ("unexpected-keywrd",))],
        ),
    ],
)
def test_unused_suppressions_name_what_matched_nothing(
    ignores: dict[int, frozenset[str]], found: list[Finding], unused: list[object]
) -> None:
    assert list(unused_suppressions({"widget/core.py": ignores}, found)) == unused


def test_a_suppression_that_suppresses_is_used_end_to_end() -> None:
    used, idle = site("acme.f", 3), site("acme.f", 5)
    checks = tuple(SiteCheck(s, ok("acme.f"), (("0.2", bad("acme.f")),)) for s in (used, idle))
    ignores = {"widget/core.py": {3: frozenset({"unexpected-keyword"}), 7: frozenset()}}
    scan = scan_of(used, idle, suppressions=ignores)
    collected = collect_findings(
        scan, [ProviderChecks("acme", ("0.2",), checks)], build_graph(scan)
    )
    statuses = [(f.location.line, f.kind.slug, f.status) for f in collected.findings]
    assert statuses == [
        (3, "unexpected-keyword", Status.SUPPRESSED),
        (5, "unexpected-keyword", Status.NEW),
        (7, "unused-suppression", Status.NEW),  # off by default: the pipeline drops it
    ]
    assert collected.unused_suppressions == (("widget/core.py", 7, ()),)


def test_timeline_without_a_matrix_is_derived_from_broken_in() -> None:
    report = Report(
        consumer=ConsumerInfo("widget", None, "folder"),
        provider=ProviderInfo("acme", "0.1", ("0.2", "0.3")),
        findings=(finding(1, broken_in=("0.3",)), finding(2, broken_in=())),
    )
    table = timeline(report)
    assert table.columns == (("acme", "0.2"), ("acme", "0.3"))
    assert table.rows == ((False, True), (None, None))
    carried = replace(report, matrix=((True, True), (None, None)))
    assert timeline(carried).rows == ((True, True), (None, None))
