"""Verdicts on answers, recall matching, scores and the docs section: pure functions, no venv."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.world import score, verdicts
from tests.world.manifest import ManifestError, Upgrade, load
from tests.world.touchpoints import Guard, Shape, Touchpoint

if TYPE_CHECKING:
    from pathlib import Path

WORKS = {"status": "works", "step": "attribute"}
GONE = {
    "status": "fails",
    "step": "attribute",
    "exc": "AttributeError",
    "name": "m",
    "mro": ["AttributeError", "Exception", "BaseException"],
    "detail": "no attribute 'm'",
}
IMPORT_GONE = {
    "status": "fails",
    "step": "import",
    "exc": "ImportError",
    "mro": ["ImportError", "Exception", "BaseException"],
    "detail": "cannot import",
}
NO_SIG = {"status": "undecidable", "step": "bind", "detail": "no signature for float"}


def plan(spelled: str = "consumer", guards: tuple[Guard, ...] = (), **shape: Any) -> verdicts.Plan:
    query = verdicts.keyed({"op": "chain", "chain": "acme.m"})
    full = {"positional": 0, "keywords": [], "star_args": False, "star_kwargs": False, **shape}
    return verdicts.Plan(query, spelled, None, guards, full)


def finding(kind: str = "removed-symbol", symbol: str = "acme.m", **more: Any) -> dict[str, Any]:
    return {"kind": kind, "symbol": symbol, "line": 3, "column": 1, "parameter": None, **more}


def test_fails_at_the_target_and_works_at_the_baseline_is_confirmed() -> None:
    assert verdicts.decide_finding(finding(), plan(), WORKS, GONE).verdict == "confirmed"


def test_works_at_the_target_is_refuted() -> None:
    assert verdicts.decide_finding(finding(), plan(), WORKS, WORKS).verdict == "refuted"


def test_fails_at_both_is_undecidable_not_confirmed() -> None:
    got = verdicts.decide_finding(finding(), plan(), GONE, GONE)
    assert (got.verdict, "baseline too" in got.reason) == ("undecidable", True)


def test_a_try_that_does_not_catch_what_the_target_raises_is_no_guard() -> None:
    caught = (Guard("try", 1, "ImportError", ("ImportError",)),)
    missed = (Guard("try", 1, "ModuleNotFoundError", ("ModuleNotFoundError",)),)
    assert verdicts.decide_finding(finding(), plan(guards=caught), WORKS, IMPORT_GONE).verdict == (
        "undecidable"
    )
    assert verdicts.decide_finding(finding(), plan(guards=missed), WORKS, IMPORT_GONE).verdict == (
        "confirmed"
    )


def test_a_missing_argument_that_star_args_may_supply_is_undecidable() -> None:
    missing = {"status": "fails", "step": "bind", "bind": "missing-argument", "mro": ["TypeError"]}
    kind = finding("missing-argument", parameter="port")
    bind_works = {"status": "works", "step": "bind"}
    assert verdicts.decide_finding(kind, plan(star_kwargs=True), bind_works, missing).verdict == (
        "undecidable"
    )
    assert verdicts.decide_finding(kind, plan(), bind_works, missing).verdict == "confirmed"


def test_a_callee_the_tool_names_that_is_gone_does_not_confirm_its_keyword() -> None:
    kind = finding("unexpected-keyword", parameter="k")
    bind_works = {"status": "works", "step": "bind"}
    got = verdicts.decide_finding(kind, plan("tool"), bind_works, GONE)
    assert got.verdict == "undecidable"
    assert verdicts.decide_finding(kind, plan("consumer"), bind_works, GONE).verdict == "confirmed"


def test_a_path_the_tool_names_that_moved_on_the_way_is_undecidable() -> None:
    moved = {**GONE, "name": "core"}  # acme.core.C.m: acme.core is what is gone
    got = verdicts.decide_finding(finding(symbol="acme.core.C.m"), plan("tool"), WORKS, moved)
    assert got.verdict == "undecidable"


def test_kinds_python_cannot_judge_are_listed_not_scored() -> None:
    got = verdicts.decide_finding(finding("override-mismatch"), plan(), WORKS, GONE)
    assert got.verdict == "not-scored"


def tp(op: str = "call", symbol: str = "acme.m", shape: Shape | None = None) -> Touchpoint:
    shape = shape or (Shape(1, (), False, False) if op == "call" else None)
    target = symbol if op != "from" else symbol.replace(".", ":", 1)
    return Touchpoint("pkg/mod.py", 3, 5, 3, op, target, "pkg.mod", (), shape, "acme.m(x)")


def answers_for(point: Touchpoint, *pairs: tuple[dict[str, Any], dict[str, Any]]) -> dict:  # type: ignore[type-arg]
    keys = [q["key"] for q in verdicts.touchpoint_queries(point)]
    return {k: {"baseline": b, "target": t} for k, (b, t) in zip(keys, pairs, strict=True)}


def test_a_call_whose_name_is_gone_is_an_attribute_break_even_without_a_signature() -> None:
    point = tp()  # np.float(x): float has no signature, the name is what breaks
    judged = verdicts.decide_touchpoint(point, answers_for(point, (WORKS, GONE), (NO_SIG, NO_SIG)))
    assert (judged.status, judged.category) == ("break", "attribute")


def test_a_call_that_stops_binding_is_a_bind_break() -> None:
    point = tp()
    refused = {
        "status": "fails",
        "step": "bind",
        "bind": "unexpected-keyword",
        "mro": ["TypeError"],
    }
    pairs = ((WORKS, WORKS), ({"status": "works", "step": "bind"}, refused))
    judged = verdicts.decide_touchpoint(point, answers_for(point, *pairs))
    assert (judged.status, judged.category) == ("break", "bind")


def test_recall_matches_kind_to_what_failed_on_the_same_line() -> None:
    point = tp()
    rows = [
        {"fingerprint": f, "status": s, "severity": "error", "kind": k, "line": n}
        for f, s, k, n in [
            ("a", "new", "removed-symbol", 3),
            ("b", "preexisting", "removed-symbol", 3),
            ("c", "new", "unexpected-keyword", 3),
            ("d", "new", "removed-symbol", 4),
        ]
    ]
    assert verdicts.found_by(point, "attribute", rows) == ["a"]
    assert verdicts.found_by(point, "bind", rows) == ["c"]


def test_a_use_folded_into_its_failing_import_is_found_by_that_import() -> None:
    """`from acme import m` fails at line 1; the use `m(x)` at line 3 is listed under the
    import's finding ("also used at"), whatever the use's own category; only a new error."""
    point = tp()
    rows = [
        {"fingerprint": "i", "status": "new", "severity": "error", "kind": "removed-symbol",
         "line": 1, "also_used_at": [3, 9]},
        {"fingerprint": "p", "status": "preexisting", "severity": "error",
         "kind": "removed-symbol", "line": 1, "also_used_at": [3]},
        {"fingerprint": "w", "status": "new", "severity": "error", "kind": "unexpected-keyword",
         "line": 2, "also_used_at": [3]},
    ]  # fmt: skip
    assert verdicts.found_by(point, "bind", rows) == ["i"]
    assert verdicts.found_by(point, "attribute", rows) == ["i"]


UPGRADE = Upgrade("acme-2", "acme", "acme", "1.0", "2.0", ("acme",), ("a==1", "b==1", "c==1"),
                  "full")  # fmt: skip


def _brk(found: bool, guarded: bool = False, on_line: list[str] | None = None) -> dict[str, Any]:
    return {"path": "a/x.py", "line": 1, "column": 1, "symbol": "acme.m", "text": "acme.m",
            "found": found, "guarded": guarded, "on_line": on_line or [], "target": {},
            "guard": {"kind": "if", "line": 1, "detail": "x"} if guarded else None,
            "reason": "gone"}  # fmt: skip


def _judged() -> tuple[dict[str, Any], dict[str, Any]]:
    report = {"provider": {"baseline": "acme==1.0", "target": "acme==2.0"}, "consumers": [
        {"spec": "a==1", "outcome": "regressed"},
        {"spec": "b==1", "outcome": "clean"},
        {"spec": "c==1", "outcome": "error", "error": "timed out"},
    ]}  # fmt: skip
    judged = {"consumers": [
        {"spec": "a==1", "touchpoints": {"total": 10},
         "findings": [{"verdict": v, "kind": "removed-symbol", "symbol": "acme.m", "line": i,
                       "reason": "r", "target": {"compiled": i == 2}}
                      for i, v in enumerate(["confirmed", "confirmed", "refuted", "undecidable"])],
         "breaks": [_brk(True), _brk(False, on_line=["preexisting removed-symbol acme.m"]),
                    _brk(False, guarded=True)]},
        {"spec": "b==1", "touchpoints": {"total": 4}, "findings": [], "breaks": []},
        {"spec": "c==1", "touchpoints": {"total": 2}, "findings": [], "breaks": [_brk(False)]},
    ]}  # fmt: skip
    return judged, report


def test_precision_recall_and_what_stays_out_of_the_denominators() -> None:
    judged, report = _judged()
    got = score.score_upgrade(UPGRADE, judged, report)
    counts = got["counts"]
    assert (counts["audits"], counts["audits_failed"], counts["new_errors"]) == (3, 1, 4)
    assert (counts["confirmed"], counts["refuted"], counts["undecidable"]) == (2, 1, 1)
    assert counts["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert (counts["breaks"], counts["found"], counts["guarded_breaks"]) == (3, 1, 1)
    assert counts["recall"] == pytest.approx(1 / 3, abs=1e-4)
    causes = sorted(b["cause"] for b in got["breaks"] if not b["found"] and not b["guarded"])
    assert causes == ["audit failed", "reported as preexisting"]
    assert got["failures"] == [{"upgrade": "acme-2", "consumer": "c==1", "reason": "timed out"}]


class _Manifest:
    python = "3.11"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.upgrades = (UPGRADE,)


def test_results_are_deterministic_but_for_measured_at(tmp_path: Path) -> None:
    folder = tmp_path / "upgrades" / "acme-2"
    folder.mkdir(parents=True)
    judged, report = _judged()
    (folder / "judged.json").write_text(json.dumps(judged), encoding="utf-8")
    (folder / "ecosystem.json").write_text(json.dumps(report), encoding="utf-8")
    first = score.score(_Manifest(tmp_path / "m.toml"), tmp_path)
    second = score.score(_Manifest(tmp_path / "m.toml"), tmp_path)
    first.pop("measured_at"), second.pop("measured_at")
    assert first == second
    assert first["overall"]["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert len(first["false_alarms"]) == 1
    assert first["false_alarms"][0]["cause"] == "compiled module"


def test_outputs_made_for_another_list_of_dependents_are_not_scored(tmp_path: Path) -> None:
    folder = tmp_path / "upgrades" / "acme-2"
    folder.mkdir(parents=True)
    judged, report = _judged()
    (folder / "judged.json").write_text(json.dumps(judged), encoding="utf-8")
    (folder / "ecosystem.json").write_text(json.dumps(report), encoding="utf-8")
    assert not isinstance(score.outputs(UPGRADE, folder), str)
    other = Upgrade(**{**UPGRADE.__dict__, "dependents": ("b==1", "a==1", "c==1")})
    assert score.outputs(other, folder) == "stale: the outputs are for another list of dependents"
    limited = Upgrade(**{**UPGRADE.__dict__, "dependents": ("a==1", "b==1", "c==1", "d==1")})
    assert not isinstance(score.outputs(limited, folder), str)  # a --limit 3 run counts
    moved = Upgrade(**{**UPGRADE.__dict__, "target": "3.0"})
    assert str(score.outputs(moved, folder)).startswith("stale: the outputs are for acme==1.0")
    results = score.score(_Manifest(tmp_path / "m.toml"), tmp_path)
    assert results["upgrades"][0]["run"] is True
    (folder / "judged.json").unlink()
    assert score.outputs(UPGRADE, folder) == "not run"


def test_the_docs_section_is_replaced_between_its_markers_and_added_when_absent(
    tmp_path: Path,
) -> None:
    doc = tmp_path / "world.md"
    doc.write_text("# World\n\nWritten by someone else.\n", encoding="utf-8")
    score.write_doc(doc, f"{score.START}\nfirst-run\n{score.END}\n")
    score.write_doc(doc, f"{score.START}\nsecond-run\n{score.END}\n")
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# World\n\nWritten by someone else.\n")
    assert "second-run" in text
    assert "first-run" not in text
    assert text.count(score.START) == 1


def test_cells_cannot_break_the_table_or_inject_markup() -> None:
    assert score.cell("a|b\n<script>`x`__") == "a\\|b &lt;script&gt;'x'\\_\\_"


def test_the_dev_manifest_loads_and_a_broken_one_names_its_problem(tmp_path: Path) -> None:
    manifest = load(score.REPO / "tests" / "world" / "manifest-dev.toml")
    assert manifest.python == "3.11"
    assert all(u.judge in ("full", "static-only") for u in manifest.upgrades)
    broken = tmp_path / "m.toml"
    broken.write_text(
        'schema = 1\npython = "3.11"\n[[upgrade]]\nid = "x"\nfamily = "f"\nprovider = "p"\n'
        'baseline = "1"\ntarget = "2"\nimport_names = ["p"]\ndependents = ["nope"]\n',
        encoding="utf-8",
    )
    with pytest.raises(ManifestError, match="'nope' is not name==version"):
        load(broken)


# --------------------------------------------------------------------------- undecided (issue 36)


def _site(path: str, line: int, cause: str = "decorated") -> dict[str, Any]:
    return {"path": path, "line": line, "column": 1, "target": "acme.m", "reason": "r",
            "cause": cause}  # fmt: skip


def _undecided_judged() -> tuple[dict[str, Any], dict[str, Any]]:
    """a==1 measured (10 call sites, 4 undecided), b==1 measured (5, 1), c==1 not measured:
    a report of a tool that does not list its undecided sites yet."""
    report = {"provider": {"baseline": "acme==1.0", "target": "acme==2.0"}, "consumers": [
        {"spec": "a==1", "outcome": "regressed", "call_sites": 10,
         "undecided_sites": [_site("a/x.py", 1), _site("a/x.py", 2), _site("a/y.py", 5),
                             _site("a/y.py", 6, "namespace-writer")]},
        {"spec": "b==1", "outcome": "clean", "call_sites": 5,
         "undecided_sites": [_site("b/z.py", 9, "")]},
        {"spec": "c==1", "outcome": "clean"},
    ]}  # fmt: skip
    undecided_break = {**_brk(False), "undecided": ["decorated"]}
    found_undecided = {**_brk(True), "undecided": ["decorated"]}
    guarded_undecided = {**_brk(False, guarded=True), "undecided": ["decorated"]}
    judged = {"consumers": [
        {"spec": "a==1", "touchpoints": {"total": 20}, "findings": [],
         "undecided": {"touchpoints": 3, "sites": 4, "located": 4},
         "breaks": [undecided_break, found_undecided, guarded_undecided,
                    {**_brk(False), "undecided": []}]},
        {"spec": "b==1", "touchpoints": {"total": 5}, "findings": [],
         "undecided": {"touchpoints": 0, "sites": 1, "located": 1}, "breaks": []},
        {"spec": "c==1", "touchpoints": {"total": 75}, "findings": [], "undecided": None,
         "breaks": [{**_brk(False), "undecided": None}]},
    ]}  # fmt: skip
    return judged, report


def test_the_undecided_shares_count_only_what_was_measured() -> None:
    judged, report = _undecided_judged()
    counts = score.score_upgrade(UPGRADE, judged, report)["counts"]
    assert (counts["undecided_audits"], counts["call_sites"], counts["undecided_sites"]) == (
        2,
        15,
        5,
    )
    assert counts["undecided_site_share"] == pytest.approx(5 / 15, abs=1e-4)
    # c==1's 75 touchpoints are not measured: 3 of 25, not 3 of 100
    assert (counts["measured_touchpoints"], counts["undecided_touchpoints"]) == (25, 3)
    assert counts["undecided_touchpoint_share"] == pytest.approx(3 / 25, abs=1e-4)
    # unguarded breaks on undecided touchpoints: two, one of them missed
    assert (counts["undecided_breaks"], counts["undecided_misses"]) == (2, 1)


def test_a_run_whose_reports_do_not_list_undecided_sites_is_not_measured_not_zero() -> None:
    judged, report = _judged()
    counts = score.score_upgrade(UPGRADE, judged, report)["counts"]
    assert counts["undecided_site_share"] is None
    assert counts["undecided_touchpoint_share"] is None
    assert counts["undecided_audits"] == counts["undecided_consumers"] == 0


def test_undecided_sites_by_cause_overall(tmp_path: Path) -> None:
    folder = tmp_path / "upgrades" / "acme-2"
    folder.mkdir(parents=True)
    judged, report = _undecided_judged()
    (folder / "judged.json").write_text(json.dumps(judged), encoding="utf-8")
    (folder / "ecosystem.json").write_text(json.dumps(report), encoding="utf-8")
    results = score.score(_Manifest(tmp_path / "m.toml"), tmp_path)
    rows = {r["cause"]: r for r in results["undecided_by_cause"]}
    assert [r["cause"] for r in results["undecided_by_cause"]] == [
        "decorated", "namespace-writer", "unclassified"]  # fmt: skip
    assert rows["decorated"]["sites"] == 3
    assert rows["decorated"]["of_undecided"] == pytest.approx(3 / 5, abs=1e-4)
    assert rows["decorated"]["of_call_sites"] == pytest.approx(3 / 15, abs=1e-4)
    assert results["overall"]["undecided_site_share"] == pytest.approx(5 / 15, abs=1e-4)
    text = score.render(results)
    assert "### Undecided sites by cause" in text
    assert "| decorated | 3 | 60.0% | 20.0% |" in text
    assert "| acme | 2 of 3 | 15 | 5 | 33.3% | 25 | 3 | 12.0% | 2 | 1 |" in text


def test_the_doc_says_not_measured_when_no_report_lists_undecided_sites(tmp_path: Path) -> None:
    folder = tmp_path / "upgrades" / "acme-2"
    folder.mkdir(parents=True)
    judged, report = _judged()
    (folder / "judged.json").write_text(json.dumps(judged), encoding="utf-8")
    (folder / "ecosystem.json").write_text(json.dumps(report), encoding="utf-8")
    text = score.render(score.score(_Manifest(tmp_path / "m.toml"), tmp_path))
    assert "Not measured: no ecosystem report of this run lists its undecided sites." in text
    assert "0.0%" not in text


def test_a_missed_break_on_an_undecided_touchpoint_says_so() -> None:
    brk = {**_brk(False), "undecided": ["decorated", "unresolved-base"]}
    assert (
        score.miss_cause(brk, "regressed") == "undecided by the tool (decorated, unresolved-base)"
    )
    assert score.miss_cause({**_brk(False), "undecided": []}, "regressed") == ""


def test_families_with_enough_breaks_and_low_recall_are_named() -> None:
    families = [
        {"family": "low", "breaks": 5, "recall": 0.4},
        {"family": "few", "breaks": 2, "recall": 0.0},
        {"family": "fine", "breaks": 10, "recall": 0.8},
        {"family": "none", "breaks": 0, "recall": None},
    ]
    line = score.low_recall_line({"families": families})
    assert line == "Families with 3 or more breaks and recall under 0.80: low (0.40 of 5)."
    assert score.low_recall_line({"families": families[1:]}).endswith(": none.")
