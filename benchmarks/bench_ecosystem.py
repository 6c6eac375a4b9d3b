"""Ecosystem-run figures: audits per minute per core, 1 vs 2 workers, cold and warm, and what
sharing the provider side saves. Runs on the synthetic world of tests/ecosystem/make_world.py
(a provider and N consumers) served by the tests' local fake index: no public index is used.

    .venv/bin/python benchmarks/bench_ecosystem.py [--consumers 200] [--share 40]
    .venv/bin/python benchmarks/bench_ecosystem.py --store [--consumers 200] [--modules 2000]

Each consumer is two audits (against the target, and against its baseline release for
`fixed`). "cold" starts from an empty cache; "warm" reruns on the filled cache without a
store. The sharing figure audits `--share` consumers twice through the engine: once all with
one cache (the provider fetched and its lookups memoized once), once each with a cache of its
own (the provider fetched and parsed per consumer), and compares wall time and the requests
for the provider's files.

The store figures (`--store`): what naming the inputs of each row costs (sources/identity.py).
A cold 2-worker run with a store against the same run without one (each audit names its
consumer and inferred baseline), a rerun that reuses every row (each row's consumer and
baseline named again in the parent), and the content hash of a provider checkout the size of
vLLM's Python (`--modules` files of `--module-kib` KiB; hashed once per run when the target or
baseline is a folder, and for each folder consumer), read cold (the page cache dropped for its
files where the system allows: posix_fadvise) and warm.
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
from auditor.sources.identity import folder_digest  # noqa: E402
from tests.ecosystem.make_world import make_world  # noqa: E402
from tests.trust.fakeindex import FakeIndex, serving  # noqa: E402


def timed_run(
    index: FakeIndex, specs: list[str], cache: Path, jobs: int, store: Path | None = None
) -> float:
    started = time.perf_counter()
    report = ecosystem.run(
        specs, "acme==2.0", index_url=index.url, cache_dir=str(cache), jobs=jobs, store=store
    )
    seconds = time.perf_counter() - started
    if store is not None:
        print(f"  (with the store: {report.stats['audited']} audited, "
              f"{report.stats['reused_from_store']} reused, in {seconds:.2f} s)")  # fmt: skip
    return seconds


def checkout(folder: Path, modules: int, kib: int) -> Path:
    """A provider checkout: `modules` modules of `kib` KiB in packages of 50, data beside."""
    package = folder / "src" / "big"
    line = "def f_{0}(a, b=1, *, c=None):\n    return (a, b, c)  # padding padding padding\n"
    for i in range(modules):
        sub = package / f"sub{i // 50}"
        sub.mkdir(parents=True, exist_ok=True)
        text = "".join(line.format(n) for n in range(kib * 1024 // len(line)))
        (sub / f"m{i}.py").write_text(text, encoding="utf-8")
        (sub / "__init__.py").write_text("", encoding="utf-8")
    (folder / "pyproject.toml").write_text('[project]\nname = "big"\n', encoding="utf-8")
    return package


def drop_cached(folder: Path) -> None:
    """Ask the kernel to drop its cached pages of the folder's files (best effort)."""
    for path in folder.rglob("*.py"):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def digest_seconds(package: Path) -> tuple[float, float]:
    """folder_digest of the checkout, cold and then warm."""
    drop_cached(package)
    started = time.perf_counter()
    folder_digest(package)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    folder_digest(package)
    return cold, time.perf_counter() - started


def store_figures(index: FakeIndex, specs: list[str], root: Path, args: argparse.Namespace) -> None:
    plain = timed_run(index, specs, root / "plain-cache", 2)
    with_store = timed_run(index, specs, root / "store-cache", 2, root / "store.sqlite")
    reused = timed_run(index, specs, root / "store-cache", 2, root / "store.sqlite")
    again = timed_run(index, specs, root / "store-cache", 2)
    package = checkout(root / "checkout", args.modules, args.module_kib)
    size = sum(p.stat().st_size for p in package.rglob("*.py")) / (1 << 20)
    cold, warm = digest_seconds(package)
    extra = (with_store - plain) / len(specs) * 1000
    print(f"store, {len(specs)} consumers, 2 workers: cold {plain:.2f} s without a store, "
          f"{with_store:.2f} s with one ({extra:+.1f} ms a consumer); warm rerun "
          f"{again:.2f} s without, {reused:.2f} s reusing every row")  # fmt: skip
    print(f"content hash of a checkout of {args.modules} modules ({size:.1f} MiB): "
          f"cold {cold:.3f} s, warm {warm:.3f} s")  # fmt: skip


def provider_requests(index: FakeIndex) -> int:
    return sum(1 for path, _ in index.requests if "/acme-" in path or path.endswith("/acme/"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--consumers", type=int, default=200)
    parser.add_argument("--share", type=int, default=40)
    parser.add_argument("--store", action="store_true", help="only the store figures")
    parser.add_argument("--modules", type=int, default=2000)
    parser.add_argument("--module-kib", type=int, default=12)
    args = parser.parse_args()
    os.environ["PIP_CONFIG_FILE"] = os.devnull
    os.environ.pop("PIP_INDEX_URL", None)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        world = make_world(root / "world", consumers=args.consumers, seed=0)
        specs = [c.spec for c in world.consumers]
        with serving(world.load(FakeIndex())) as index:
            if args.store:
                store_figures(index, specs, root, args)
                return
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
