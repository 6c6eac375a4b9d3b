"""Ecosystem-run figures: audits per minute per core, 1 vs 2 workers, cold and warm, and what
sharing the provider side saves. Runs on the synthetic world of tests/ecosystem/make_world.py
(a provider and N consumers) served by the tests' local fake index: no public index is used.

    .venv/bin/python benchmarks/bench_ecosystem.py [--consumers 200] [--share 40]

Each consumer is two audits (against the target, and against its baseline release for
`fixed`). "cold" starts from an empty cache; "warm" reruns on the filled cache without a
store. The sharing figure audits `--share` consumers twice through the engine: once all with
one cache (the provider fetched and its lookups memoized once), once each with a cache of its
own (the provider fetched and parsed per consumer), and compares wall time and the requests
for the provider's files.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from auditor import ecosystem  # noqa: E402
from auditor.engine import LocalEngine  # noqa: E402
from tests.ecosystem.make_world import make_world  # noqa: E402
from tests.trust.fakeindex import FakeIndex, serving  # noqa: E402


def timed_run(index: FakeIndex, specs: list[str], cache: Path, jobs: int) -> float:
    started = time.perf_counter()
    ecosystem.run(specs, "acme==2.0", index_url=index.url, cache_dir=str(cache), jobs=jobs)
    return time.perf_counter() - started


def provider_requests(index: FakeIndex) -> int:
    return sum(1 for path, _ in index.requests if "/acme-" in path or path.endswith("/acme/"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--consumers", type=int, default=200)
    parser.add_argument("--share", type=int, default=40)
    args = parser.parse_args()
    os.environ["PIP_CONFIG_FILE"] = os.devnull
    os.environ.pop("PIP_INDEX_URL", None)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        world = make_world(root / "world", consumers=args.consumers, seed=0)
        specs = [c.spec for c in world.consumers]
        with serving(world.load(FakeIndex())) as index:
            rows = []
            for jobs in (1, 2):
                cold = timed_run(index, specs, root / f"cache-{jobs}", jobs)
                warm = timed_run(index, specs, root / f"cache-{jobs}", jobs)
                rows.append((jobs, cold, warm))
            share = specs[: args.share]
            index.requests.clear()
            started = time.perf_counter()
            tasks = [ecosystem.Task(s, "acme==2.0", None, str(root / "shared"), index.url, False)
                     for s in share]  # fmt: skip
            list(LocalEngine(2).run(ecosystem.audit_one, tasks, timeout=600, memory=None))
            shared_seconds = time.perf_counter() - started
            shared_requests = provider_requests(index)
            index.requests.clear()
            started = time.perf_counter()
            tasks = [ecosystem.Task(s, "acme==2.0", None, str(root / f"own-{i}"), index.url, False)
                     for i, s in enumerate(share)]  # fmt: skip
            list(LocalEngine(2).run(ecosystem.audit_one, tasks, timeout=600, memory=None))
            own_seconds = time.perf_counter() - started
            own_requests = provider_requests(index)
    load = os.getloadavg()
    print(f"ecosystem runs: {args.consumers} synthetic consumers, {cores} cores, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    print(f"{'workers':>7}  {'cold s':>7}  {'warm s':>7}  {'cold /min/core':>14}  "
          f"{'warm /min/core':>14}")  # fmt: skip
    for jobs, cold, warm in rows:
        per_cold = args.consumers / cold * 60 / jobs
        per_warm = args.consumers / warm * 60 / jobs
        print(f"{jobs:>7}  {cold:>7.2f}  {warm:>7.2f}  {per_cold:>14.0f}  {per_warm:>14.0f}")
    (_, cold1, warm1), (_, cold2, warm2) = rows
    print(f"2 workers vs 1: cold {cold1 / cold2:.2f}x faster, warm {warm1 / warm2:.2f}x faster")
    print(f"provider sharing, {args.share} consumers: one cache {shared_seconds:.2f} s and "
          f"{shared_requests} provider requests; a cache each {own_seconds:.2f} s and "
          f"{own_requests} provider requests (saving {own_seconds / shared_seconds:.2f}x time, "
          f"{own_requests / max(shared_requests, 1):.1f}x requests)")  # fmt: skip


if __name__ == "__main__":
    main()
