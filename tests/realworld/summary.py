"""Print the corpus results as Markdown: totals, per family, per case, and each miss's cause.

    .venv/bin/python tests/realworld/summary.py > /tmp/results.md

Runs every case the way test_realworld.py does (same cache, same matching) and counts what
the tool reports today; README.md's results section is this script's output.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import test_realworld as corpus

from auditor.kinds import Severity
from auditor.model import Status
from auditor.pipeline import audit


def family(case: corpus.RealCase) -> str:
    return case.target.split("==")[0]


def versions(case: corpus.RealCase) -> str:
    return f"{case.baseline.split('==')[1]} → {case.target.split('==')[1]}"


def main() -> None:
    configured = corpus.os.environ.get("DRIFT_AUDIT_REALWORLD_CACHE")
    cache = Path(configured) if configured else Path.home() / ".cache" / "drift-audit-realworld"
    rows, causes = [], []
    totals = collections.Counter()
    per_family: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case in corpus.CASES:
        report = audit(case.consumer, [case.target], baseline=case.baseline, cache_dir=cache)
        out = corpus.compare(case, report)
        required = [e for e in case.expects if not e.optional]
        missed = [e for e in required if e.missed]
        pre = sum(1 for f in report.findings if f.status is Status.PREEXISTING)
        warnings = sum(
            1 for f in report.findings if f.status is Status.NEW and f.severity is Severity.WARNING
        )
        fam = per_family[family(case)]
        fam["cases"] += 1
        if case.breaking:
            totals["breaks"] += 1
            totals["sites"] += len(required)
            totals["found"] += len(required) - len(missed)
            fam["sites"] += len(required)
            fam["found"] += len(required) - len(missed)
            totals["fully"] += not missed
        else:
            totals["ok"] += 1
            totals["ok_alarms"] += len(out.false_alarms) + len(out.problems)
        totals["alarms"] += len(out.false_alarms)
        totals["problems"] += len(out.problems) + len(out.flipped) + len(out.fixed)
        result = (
            f"{len(required) - len(missed)}/{len(required)} found"
            if case.breaking
            else "works: no new error"
        )
        rows.append(
            f"| `{case.name}` | {family(case)} {versions(case)} | {result} "
            f"| {len(out.false_alarms)} | {warnings} | {pre} |"
        )
        causes += [f"- `{case.name}`: {e.missed}" for e in missed]
        causes += [f"- `{case.name}` (false alarm): {a}" for a in out.false_alarms]
    recall = totals["found"] / totals["sites"] if totals["sites"] else 0.0
    print(
        f"{totals['breaks']} real breaks ({totals['sites']} break sites) and {totals['ok']} "
        f"working pairs over {len(per_family)} provider families. Found {totals['found']} of "
        f"{totals['sites']} break sites (recall {recall:.0%}); {totals['fully']} of "
        f"{totals['breaks']} breaks fully found. False alarms on working pairs: "
        f"{totals['ok_alarms']}; documented false alarms on breaking cases: "
        f"{totals['alarms']}. Unexpected outcomes (failures of the test): {totals['problems']}."
    )
    print("\n| family | cases | break sites found |\n| --- | --- | --- |")
    for name, counts in sorted(per_family.items(), key=lambda kv: (-kv[1]["cases"], kv[0])):
        print(f"| {name} | {counts['cases']} | {counts['found']}/{counts['sites']} |")
    print(
        "\n| case | provider: baseline → target | result | false alarms | new warnings "
        "| pre-existing |\n| --- | --- | --- | --- | --- | --- |"
    )
    print("\n".join(rows))
    print("\nWhat the tool misses today, and why:\n")
    print("\n".join(causes))


if __name__ == "__main__":
    main()
