"""The real-world corpus through the command line: a replayed run says what a run says.

    .venv/bin/python tests/realworld/compare_replay.py [CASE...]

For each case (all by default), in test_realworld.py's cache: the JSON report with replays
off (DRIFT_AUDIT_NO_REPLAY=1), then twice with them on. The second of those must be a
replay (`stats.replayed`) unless the run could not be kept (it warned, or a source can
change under its name), and its findings and exit status must be those of the run with
replays off, every field. One line per case; exit 1 on any difference.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import test_realworld as corpus

from auditor.cli import main as cli_main


def run(
    case: corpus.RealCase, cache: Path, *, replay: bool
) -> tuple[dict[str, object], int, float]:
    """(the JSON report, the exit status, seconds) of one command-line run, in this process."""
    if replay:
        os.environ.pop("DRIFT_AUDIT_NO_REPLAY", None)
    else:
        os.environ["DRIFT_AUDIT_NO_REPLAY"] = "1"
    argv = [case.consumer, "--against", case.target, "--baseline", case.baseline,
            "--cache-dir", str(cache), "--format", "json", "--quiet"]  # fmt: skip
    out = io.StringIO()
    started = time.perf_counter()
    code = 0
    with contextlib.redirect_stdout(out):
        try:
            cli_main(argv)
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    seconds = time.perf_counter() - started
    return json.loads(out.getvalue()), code, seconds


def main(names: list[str]) -> int:
    configured = os.environ.get("DRIFT_AUDIT_REALWORLD_CACHE")
    cache = Path(configured) if configured else Path.home() / ".cache" / "drift-audit-realworld"
    cases = [c for c in corpus.CASES if not names or c.name in names]
    differ = replayed = 0
    for case in cases:
        plain, plain_code, t0 = run(case, cache, replay=False)
        run(case, cache, replay=True)
        again, again_code, t2 = run(case, cache, replay=True)
        stats = again["stats"]
        was = isinstance(stats, dict) and stats.get("replayed") is True
        replayed += was
        same = plain["findings"] == again["findings"] and plain_code == again_code
        differ += not same
        verdict = "same" if same else "DIFFERENT"
        how = "replayed" if was else "not kept"
        print(f"{verdict:9} {how:9} {len(plain['findings']):4} findings  "  # type: ignore[arg-type]
              f"run {t0:6.2f} s  replay {t2:6.3f} s  {case.name}", flush=True)  # fmt: skip
    print(f"{len(cases) - differ} of {len(cases)} cases with the same findings and exit status; "
          f"{replayed} replayed")  # fmt: skip
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
