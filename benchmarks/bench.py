"""`make bench`: the headline audit cold and warm, next to mypy, pyright and the whole-wheel
path; then the audit at scale (a big consumer, a wide one, a 35-release timeline), every
figure beside the goal it is held to and the ratio measured in the same run.

Runs the installed `drift-audit` as a subprocess, BENCH_RUNS times each (default 3):

- cold: an empty cache folder each time (everything from the index);
- warm: the same command again on the filled cache (also with the text report, which does
  not propose fixes);
- warm, consumer edited: the consumer's sources copied to a folder and audited once, then one
  file touched before each run, audited against the filled cache (what a developer's
  edit-audit loop costs);

and prints the medians of wall time, CPU (user+sys of the child, from wait4), peak memory
(the child's own max RSS), bytes fetched and requests (from the JSON report's stats). Then,
once (BENCH_WHOLE_RUNS):

- whole wheels: both provider wheels downloaded whole by drift-audit's own whole-download code
  and loaded completely by griffe (`griffe.load(..., allow_inspection=False)`), as a tool that
  does not read by ranges would;
- mypy on the same consumer sources with the target's unpacked sources on MYPYPATH: one run
  to fill its cache, then BENCH_RUNS warm runs (mypy is in the dev extra);
- pyright likewise, if `pyright` is on PATH (skipped with a note otherwise).

Scale (BENCH_SCALE=0 skips it): BENCH_BIG (default transformers==4.46.3 against
torch==2.5.1) cold BENCH_BIG_RUNS times (default 1) and warm; BENCH_WIDE (default
langchain-community==0.4.2 against the headline target: 1,204 files, 3 call sites) warm, and
as a folder: warm with replays off, then with one of its files edited (and how many files
that run walked); the headline consumer against BENCH_TIMELINE (default
`vllm>=0.11`, 35 releases) warm; a batch of 20 real dependents of vLLM
(benchmarks/vllm-dependents.txt, or the file BENCH_BATCH names; BENCH_BATCH=0 skips it), two
audits at a time on one cache, cold and again.

BENCH_PAIRS=1 adds the paired runs of each optimisation on and off (the DRIFT_AUDIT_NO_*
switches) on the workload it is for. The load average is printed at the start and the end:
other work on the machine skews every figure. A dated row goes to benchmarks/results.md
(headline) and one to benchmarks/results-scale.md. Needs the network (the configured package
index); not part of `make test`.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
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
MYPY = Path(sys.executable).with_name("mypy")
SCALE = os.environ.get("BENCH_SCALE", "1") != "0"
BIG = os.environ.get("BENCH_BIG", "transformers==4.46.3")
BIG_TARGET = os.environ.get("BENCH_BIG_TARGET", "torch==2.5.1")
BIG_RUNS = int(os.environ.get("BENCH_BIG_RUNS", "1"))
WIDE = os.environ.get("BENCH_WIDE", "langchain-community==0.4.2")
TIMELINE = os.environ.get("BENCH_TIMELINE", "vllm>=0.11")
BATCH = os.environ.get("BENCH_BATCH")
PAIRS = os.environ.get("BENCH_PAIRS", "0") == "1"
NO_REPLAY = "DRIFT_AUDIT_NO_REPLAY"
SWITCHES = ("DRIFT_AUDIT_NO_SCAN_CACHE", "DRIFT_AUDIT_NO_GC_PAUSE", "DRIFT_AUDIT_NO_MEMO_INDEX",
            NO_REPLAY)  # fmt: skip

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
    cpu: float = 0.0  # seconds, user + sys of the child


def unreplayed(argv: list[str]) -> Run:
    """The run with replays off (DRIFT_AUDIT_NO_REPLAY=1): everything the audit does on a
    filled cache, from the kept scan and the lookup memo."""
    return run(argv, env_with(NO_REPLAY))


def run(
    argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None, *, ok: int = 1
) -> Run:
    """Run a command with stdout/stderr to files; wall time, CPU and its own peak RSS (wait4).
    Exit statuses above `ok` end the benchmark (mypy and pyright exit 1 on type errors)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if not 0 <= proc.returncode <= ok:
        sys.exit(f"bench: {' '.join(argv)} failed ({proc.returncode}):\n{stderr[-4000:]}")
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    stats = _stats(stdout)
    return Run(wall, rss, stats, stdout, stderr, usage.ru_utime + usage.ru_stime)


def _stats(stdout: str) -> dict[str, object]:
    try:
        report = json.loads(stdout)
    except ValueError:
        return {}
    stats = report.get("stats", {}) if isinstance(report, dict) else {}
    return stats if isinstance(stats, dict) else {}


def audit_argv(consumer: str, cache: Path, *extra: str, target: str = TARGET) -> list[str]:
    return [str(CLI), consumer, "--against", target, "--format", "json", "--cache-dir", str(cache),
            *extra]  # fmt: skip


def env_with(*switches: str) -> dict[str, str]:
    """This environment with the named DRIFT_AUDIT_NO_* switches set (and no others)."""
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update(dict.fromkeys(switches, "1"))
    return env


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
    """The consumer as a folder (copied from the cache), audited once as it is (its scan and
    each file's facts kept), then one file edited before each run."""
    folder = _consumer_folder(cache, work)
    package = _packages(folder)[0]
    edited = sorted(package.rglob("*.py"))[0]
    run(audit_argv(str(package), cache, "--baseline", BASELINE))
    runs = []
    for n in range(RUNS):
        with edited.open("a", encoding="utf-8") as fh:
            fh.write(f"# edited for the benchmark, run {n}\n")
        runs.append(run(audit_argv(str(package), cache, "--baseline", BASELINE)))
    return runs


def _consumer_folder(cache: Path, work: Path, consumer: str = CONSUMER) -> Path:
    """The consumer's sources as a folder, written out of the filled cache (offline): an
    extracted tree or a wheel read by ranges alike."""
    name = consumer.partition("==")[0]
    folder = work / f"consumer-{name}" if consumer != CONSUMER else work / "consumer"
    if not folder.is_dir():
        run([sys.executable, "-c", WRITE_OUT, consumer, str(cache), str(folder)])
    return folder


WRITE_OUT = """
import sys
from pathlib import Path
from auditor.sources import open_index, resolve_consumer
spec, cache, folder = sys.argv[1], sys.argv[2], Path(sys.argv[3])
index = open_index(None, cache, True)
release = resolve_consumer(spec, index)
for path in release.tree.walk():
    text = release.tree.read_text(path)
    if text is not None:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
index.close()
"""


def _packages(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and p.suffix != ".dist-info")


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


MYPY_COLD: list[Run] = []  # mypy's run on an empty cache (the sources on disk): its cold


def mypy_runs(work: Path, cache: Path, target_root: str) -> list[Run] | str:
    """mypy on the consumer's packages with the target's unpacked sources on MYPYPATH: one
    run to fill its cache (kept in MYPY_COLD: mypy cold), then RUNS warm ones (what a
    developer's second `mypy` costs)."""
    if not MYPY.is_file():
        return "skipped: mypy is not installed in this environment (the dev extra)"
    if not target_root:
        return "skipped: the target's sources were not unpacked (the whole-wheel step)"
    folder = _consumer_folder(cache, work)
    env = {**os.environ, "MYPYPATH": target_root}
    argv = [str(MYPY), "--cache-dir", str(work / "mypy-cache"), "--ignore-missing-imports",
            "--follow-imports=silent", *(p.name for p in _packages(folder))]  # fmt: skip
    MYPY_COLD.append(run(argv, env, folder))
    print(describe("mypy cold (empty cache)", MYPY_COLD[-1:]), flush=True)
    return [run(argv, env, folder) for _ in range(RUNS)]


# --------------------------------------------------------------------------- scale


@dataclass
class Scale:
    big_cold: list[Run]
    big_warm: list[Run]
    big_unreplayed: list[Run]
    wide_warm: list[Run]
    wide_edited: list[Run]
    wide_folder: list[Run]  # the folder warm, replays off: what an edit is compared with
    wide_walked: str  # "1 of 1204": files walked on an edited run
    timeline_warm: list[Run]
    timeline_unreplayed: list[Run]
    batch: tuple[Run, Run] | str  # (cold, rerun on the filled cache), or why not
    ecosystem: Run | str = "skipped"  # the same consumers cold through `drift-audit ecosystem`


def scale_runs(work: Path) -> Scale:
    """The audit where it grows: a big consumer, a wide one, a long timeline, a batch."""
    big = work / "big"
    big_cold = []
    for _ in range(BIG_RUNS):
        shutil.rmtree(big, ignore_errors=True)
        big_cold.append(run(audit_argv(BIG, big, target=BIG_TARGET)))
        print(describe(f"big cold ({BIG})", big_cold[-1:]), flush=True)
    big_warm = [run(audit_argv(BIG, big, target=BIG_TARGET)) for _ in range(RUNS)]
    print(describe("big warm", big_warm), flush=True)
    big_unreplayed = [unreplayed(audit_argv(BIG, big, target=BIG_TARGET)) for _ in range(RUNS)]
    print(describe("big warm, replay off", big_unreplayed), flush=True)
    wide = work / "wide"
    print(describe(f"wide cold ({WIDE})", [run(audit_argv(WIDE, wide))]), flush=True)
    wide_warm = [run(audit_argv(WIDE, wide)) for _ in range(RUNS)]
    print(describe("wide warm", wide_warm), flush=True)
    wide_folder, wide_edited, walked = _edited(wide, work, WIDE)
    print(describe("wide as a folder, warm, replay off", wide_folder), flush=True)
    print(describe("wide as a folder, one file edited", wide_edited), flush=True)
    print(f"  files walked on an edited run: {walked}", flush=True)
    timeline = work / "timeline"
    cold = run(audit_argv(CONSUMER, timeline, target=TIMELINE))
    print(describe(f"timeline cold ({TIMELINE})", [cold]), flush=True)
    timeline_warm = [run(audit_argv(CONSUMER, timeline, target=TIMELINE)) for _ in range(RUNS)]
    print(describe("timeline warm", timeline_warm), flush=True)
    timeline_unreplayed = [
        unreplayed(audit_argv(CONSUMER, timeline, target=TIMELINE)) for _ in range(RUNS)
    ]
    print(describe("timeline warm, replay off", timeline_unreplayed), flush=True)
    batch = batch_runs(work)
    if not isinstance(batch, str):
        print(describe("batch cold", [batch[0]]), flush=True)
        print(describe("batch rerun (filled cache)", [batch[1]]), flush=True)
    else:
        print(f"batch                    {batch}", flush=True)
    ecosystem = ecosystem_batch(work)
    if not isinstance(ecosystem, str):
        print(describe(f"batch cold, drift-audit ecosystem --jobs {ECO_JOBS}", [ecosystem]),
              flush=True)  # fmt: skip
    return Scale(big_cold, big_warm, big_unreplayed, wide_warm, wide_edited, wide_folder, walked,
                 timeline_warm, timeline_unreplayed, batch, ecosystem)  # fmt: skip


ECO_JOBS = int(os.environ.get("BENCH_ECO_JOBS", "2"))  # issue 26: 20 dependents, --jobs 2, cold


def ecosystem_batch(work: Path) -> Run | str:
    """The batch's consumers cold, as one `drift-audit ecosystem` run (the provider fetched
    once, the pipeline imported once, ECO_JOBS audits at a time)."""
    listed = Path(BATCH) if BATCH else HERE / "vllm-dependents.txt"
    if BATCH == "0" or not listed.is_file():
        return f"skipped: no list of consumers at {listed}"
    argv = [str(CLI), "ecosystem", "--against", TARGET, "--consumers", str(listed),
            "--cache-dir", str(work / "eco"), "--jobs", str(ECO_JOBS), "--format", "json",
            "-o", str(work / "eco.json")]  # fmt: skip
    return run(argv)


def _edited(cache: Path, work: Path, consumer: str) -> tuple[list[Run], list[Run], str]:
    """The consumer as a folder on the filled cache: audited once as it is (its scan and each
    file's facts kept), then warm with replays off, then with one file edited before each
    run; and what the last edited run's `--debug` says it walked."""
    folder = _consumer_folder(cache, work, consumer)
    package = _packages(folder)[0]
    run(audit_argv(str(package), cache))
    warm = [unreplayed(audit_argv(str(package), cache)) for _ in range(RUNS)]
    edited = sorted(package.rglob("*.py"))[len(list(package.rglob("*.py"))) // 2]
    runs = []
    for n in range(RUNS + 1):
        with edited.open("a", encoding="utf-8") as fh:
            fh.write(f"# edited for the benchmark, run {n}\n")
        if n == RUNS:  # one more, to count what it walked
            said = run([*audit_argv(str(package), cache), "--debug"]).stderr
            found = re.search(r"scan: (\d+ of \d+) files (?:walked|changed)", said)
            return warm, runs, found.group(1) if found else "not said"
        runs.append(run(audit_argv(str(package), cache)))
    raise AssertionError


def batch_runs(work: Path) -> tuple[Run, Run] | str:
    """BENCH_BATCH's consumers (default benchmarks/vllm-dependents.txt: 20 real dependents
    of vLLM), each audited against the target with its inferred baseline, two at a time on
    one shared cache: cold, then again on the filled cache. The wall time is the batch's;
    CPU and peak are summed and the largest. (Single audits, not `drift-audit ecosystem`,
    which also audits each consumer against its baseline release.)"""
    listed = Path(BATCH) if BATCH else HERE / "vllm-dependents.txt"
    if BATCH == "0" or not listed.is_file():
        return f"skipped: no list of consumers at {listed}"
    consumers = [line.strip() for line in listed.read_text().splitlines() if line.strip()]
    cache = work / "batch"
    return _batch(consumers, cache), _batch(consumers, cache)


def _batch(consumers: list[str], cache: Path) -> Run:
    """The text report, as `drift-audit ecosystem` audits (the JSON report also proposes
    fixes, which a batch does not ask for)."""
    started = time.perf_counter()

    def one(consumer: str) -> Run:
        out = cache.parent / f"batch-{consumer.replace('=', '_')}.txt"
        return run([str(CLI), consumer, "--against", TARGET, "--format", "text",
                    "-o", str(out), "--cache-dir", str(cache)])  # fmt: skip

    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(one, consumers))
    wall = time.perf_counter() - started
    return Run(wall, max(r.rss for r in done), {}, "", "", sum(r.cpu for r in done))


def paired(label: str, argv: list[str], switch: str, *also: str) -> str:
    """RUNS pairs, the optimisation on and off in turn; medians of wall and CPU."""
    on: list[Run] = []
    off: list[Run] = []
    for n in range(RUNS):
        arms = [(on, env_with(*also)), (off, env_with(switch, *also))]
        for runs, env in arms if n % 2 == 0 else reversed(arms):
            runs.append(run(argv, env))
    return (
        f"{label:<44} on: wall {median(on, 'wall'):6.2f} s cpu {median(on, 'cpu'):6.2f} s "
        f"peak {median(on, 'rss'):6.0f} MiB | off ({switch}): wall {median(off, 'wall'):6.2f} s "
        f"cpu {median(off, 'cpu'):6.2f} s peak {median(off, 'rss'):6.0f} MiB | "
        f"x{median(off, 'cpu') / max(median(on, 'cpu'), 1e-9):.1f} CPU"
    )


def pairs_report(work: Path) -> list[str]:
    """Each optimisation on and off, on the workload it is for (filled caches)."""
    head, big, timeline = work / f"cold-{RUNS - 1}", work / "big", work / "timeline"
    lines = [
        paired("replay: headline warm", audit_argv(CONSUMER, head), NO_REPLAY),
        paired("replay: timeline warm", audit_argv(CONSUMER, timeline, target=TIMELINE),
               NO_REPLAY),
        paired("scan cache: headline warm", audit_argv(CONSUMER, head),
               "DRIFT_AUDIT_NO_SCAN_CACHE", NO_REPLAY),
        paired("scan cache: big warm", audit_argv(BIG, big, target=BIG_TARGET),
               "DRIFT_AUDIT_NO_SCAN_CACHE", NO_REPLAY),
        paired("gc pause: big warm, scan not kept", audit_argv(BIG, big, target=BIG_TARGET),
               "DRIFT_AUDIT_NO_GC_PAUSE", "DRIFT_AUDIT_NO_SCAN_CACHE", NO_REPLAY),
        paired("memo index: timeline warm", audit_argv(CONSUMER, timeline, target=TIMELINE),
               "DRIFT_AUDIT_NO_MEMO_INDEX", NO_REPLAY),
    ]  # fmt: skip
    for line in lines:
        print(line, flush=True)
    return lines


# --------------------------------------------------------------------------- output


def median(runs: list[Run], key: str) -> float:
    if key == "wall":
        return statistics.median(r.wall for r in runs)
    if key == "rss":
        return statistics.median(r.rss for r in runs)
    if key == "cpu":
        return statistics.median(r.cpu for r in runs)
    values = [r.stats.get(key) for r in runs]
    numbers = [float(v) for v in values if isinstance(v, (int, float))]
    return statistics.median(numbers) if numbers else 0.0


def describe(label: str, runs: list[Run], requests: int | None = None) -> str:
    walls = ", ".join(f"{r.wall:.2f}" for r in runs)
    line = f"{label:<34} wall {median(runs, 'wall'):6.2f} s  [{walls}]  "
    line += f"cpu {median(runs, 'cpu'):6.2f} s  peak {median(runs, 'rss'):6.1f} MiB  "
    line += f"fetched {median(runs, 'bytes_fetched') / 1e6:7.3f} MB  "
    reqs = median(runs, "requests") if "requests" in runs[0].stats else requests
    line += f"requests {reqs if reqs is not None else '?'}  "
    return line + f"audit {median(runs, 'seconds'):.2f} s"


def main() -> None:
    if not CLI.is_file():
        sys.exit(f"bench: {CLI} not found; run `make setup` first")
    compiled = compile_bytecode()
    print(f"bytecode: {compiled}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="drift-bench-"))
    try:
        report(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_bytecode() -> str:
    """Compile drift-audit's modules to bytecode, as pip does when it installs a wheel: an
    editable install under PYTHONDONTWRITEBYTECODE=1 (set on some machines and CI runners)
    would otherwise compile every module it imports from source on every run (~40 ms of a
    warm run here), which no installed copy does."""
    import auditor  # the package the measured CLI runs (this venv's, editable or not)

    package = Path(auditor.__file__).parent
    done = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(package)], capture_output=True, text=True
    )
    if done.returncode != 0:
        return f"compileall of {package} failed ({done.stderr.strip()[-200:]}); measured as is"
    unset = "" if os.environ.get("PYTHONDONTWRITEBYTECODE") else " (PYTHONDONTWRITEBYTECODE unset)"
    return f"{package} compiled, as pip compiles an installed wheel{unset}"


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
    print(describe("warm (same command: replayed)", warm), flush=True)
    warm_off = [unreplayed(audit_argv(CONSUMER, cache)) for _ in range(RUNS)]
    print(describe("warm (replay off)", warm_off), flush=True)
    text_argv = [str(CLI), CONSUMER, "--against", TARGET, "--format", "text",
                 "-o", str(work / "warm.txt"), "--cache-dir", str(cache)]  # fmt: skip
    text = [run(text_argv) for _ in range(RUNS)]
    print(describe("warm (text report: no fixes)", text), flush=True)
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
    mypy = mypy_runs(work, cache, target_root)
    print(mypy if isinstance(mypy, str) else describe("mypy warm (same sources)", mypy), flush=True)
    pyright = pyright_run(work, work / "whole", target_root)
    pyright_line = (
        pyright
        if isinstance(pyright, str)
        else f"pyright on the consumer  wall {pyright.wall:6.2f} s  peak {pyright.rss:6.1f} MiB"
    )
    print(pyright_line, flush=True)
    ratios = _ratios(cold, edited, whole, found, pyright)
    print(ratios, flush=True)
    scale = scale_runs(work) if SCALE else None
    if PAIRS and scale is not None:
        pairs_report(work)
    goals = _goals(cold, warm, text, mypy, scale, warm_off)
    print("\n".join(goals), flush=True)
    print(f"load average at the end: {_load_now()} (at the start {_load()})", flush=True)
    _append_results(cold, warm, edited, requests, whole, found, pyright, ratios)
    if scale is not None:
        _append_scale(scale, warm, mypy)


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


def _goal(name: str, value: float, unit: str, limit: float) -> str:
    met = "met" if value <= limit else "NOT MET"
    return f"  {name:<52} {value:8.3f} {unit:<4} goal <= {limit:g} {unit:<4} {met}"


def _goals(
    cold: list[Run],
    warm: list[Run],
    text: list[Run],
    mypy: list[Run] | str,
    scale: Scale | None,
    warm_off: list[Run],
) -> list[str]:
    """Each figure of issue 13 beside its goal, measured in this run; the warm ones also with
    replays off (what a warm run costs when the question, not the inputs, changed); then
    issue 26's (_figures)."""
    lines = ["goals (medians of this run):"]
    lines.append(_goal("headline warm wall (JSON report)", median(warm, "wall"), "s", 0.10))
    lines.append(_goal("  the same, replay off", median(warm_off, "wall"), "s", 0.10))
    lines.append(_goal("headline warm wall (text report)", median(text, "wall"), "s", 0.10))
    if not isinstance(mypy, str):
        mine, theirs = median(warm, "wall"), median(mypy, "wall")
        lines.append(_goal("headline warm / mypy warm, wall (JSON)", mine / theirs, "x", 1.0))
        lines.append(_goal("headline warm / mypy warm, wall (text)",
                           median(text, "wall") / theirs, "x", 1.0))  # fmt: skip
        lines.append(_goal("headline warm / mypy warm, CPU (JSON)",
                           median(warm, "cpu") / median(mypy, "cpu"), "x", 1.0))  # fmt: skip
    lines.append(_goal("headline cold wall", median(cold, "wall"), "s", 0.7))
    lines.append(_goal("headline cold fetched", median(cold, "bytes_fetched") / 1e6, "MB", 1.0))
    if scale is not None:
        lines.append(_goal(f"big warm wall ({BIG})", median(scale.big_warm, "wall"), "s", 3))
        lines.append(_goal("  the same, replay off", median(scale.big_unreplayed, "wall"), "s", 3))
        lines.append(_goal("big peak, warm", median(scale.big_warm, "rss"), "MiB", 500))
        lines.append(_goal(f"wide warm wall ({WIDE})", median(scale.wide_warm, "wall"), "s", 0.5))
        # "a consumer file that changed is the only one scanned again": it is the only one
        # walked; then an edit would cost about what a warm run (not replayed) does
        walked = scale.wide_walked
        met = "met" if walked.startswith("1 of ") else "NOT MET"
        name = "wide, files walked after one file edited"
        lines.append(f"  {name:<52} {walked:>13} goal 1 {met}")
        lines.append(_goal(f"timeline warm wall ({TIMELINE})", median(scale.timeline_warm, "wall"),
                           "s", 0.5))  # fmt: skip
        if isinstance(scale.batch, str):
            lines.append(f"  {'batch of dependents':<52} {scale.batch}")
        else:
            lines.append(_goal("batch cold wall", scale.batch[0].wall, "s", 15))
            lines.append(_goal("batch rerun wall", scale.batch[1].wall, "s", 4))
    return lines + _figures(cold, warm_off, mypy, scale)


def _figures(
    cold: list[Run], warm_off: list[Run], mypy: list[Run] | str, scale: Scale | None
) -> list[str]:
    """Each figure of issue 26's table, measured in this run, beside its goal; one that
    could not be measured says why."""
    lines = [f"issue 26 figures (medians of this run; load average {_load()} -> {_load_now()}):"]
    if isinstance(mypy, str) or not MYPY_COLD:
        lines.append(f"  {'headline warm, replays off / mypy warm':<52} not measured: {mypy}")
        lines.append(f"  {'headline cold / mypy cold':<52} not measured: {mypy}")
    else:
        mine, theirs = median(warm_off, "wall"), median(mypy, "wall")
        lines.append(_goal("headline warm, replays off (JSON) / mypy warm", mine / theirs, "x",
                           0.5) + f"  ({mine:.3f} s / {theirs:.3f} s)")  # fmt: skip
        mine, theirs = median(cold, "wall"), MYPY_COLD[-1].wall
        lines.append(_goal("headline cold / mypy cold (empty caches)", mine / theirs, "x", 0.35)
                     + f"  ({mine:.3f} s / {theirs:.3f} s)")  # fmt: skip
    if scale is None:
        lines.append("  the figures at scale: not measured (BENCH_SCALE=0)")
        return lines
    lines.append(_goal(f"{BIG} vs {BIG_TARGET} cold, wall", median(scale.big_cold, "wall"),
                       "s", 12))  # fmt: skip
    lines.append(_goal("  the same, peak RSS", median(scale.big_cold, "rss"), "MiB", 400))
    lines.append(_goal(f"timeline ({TIMELINE}) warm, replays off",
                       median(scale.timeline_unreplayed, "wall"), "s", 0.4))  # fmt: skip
    edited, warm = median(scale.wide_edited, "wall"), median(scale.wide_folder, "wall")
    lines.append(_goal(f"one file edited in {WIDE} / warm, replays off", edited / warm, "x",
                       1.5) + f"  ({edited:.3f} s / {warm:.3f} s)")  # fmt: skip
    name = f"ecosystem, the dependents, --jobs {ECO_JOBS}, cold"
    if isinstance(scale.ecosystem, str):
        lines.append(f"  {name:<52} not measured: {scale.ecosystem}")
    else:
        lines.append(_goal(name, scale.ecosystem.wall, "s", 90))
    return lines


def _append_scale(scale: Scale, warm: list[Run], mypy: list[Run] | str) -> None:
    path = HERE / "results-scale.md"
    if not path.exists():
        path.write_text(SCALE_HEADER, encoding="utf-8")
    mypy_cell = "skipped" if isinstance(mypy, str) else f"{median(mypy, 'wall'):.3f} s"
    batch = scale.batch
    row = [
        datetime.date.today().isoformat(),
        _commit(),
        f"{median(warm, 'wall'):.3f} s",
        mypy_cell,
        f"{median(scale.big_cold, 'wall'):.1f} s / {median(scale.big_cold, 'rss'):.0f} MiB",
        f"{median(scale.big_warm, 'wall'):.2f} s / {median(scale.big_warm, 'rss'):.0f} MiB",
        f"{median(scale.wide_warm, 'wall'):.2f} s",
        f"{median(scale.wide_edited, 'wall'):.2f} s",
        f"{median(scale.timeline_warm, 'wall'):.2f} s",
        "skipped" if isinstance(batch, str) else f"{batch[0].wall:.1f} s / {batch[1].wall:.1f} s",
        f"{platform.python_version()}, {os.cpu_count()} cpu, load {_load()} -> {_load_now()}",
    ]
    with path.open("a", encoding="utf-8") as fh:
        fh.write("| " + " | ".join(row) + " |\n")


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


def _load_now() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


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

SCALE_COLUMNS = (
    "date",
    "commit",
    "headline warm",
    "mypy warm",
    "big cold (wall / peak)",
    "big warm (wall / peak)",
    "wide warm",
    "wide edited",
    "timeline warm",
    "batch (cold / rerun)",
    "python, cpus, load (start -> end)",
)
SCALE_HEADER = f"""# Benchmark results at scale

`make bench` appends one row per run (medians of BENCH_RUNS runs; big cold: BENCH_BIG_RUNS).
Big: `transformers==4.46.3 --against torch==2.5.1` (1,813 files, 32,499 call sites); wide:
`langchain-community==0.4.2 --against vllm==0.17.0` (1,204 files, 3 call sites), warm and
with one file edited; timeline: `speculators==0.3.0 --against 'vllm>=0.11'` (35 releases),
warm; mypy: warm, the consumer's sources with vLLM 0.17.0's on MYPYPATH.

| {" | ".join(SCALE_COLUMNS)} |
|{"---|" * len(SCALE_COLUMNS)}
"""


if __name__ == "__main__":
    main()
