"""`make bench`: the headline audit cold and warm, next to the whole-wheel path and pyright.

Runs the installed `drift-audit` as a subprocess, BENCH_RUNS times each (default 3):

- cold: an empty cache folder each time (everything from the index);
- warm: the same command again on the filled cache;
- warm, consumer edited: the consumer's sources copied to a folder, one file touched before
  each run, audited against the filled cache (what a developer's edit-audit loop costs);

and prints the medians of wall time, peak memory (the child's own max RSS, from wait4), bytes
fetched and requests (from the JSON report's stats; when the report has no request count yet,
one extra cold run in a counting wrapper supplies it). Then, once (BENCH_WHOLE_RUNS):

- whole wheels: both provider wheels downloaded whole by drift-audit's own whole-download code
  and loaded completely by griffe (`griffe.load(..., allow_inspection=False)`), as a tool that
  does not read by ranges would;
- pyright on the consumer with the target's unpacked sources on its path, if `pyright` is on
  PATH (skipped with a note otherwise);

and the ratios of those to the cold and warm audits. A dated row goes to benchmarks/results.md.
Needs the network (the configured package index); not part of `make test`.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.md"
CONSUMER = os.environ.get("BENCH_CONSUMER", "speculators==0.3.0")
TARGET = os.environ.get("BENCH_TARGET", "vllm==0.17.0")
BASELINE = os.environ.get("BENCH_BASELINE", "vllm==0.11.0")  # what the consumer's metadata implies
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
WHOLE_RUNS = int(os.environ.get("BENCH_WHOLE_RUNS", "1"))
CLI = Path(sys.executable).with_name("drift-audit")

COUNTING_WRAPPER = """
import atexit, sys
from auditor.sources import fetch
made = []
init = fetch.Fetcher.__init__
def counting_init(self, *args, **kwargs):
    init(self, *args, **kwargs)
    made.append(self)
fetch.Fetcher.__init__ = counting_init
def report():
    print("bench-requests", sum(f.requests_made for f in made), file=sys.stderr)
atexit.register(report)
from auditor.cli import main
main(sys.argv[1:])
"""

WHOLE_WHEELS = """
import json, sys, time, griffe
import auditor.sources.index as index_module
index_module.wants_ranges = lambda file: False  # the whole-download path, as before ranges
from auditor.sources import open_index
started = time.perf_counter()
index = open_index(cache_dir=sys.argv[1])
releases = [index.releases(spec)[0] for spec in sys.argv[2:]]
fetched = time.perf_counter()
for release in releases:
    griffe.load("vllm", search_paths=[release.extra["root"]], allow_inspection=False)
done = time.perf_counter()
print(json.dumps({"bytes": index.bytes_fetched, "requests": index.requests_made,
                  "download_s": fetched - started, "griffe_s": done - fetched,
                  "roots": [r.extra["root"] for r in releases]}))
"""


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    rss: float  # MiB, the child's own peak
    stats: dict[str, object]
    stdout: str
    stderr: str


def run(argv: list[str], env: dict[str, str] | None = None) -> Run:
    """Run a command with stdout/stderr to files; wall time and its own peak RSS (wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in (0, 1):
        sys.exit(f"bench: {' '.join(argv)} failed ({proc.returncode}):\n{stderr}")
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    stats = _stats(stdout)
    return Run(wall, rss, stats, stdout, stderr)


def _stats(stdout: str) -> dict[str, object]:
    try:
        report = json.loads(stdout)
    except ValueError:
        return {}
    stats = report.get("stats", {}) if isinstance(report, dict) else {}
    return stats if isinstance(stats, dict) else {}


def audit_argv(consumer: str, cache: Path, *extra: str) -> list[str]:
    return [str(CLI), consumer, "--against", TARGET, "--format", "json", "--cache-dir", str(cache),
            *extra]  # fmt: skip


# --------------------------------------------------------------------------- the audits


def cold_runs(work: Path) -> list[Run]:
    runs = []
    for n in range(RUNS):
        cache = work / f"cold-{n}"
        runs.append(run(audit_argv(CONSUMER, cache)))
        if n < RUNS - 1:
            shutil.rmtree(cache)
    return runs


def warm_runs(cache: Path) -> list[Run]:
    return [run(audit_argv(CONSUMER, cache)) for _ in range(RUNS)]


def edited_runs(cache: Path, work: Path) -> list[Run]:
    """The consumer as a folder (copied from the cache), one file edited before each run."""
    folder = _consumer_folder(cache, work)
    package = next(p for p in sorted(folder.iterdir()) if p.is_dir() and p.suffix != ".dist-info")
    edited = sorted(package.rglob("*.py"))[0]
    runs = []
    for n in range(RUNS):
        with edited.open("a", encoding="utf-8") as fh:
            fh.write(f"# edited for the benchmark, run {n}\n")
        runs.append(run(audit_argv(str(package), cache, "--baseline", BASELINE)))
    return runs


def _consumer_folder(cache: Path, work: Path) -> Path:
    name, _, version = CONSUMER.partition("==")
    index = json.loads((cache / "trees" / name / "index.json").read_text(encoding="utf-8"))
    tree = cache / "trees" / name / index[version]
    folder = work / "consumer"
    shutil.copytree(tree, folder, ignore=shutil.ignore_patterns("release.json"))
    return folder


def counted_requests(work: Path, first: Run) -> int | None:
    if isinstance(first.stats.get("requests"), int):
        return None  # the report has them
    argv = [sys.executable, "-c", COUNTING_WRAPPER, *audit_argv(CONSUMER, work / "counting")[1:]]
    counted = run(argv)
    for line in counted.stderr.splitlines():
        if line.startswith("bench-requests "):
            return int(line.split()[1])
    return None


# --------------------------------------------------------------------------- the others


def whole_wheels(work: Path) -> tuple[Run, dict[str, object]]:
    cache = work / "whole"
    best: tuple[Run, dict[str, object]] | None = None
    for _ in range(WHOLE_RUNS):
        shutil.rmtree(cache, ignore_errors=True)
        done = run([sys.executable, "-c", WHOLE_WHEELS, str(cache), BASELINE, TARGET])
        found = json.loads(done.stdout)
        if best is None or done.wall < best[0].wall:
            best = (done, found)
    assert best is not None
    return best


def pyright_run(work: Path, cache: Path, target_root: str) -> Run | str:
    """pyright in a folder of its own (it crawls its project root): the consumer's package
    and a config that puts the target's unpacked sources on the import path."""
    exe = shutil.which("pyright")
    if exe is None:
        return "skipped: pyright is not on PATH"
    consumer = work / "consumer"
    if not consumer.is_dir():
        consumer = _consumer_folder(cache, work)
    project = work / "pyright"
    project.mkdir()
    packages = [p for p in consumer.iterdir() if p.is_dir() and p.suffix != ".dist-info"]
    for package in packages:
        shutil.copytree(package, project / package.name)
    config = {
        "include": [p.name for p in packages],
        "extraPaths": [target_root],
        "typeCheckingMode": "basic",
    }
    (project / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return run([exe, "--outputjson", "-p", str(project / "pyrightconfig.json")])


# --------------------------------------------------------------------------- output


def median(runs: list[Run], key: str) -> float:
    if key == "wall":
        return statistics.median(r.wall for r in runs)
    if key == "rss":
        return statistics.median(r.rss for r in runs)
    values = [r.stats.get(key) for r in runs]
    return statistics.median(float(v) for v in values if isinstance(v, (int, float)))


def describe(label: str, runs: list[Run], requests: int | None = None) -> str:
    walls = ", ".join(f"{r.wall:.2f}" for r in runs)
    line = f"{label:<24} wall {median(runs, 'wall'):6.2f} s  [{walls}]  "
    line += f"peak {median(runs, 'rss'):6.1f} MiB  "
    line += f"fetched {median(runs, 'bytes_fetched') / 1e6:7.3f} MB  "
    reqs = median(runs, "requests") if "requests" in runs[0].stats else requests
    line += f"requests {reqs if reqs is not None else '?'}  "
    return line + f"audit {median(runs, 'seconds'):.2f} s"


def main() -> None:
    if not CLI.is_file():
        sys.exit(f"bench: {CLI} not found; run `make setup` first")
    work = Path(tempfile.mkdtemp(prefix="drift-bench-"))
    try:
        report(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(work: Path) -> None:
    print(
        f"headline: drift-audit {CONSUMER} --against {TARGET}; {RUNS} runs each; "
        f"load average {_load()} on {os.cpu_count()} cpus",
        flush=True,
    )
    cold = cold_runs(work)
    cache = work / f"cold-{RUNS - 1}"
    requests = counted_requests(work, cold[0])
    print(describe("cold (empty cache)", cold, requests), flush=True)
    warm = warm_runs(cache)
    print(describe("warm (same command)", warm), flush=True)
    edited = edited_runs(cache, work)
    print(describe("warm (consumer edited)", edited), flush=True)
    whole, found = whole_wheels(work)
    whole_line = (
        f"whole wheels + griffe    wall {whole.wall:6.2f} s  (download {found['download_s']:.2f} s,"
        f" full griffe load of both {found['griffe_s']:.2f} s)  peak {whole.rss:6.1f} MiB  "
        f"fetched {int(str(found['bytes'])) / 1e6:7.1f} MB  requests {found['requests']}"
    )
    print(whole_line, flush=True)
    roots = found["roots"]
    target_root = str(roots[-1]) if isinstance(roots, list) else ""
    pyright = pyright_run(work, work / "whole", target_root)
    pyright_line = (
        pyright
        if isinstance(pyright, str)
        else f"pyright on the consumer  wall {pyright.wall:6.2f} s  peak {pyright.rss:6.1f} MiB"
    )
    print(pyright_line, flush=True)
    ratios = _ratios(cold, edited, whole, found, pyright)
    print(ratios, flush=True)
    _append_results(cold, warm, edited, requests, whole, found, pyright, ratios)


def _ratios(
    cold: list[Run], edited: list[Run], whole: Run, found: dict[str, object], pyright: Run | str
) -> str:
    cold_wall, edited_wall = median(cold, "wall"), median(edited, "wall")
    cold_bytes = max(median(cold, "bytes_fetched"), 1.0)
    whole_bytes = int(str(found["bytes"]))
    text = (
        f"ratios: whole-wheel path / cold audit: {whole.wall / cold_wall:.1f}x wall, "
        f"{whole_bytes / cold_bytes:.0f}x bytes, {whole.rss / median(cold, 'rss'):.1f}x memory"
    )
    if not isinstance(pyright, str):
        text += f"; pyright / warm audit (consumer edited): {pyright.wall / edited_wall:.1f}x wall"
    return text


def _append_results(
    cold: list[Run],
    warm: list[Run],
    edited: list[Run],
    requests: int | None,
    whole: Run,
    found: dict[str, object],
    pyright: Run | str,
    ratios: str,
) -> None:
    if not RESULTS.exists():
        RESULTS.write_text(HEADER, encoding="utf-8")
    reqs = median(cold, "requests") if "requests" in cold[0].stats else requests
    pyright_cell = "skipped" if isinstance(pyright, str) else f"{pyright.wall:.2f} s"
    row = [
        datetime.date.today().isoformat(),
        _commit(),
        f"{median(cold, 'wall'):.2f} s",
        f"{median(cold, 'bytes_fetched') / 1e6:.3f} MB",
        str(int(reqs)) if reqs is not None else "?",
        f"{median(cold, 'rss'):.0f} MiB",
        f"{median(warm, 'wall'):.2f} s",
        f"{median(edited, 'wall'):.2f} s",
        f"{whole.wall:.1f} s / {int(str(found['bytes'])) / 1e6:.0f} MB / {whole.rss:.0f} MiB",
        pyright_cell,
        f"{platform.python_version()}, {os.cpu_count()} cpu, load {_load()}",
    ]
    with RESULTS.open("a", encoding="utf-8") as fh:
        fh.write("| " + " | ".join(row) + " |\n")
    print(f"appended to {RESULTS.relative_to(HERE.parent)}; {ratios}")


LOAD_AT_START = os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def _load() -> str:
    """The load average when the benchmark started: other work on the machine skews it."""
    return f"{LOAD_AT_START:.1f}" if LOAD_AT_START is not None else "?"


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return done.stdout.strip()


COLUMNS = (
    "date",
    "commit",
    "cold wall",
    "cold fetched",
    "cold requests",
    "cold peak",
    "warm wall",
    "edited wall",
    "whole wheels + griffe (wall / fetched / peak)",
    "pyright",
    "python, cpus, load (1 min, at start)",
)
HEADER = f"""# Benchmark results

`make bench` appends one row per run (medians of BENCH_RUNS runs; cold = empty cache, warm =
filled cache, edited = filled cache and a consumer file touched). The headline audit:
`drift-audit speculators==0.3.0 --against vllm==0.17.0` (baseline vllm 0.11.0, inferred).
"Whole wheels" downloads both vLLM wheels whole and loads all of vLLM with griffe, both versions.

| {" | ".join(COLUMNS)} |
|{"---|" * len(COLUMNS)}
"""


if __name__ == "__main__":
    main()
