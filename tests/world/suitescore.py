"""The test-suite judge's scores (score.py calls these; suites.py made the inputs).

Per upgrade whose `suites.json` and `ecosystem.json` are in the work folder and made for the
manifest's provider pair: every dependent both cover is counted by what became of its suite
(ran, no tests, no sources, install failed, not run), and each break of a suite that ran is
**found** when the run reported a new error or warning on the break's file and statement
(breaks.found_by). Recall = found / breaks, per upgrade, family and overall. Breaks in the
tests' own files (outside what the release ships) are counted apart: drift-audit never reads
them. `render(results)` is the docs section, beside the touchpoint judge's recall per family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.world import breaks
from tests.world.common import read_json

if TYPE_CHECKING:
    from pathlib import Path

    from tests.world.manifest import Upgrade

STATUSES = ("ran", "no tests", "no sources", "install failed", "not run")
LISTED = 60


def _empty() -> dict[str, Any]:
    return {
        "upgrades": 0,
        "dependents": 0,
        **{s.replace(" ", "_"): 0 for s in STATUSES},
        "other_status": 0,
        "passing_at_baseline": 0,
        "breaks": 0,
        "found": 0,
        "test_breaks": 0,
        "suite_seconds": 0.0,
        "install_seconds": 0.0,
    }


def _add(total: dict[str, Any], part: dict[str, Any]) -> None:
    for key, value in part.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key in total:
            total[key] += value


def _rates(counts: dict[str, Any]) -> dict[str, Any]:
    counts["recall"] = round(counts["found"] / counts["breaks"], 4) if counts["breaks"] else None
    counts["suite_seconds"] = round(counts["suite_seconds"], 1)
    counts["install_seconds"] = round(counts["install_seconds"], 1)
    return counts


def suites_of(upgrade: Upgrade, folder: Path) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """suites.json and ecosystem.json of an upgrade, or why they do not count."""
    suites_path, report_path = folder / "suites.json", folder / "ecosystem.json"
    if not suites_path.is_file():
        return "not run"
    if not report_path.is_file():
        return "no ecosystem report to score against (run.py)"
    suites, report = read_json(suites_path), read_json(report_path)
    if (suites.get("baseline"), suites.get("target")) != (upgrade.baseline, upgrade.target):
        return f"stale: suites.json is for {suites.get('baseline')} -> {suites.get('target')}"
    return suites, report


def _miss_cause(on_line: list[str], outcome: str | None) -> str:
    if outcome == "error":
        return "audit failed"
    if any(s.startswith("preexisting ") for s in on_line):
        return "reported as preexisting"
    if any(s.split(" ")[1:2] == ["info"] for s in on_line):
        return "reported at info level"
    return ""


def score_upgrade(
    upgrade: Upgrade, suites: dict[str, Any], report: dict[str, Any]
) -> dict[str, Any]:
    counts = {**_empty(), "upgrades": 1}
    rows: list[dict[str, Any]] = []
    audits = {row["spec"]: row for row in report.get("consumers", [])}
    for consumer in suites.get("consumers", []):
        spec = consumer["spec"]
        if spec not in audits:
            continue
        counts["dependents"] += 1
        status = consumer.get("status", "")
        key = status.replace(" ", "_") if status in STATUSES else "other_status"
        counts[key] += 1
        for side in consumer.get("sides", {}).values():
            counts["suite_seconds"] += side.get("seconds") or 0
            counts["install_seconds"] += side.get("install_seconds") or 0
        if consumer.get("sides", {}).get("baseline", {}).get("tests", {}).get("passed"):
            counts["passing_at_baseline"] += 1
        counts["test_breaks"] += len(consumer.get("test_breaks", []))
        audit = audits[spec]
        findings = audit.get("findings", [])
        where = {"upgrade": upgrade.id, "family": upgrade.family, "consumer": spec}
        for brk in consumer.get("breaks", []):
            found = breaks.found_by(brk, findings)
            on_line = _on_span(brk, findings)
            counts["breaks"] += 1
            counts["found"] += 1 if found else 0
            cause = "" if found else _miss_cause(on_line, audit.get("outcome"))
            rows.append({**where, **brk, "found": bool(found), "found_by": found,
                         "on_line": on_line, "cause": cause})  # fmt: skip
    return {"counts": _rates(counts), "breaks": rows}


def _on_span(brk: dict[str, Any], findings: list[dict[str, Any]]) -> list[str]:
    first, last = brk["span"]
    return sorted(
        f"{f.get('status')} {f.get('severity')} {f.get('kind')} {f.get('symbol')}"
        for f in findings
        if breaks.same_file(f, brk["path"]) and first <= int(f.get("line") or 0) <= last
    )


def score(manifest: Any, work: Path) -> dict[str, Any]:
    """The `suites` part of results.json."""
    overall, families = _empty(), {}
    upgrades, rows = [], []
    for upgrade in manifest.upgrades:
        got = suites_of(upgrade, work / "upgrades" / upgrade.id)
        head = {"id": upgrade.id, "family": upgrade.family}
        if isinstance(got, str):
            upgrades.append({**head, "run": False, "not_run": got})
            continue
        scored = score_upgrade(upgrade, *got)
        family = families.setdefault(upgrade.family, {"family": upgrade.family, **_empty()})
        _add(family, scored["counts"])
        _add(overall, scored["counts"])
        upgrades.append({**head, "run": True, **scored["counts"]})
        rows += scored["breaks"]
    rows.sort(key=lambda r: (r["upgrade"], r["consumer"], r["path"], r["line"]))
    return {
        "overall": _rates(overall),
        "families": [_rates(families[k]) for k in sorted(families)],
        "upgrades": upgrades,
        "breaks": rows,
        "misses": [r for r in rows if not r["found"]],
    }


# --------------------------------------------------------------------------- the doc


def summary_line(suites: dict[str, Any]) -> str:
    o = suites["overall"]
    recall = "n/a" if o["recall"] is None else f"{o['recall']:.2f}"
    return (
        f"{o['dependents']} dependents over {o['upgrades']} upgrades: {o['ran']} suites ran at "
        f"both releases ({o['passing_at_baseline']} with passing tests at the baseline), "
        f"{o['no_tests']} with no tests, {o['install_failed']} not installable, "
        f"{o['no_sources'] + o['not_run'] + o['other_status']} not run; {o['breaks']} breaks: "
        f"{o['found']} found, recall {recall} ({o['test_breaks']} more in the tests' own files)"
    )


def render(results: dict[str, Any], cell: Any, code: Any, table: Any) -> list[str]:
    """The section's lines; `cell`, `code` and `table` are score.py's formatters."""
    suites = results.get("suites")
    out = ["", "### The test-suite judge, per family", ""]
    if not suites or not suites["upgrades"] or not any(u["run"] for u in suites["upgrades"]):
        return [*out, "Not run (`make world-suites`)."]
    touch = {f["family"]: f.get("recall") for f in results.get("families", [])}
    out += [
        f"**{summary_line(suites)}.**",
        "",
        "Each dependent's own tests at the baseline and at the target (tests/world/suites.py): "
        "a test that passes at the baseline and fails at the target with AttributeError, "
        "TypeError, ImportError or NameError is a break at the consumer line where its traceback "
        "leaves the consumer for the provider. Found: a new error or warning on that statement. "
        "The touchpoint judge's recall is beside it.",
        "",
    ]
    rows = [
        [cell(f["family"]), str(f["dependents"]), str(f["ran"]), str(f["passing_at_baseline"]),
         str(f["no_tests"]), str(f["install_failed"]), str(f["breaks"]), str(f["found"]),
         _rate(f["recall"]), _rate(touch.get(f["family"])), str(f["test_breaks"])]
        for f in suites["families"]
    ]  # fmt: skip
    head = ["family", "dependents", "suites ran", "passing at baseline", "no tests",
            "not installable", "breaks", "found", "recall (suites)", "recall (touchpoints)",
            "breaks in tests only"]  # fmt: skip
    out += table(head, rows)
    return out + _idle(suites, cell) + _misses(suites, cell, code, table)


def _idle(suites: dict[str, Any], cell: Any) -> list[str]:
    reasons: dict[str, list[str]] = {}
    for u in suites["upgrades"]:
        if not u["run"]:
            reasons.setdefault(u["not_run"], []).append(cell(u["id"]))
    lines = [f"Upgrades {why}: {', '.join(ids)}." for why, ids in sorted(reasons.items())]
    return ["", *lines] if lines else []


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _misses(suites: dict[str, Any], cell: Any, code: Any, table: Any) -> list[str]:
    rows = [
        [cell(b["upgrade"]), code(b["consumer"]), code(f"{b['path']}:{b['line']}"),
         cell(", ".join(b["exceptions"])), cell(b["message"][:160]), str(b["test_count"]),
         cell(b["cause"])]
        for b in suites["misses"]
    ]  # fmt: skip
    out = [
        "",
        f"### Misses of the test-suite judge: breaks with no new error or warning ({len(rows)})",
        "",
    ]
    if not rows:
        return [*out, "None."]
    head = ["upgrade", "consumer", "file:line", "exception", "message", "tests", "cause"]
    more = (
        [f"({len(rows) - LISTED} more in tests/world/results.json)"] if len(rows) > LISTED else []
    )
    return out + table(head, rows[:LISTED]) + more
