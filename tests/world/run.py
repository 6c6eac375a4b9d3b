"""Stage 1 of the world harness: the real CLI's ecosystem run, one per upgrade.

For each upgrade (or `--only ID`; `--limit N` dependents) it writes the dependents to
`upgrades/<id>/consumers.txt` and runs, as a subprocess of the repo's `.venv/bin/drift-audit`:

    drift-audit ecosystem --against P==target --baseline P==baseline --consumers FILE
        --format json -o upgrades/<id>/ecosystem.json --store STORE --jobs 2 --cache-dir CACHE

The store is per upgrade and per digest of the tool's sources, so a rerun with the same tool
audits nothing again, and a changed tool audits everything again. The cache is shared.

    python -m tests.world.run [--manifest FILE] [--only ID ...] [--limit N]
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import TYPE_CHECKING

from tests.world.common import (
    TOOL,
    manifest_of,
    parser,
    read_json,
    say,
    tool_digest,
    upgrade_dir,
    work_dir,
    write_text,
)

if TYPE_CHECKING:
    from pathlib import Path

    from tests.world.manifest import Upgrade

RUN_TIMEOUT = 4 * 3600  # the tool bounds each audit (--timeout); this bounds the whole run


def command(upgrade: Upgrade, folder: Path, work: Path, jobs: int = 2) -> list[str]:
    return [
        str(TOOL),
        "ecosystem",
        "--against",
        upgrade.target_spec,
        "--baseline",
        upgrade.baseline_spec,
        "--consumers",
        str(folder / "consumers.txt"),
        "--format",
        "json",
        "-o",
        str(folder / "ecosystem.json"),
        "--store",
        str(folder / f"store-{tool_digest()}.sqlite"),
        "--jobs",
        str(jobs),
        "--cache-dir",
        str(work / "cache"),
        # An audit that fails is an error row, counted by the score as a failed audit; it
        # does not make the whole upgrade "could not run" (the gate's default is 0).
        "--max-errors",
        str(len(upgrade.dependents)),
    ]


def run_upgrade(upgrade: Upgrade, work: Path, limit: int | None) -> bool:
    """One ecosystem run; False when it could not run (exit 2, a crash, no report)."""
    folder = upgrade_dir(work, upgrade.id)
    dependents = list(upgrade.dependents[:limit] if limit else upgrade.dependents)
    write_text(folder / "consumers.txt", "".join(f"{d}\n" for d in dependents))
    report = folder / "ecosystem.json"
    report.unlink(missing_ok=True)
    say(f"run: {upgrade.id}: {upgrade.baseline_spec} -> {upgrade.target} over {len(dependents)}")
    started = time.monotonic()
    try:
        done = subprocess.run(
            command(upgrade, folder, work),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        write_text(folder / "run.log", f"timed out after {RUN_TIMEOUT} s\n")
        say(f"run: {upgrade.id}: timed out")
        return False
    write_text(folder / "run.log", f"exit status {done.returncode}\n{done.stderr}")
    if done.returncode not in (0, 1) or not report.is_file():
        say(f"run: {upgrade.id}: could not run (exit {done.returncode}): {done.stderr[-500:]}")
        return False
    stats = read_json(report).get("stats", {})
    say(
        f"run: {upgrade.id}: {stats.get('consumers', 0)} audits "
        f"({stats.get('reused_from_store', 0)} from the store), "
        f"{stats.get('regressed', 0)} regressed, {stats.get('error', 0)} error "
        f"in {time.monotonic() - started:.0f} s"
    )
    return True


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__ or "").parse_args(argv)
    manifest = manifest_of(args)
    if not TOOL.is_file():
        say(f"run: {TOOL} is missing: run `make setup` first")
        return 2
    work = work_dir()
    results = [run_upgrade(u, work, args.limit) for u in manifest.select(args.only)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
