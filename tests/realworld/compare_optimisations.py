"""The real-world corpus with every speed-up on and with every one off: the same JSON findings.

    .venv/bin/python tests/realworld/compare_optimisations.py [CASE...]

For each case (all by default) it runs the audit three times, the way test_realworld.py does
and in its cache: every optimisation switched off (DRIFT_AUDIT_NO_SCAN_CACHE,
DRIFT_AUDIT_NO_GC_PAUSE, DRIFT_AUDIT_NO_MEMO_INDEX, DRIFT_AUDIT_NO_OWN_BFS,
DRIFT_AUDIT_NO_MEMO, DRIFT_AUDIT_NO_CLASS_SOURCES, DRIFT_AUDIT_NO_LEAN_RESULTS,
DRIFT_AUDIT_NO_FACTS_KEEP, DRIFT_AUDIT_NO_INCREMENT, DRIFT_AUDIT_NO_PARALLEL_SCAN), then
everything on twice (the second run reads the consumer scan back from the cache), and compares
the `findings` of the JSON reports, every field. Prints one line per case, the seconds of each
run, and exits 1 on any difference ("reordered": the same findings, in another order among
ties that the report order leaves to chance; tests/functional/test_optimisations.py does
the same on the fixture cases, offline).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import test_realworld as corpus

from auditor.pipeline import audit
from auditor.reporters import json_report

SWITCHES = (
    "DRIFT_AUDIT_NO_SCAN_CACHE",
    "DRIFT_AUDIT_NO_GC_PAUSE",
    "DRIFT_AUDIT_NO_MEMO_INDEX",
    "DRIFT_AUDIT_NO_OWN_BFS",
    "DRIFT_AUDIT_NO_MEMO",
    "DRIFT_AUDIT_NO_CLASS_SOURCES",
    "DRIFT_AUDIT_NO_LEAN_RESULTS",
    "DRIFT_AUDIT_NO_FACTS_KEEP",
    "DRIFT_AUDIT_NO_INCREMENT",
    "DRIFT_AUDIT_NO_PARALLEL_SCAN",
)


def findings(case: corpus.RealCase, cache: Path, off: bool) -> tuple[list[object], float]:
    for name in SWITCHES:
        if off:
            os.environ[name] = "1"
        else:
            os.environ.pop(name, None)
    started = time.perf_counter()
    report = audit(case.consumer, [case.target], baseline=case.baseline, cache_dir=cache)
    seconds = time.perf_counter() - started
    return json.loads(json_report.render(report))["findings"], seconds


def _unordered(found: list[object]) -> list[str]:
    """The findings as a multiset: findings.py's report order leaves some ties to set order
    (two findings alike in location, kind, symbol, status, releases and signatures)."""
    return sorted(json.dumps(f, sort_keys=True) for f in found)


def main(names: list[str]) -> int:
    configured = os.environ.get("DRIFT_AUDIT_REALWORLD_CACHE")
    cache = Path(configured) if configured else Path.home() / ".cache" / "drift-audit-realworld"
    cases = [c for c in corpus.CASES if not names or c.name in names]
    differ = 0
    totals = [0.0, 0.0, 0.0]
    for case in cases:
        plain, t0 = findings(case, cache, off=True)
        cold, t1 = findings(case, cache, off=False)
        warm, t2 = findings(case, cache, off=False)
        same = plain == cold == warm
        reordered = not same and _unordered(plain) == _unordered(cold) == _unordered(warm)
        differ += not same and not reordered
        totals = [totals[0] + t0, totals[1] + t1, totals[2] + t2]
        verdict = "same" if same else "reordered" if reordered else "DIFFERENT"
        print(f"{verdict:9} {len(plain):4} findings  off {t0:6.2f} s  on {t1:6.2f} s  "
              f"on again {t2:6.2f} s  {case.name}", flush=True)  # fmt: skip
    print(
        f"{len(cases) - differ} of {len(cases)} cases with the same findings; seconds: "
        f"off {totals[0]:.1f}, on {totals[1]:.1f}, on again {totals[2]:.1f}"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
