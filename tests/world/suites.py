"""The world harness's second judge: each dependent's own test suite, run at the baseline and
at the target (as crater does), time-bounded. It never reads drift-audit's output.

For each upgrade with `judge = "full"` (`--only`, `--limit N`: the first N dependents):

1. the dependent's tests: its release's sdist, extracted whole (testsource.py); none there:
   "no tests", counted;
2. two scratch venvs (suite_env.py): the dependent at its pinned release with its test
   requirements and pytest, capped at the upgrade's cut-off, beside the provider at the baseline;
   the same packages with the provider at the target;
3. pytest on a copy of the sdist per venv, from its top folder as a developer runs it
   (`python -s -m pytest -p _world_suite_plugin -p no:cacheprovider -o addopts= -W default
   --continue-on-collection-errors`: the project's own options and warnings-as-errors off, the
   sdist's copy of the package removed so the installed one is imported), the tests a
   package installs run where they are installed, under `unshare -n` where the machine allows,
   HOME and TMPDIR in the run's folder, one thread per math library, each test phase bounded
   (TEST_SECONDS, in the plugin) and the whole suite too (SUITE_SECONDS, its process group killed);
4. breaks.py pairs the two runs: a test that passes at the baseline and fails at the target with
   AttributeError, TypeError, ImportError or NameError is a break at the consumer line where its
   traceback leaves the consumer for the provider; deduplicated by location.

Each side's outcome is kept in `suites/outcomes/<id>/<dependent>/` by provider release and a
digest of these modules, so a rerun (or one cut short by `--budget`) resumes; venvs and run
folders are removed once a dependent is done. At most 2 dependents at once (`--jobs`), each
running one suite at a time. Writes `upgrades/<id>/suites.json`; score.py scores it.

    python -m tests.world.suites [--manifest FILE] [--only ID ...] [--limit N] [--jobs N]
                                 [--budget SECONDS] [--suite-seconds S] [--keep]
"""

from __future__ import annotations

import concurrent.futures as futures
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.world import breaks
from tests.world.common import (
    manifest_of,
    parser,
    read_json,
    say,
    upgrade_dir,
    work_dir,
    write_json,
)
from tests.world.consumers import ConsumerError, consumer_sources
from tests.world.manifest import pin
from tests.world.suite_env import Dates, Install, Installer, baseline_venv, freeze_diff, target_venv
from tests.world.testsource import NoTests, Tree, find_test_files, roots_of, sdist_tree
from tests.world.venvs import Venv, VenvError, isolation, provider_venv

if TYPE_CHECKING:
    import datetime as dt

    from tests.world.consumers import Sources
    from tests.world.manifest import Upgrade

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "suite_plugin.py"
SOURCES = ("suites.py", "suite_env.py", "testsource.py", "suite_plugin.py")
SUITE_SECONDS = 600
TEST_SECONDS = 120
BUDGET = 8 * 3600
MAX_JOBS = 2
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS")  # fmt: skip
_FETCH = threading.Lock()  # one download at a time (two upgrades may share a dependent)


@functools.cache
def digest() -> str:
    sha = hashlib.sha256()
    for name in SOURCES:
        sha.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return sha.hexdigest()[:12]


@dataclass
class Context:
    """One upgrade's share: the provider venvs' constraints, the cut-off, the options."""

    upgrade: Upgrade
    python: str
    work: Path
    constraints: dict[str, Path]  # side -> the provider venv's constraints.txt
    pip_python: Path
    cutoff: dt.datetime
    suite_seconds: int
    keep: bool
    deadline: float

    def spec(self, side: str) -> str:
        version = self.upgrade.baseline if side == "baseline" else self.upgrade.target
        return f"{self.upgrade.provider}=={version}"

    def folder(self, kind: str, name: str, version: str) -> Path:
        return (
            self.work / "suites" / kind / self.upgrade.id / f"{canonicalize_name(name)}-{version}"
        )

    def outcome_path(self, name: str, version: str, side: str) -> Path:
        release = self.spec(side).replace("==", "-")
        return self.folder("outcomes", name, version) / f"{side}-{release}-{digest()}.json"


# --------------------------------------------------------------------------- one run


def site_packages(venv: Venv, python: str) -> Path:
    return venv.path / "lib" / f"python{python}" / "site-packages"


def plan_run(tree: Tree, sources: Sources, site: Path, project: Path) -> dict[str, Any]:
    """Copy the sdist to `project` and say what pytest runs: per top-level package of the
    release, the installed package when it installs tests (the sdist's copy removed, so the
    installed package is the one imported), else the sdist's copy when that holds tests
    (`checkout`), else neither; and the tests outside the packages. A package is handed to
    pytest whole, not its test folders one by one: pytest loads the conftest of every folder it
    is handed before it collects anything, and one that fails would stop them all."""
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(tree.project, project, symlinks=False)
    root = project / tree.import_root.relative_to(tree.project)
    tops = sorted({f.split("/", 1)[0].removesuffix(".py") for f in sources.files})
    args: list[str] = []
    modes: dict[str, str] = {}
    for top in tops:
        copy = root / top if (root / top).is_dir() else root / f"{top}.py"
        installed = site / top
        if installed.is_dir() and find_test_files(installed):
            modes[top], args = "installed", [*args, str(installed)]
        elif copy.is_dir() and find_test_files(copy):
            modes[top], args = "checkout", [*args, str(copy)]
            continue
        else:
            modes[top] = "untested"
        if copy.is_dir():
            shutil.rmtree(copy)
        elif copy.is_file():
            copy.unlink()
    outside = roots_of(find_test_files(project))
    args += [str(project / p) for p in outside if not _in_checkout(project / p, root, modes)]
    checkout = str(root) if "checkout" in modes.values() else None
    return {"args": sorted(set(args)), "modes": modes, "checkout": checkout}


def _in_checkout(path: Path, root: Path, modes: dict[str, str]) -> bool:
    return any(path.is_relative_to(root / top) for top, mode in modes.items() if mode == "checkout")


def _env(venv: Venv, run: Path, record: Path) -> dict[str, str]:
    home, tmp = run / "home", run / "tmp"
    for folder in (home, tmp):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": f"{venv.path / 'bin'}:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(home / "matplotlib"),
        "WORLD_SUITE_RECORD": str(record),
        "WORLD_SUITE_TEST_SECONDS": str(TEST_SECONDS),
        **dict.fromkeys(THREADS, "1"),
    }


def pytest_command(venv: Venv, tree: Tree, project: Path, args: list[str]) -> list[str]:
    config = tree.config()
    chosen = ["-c", str(project / config)] if config else []
    return [*isolation(), str(venv.python), "-s", "-m", "pytest", "-p", "_world_suite_plugin",
            "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:sugar", "-o", "addopts=",
            "-W", "default", "-q", "--continue-on-collection-errors", "--rootdir", str(project),
            *chosen, *args]  # fmt: skip


def run_pytest(
    cmd: list[str], cwd: Path, env: dict[str, str], log: Path, seconds: int
) -> dict[str, Any]:
    """The suite in its own process group, killed whole at its time limit."""
    started = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        try:
            code: int | None = proc.wait(timeout=seconds)
            status = "completed"
        except subprocess.TimeoutExpired:
            status, code = "timeout", None
            _kill(proc)
    tail = log.read_bytes()[-1500:].decode("utf-8", "replace")
    return {"status": status, "exit": code, "seconds": round(time.monotonic() - started, 1),
            "log_tail": tail}  # fmt: skip


def _kill(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 30)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # the last line of a run killed mid-write
    return out


def run_side(ctx: Context, side: str, venv: Venv, made: Install, tree: Tree,
             sources: Sources) -> dict[str, Any]:  # fmt: skip
    run = ctx.folder("runs", tree.name, tree.version) / side
    site = site_packages(venv, ctx.python)
    shutil.copyfile(PLUGIN, site / "_world_suite_plugin.py")
    planned = plan_run(tree, sources, site, run / "project")
    outcome: dict[str, Any] = {"install": made.as_dict(), **planned}
    if not planned["args"]:
        return {**outcome, "status": "no tests", "reason": "no test file left to run"}
    record = run / "records.jsonl"
    record.unlink(missing_ok=True)
    cmd = pytest_command(venv, tree, run / "project", planned["args"])
    ran = run_pytest(cmd, run / "project", _env(venv, run, record), run / "pytest.log",
                     ctx.suite_seconds)  # fmt: skip
    summary = breaks.summarize(_records(record))
    return {**outcome, **ran, **summary, "project": str(run / "project"), "site": str(site)}


# --------------------------------------------------------------------------- one dependent


def _requirements(tree: Tree, provider: str) -> tuple[str, list[str], list[str]]:
    """The dependent's pin, what must install (it and pytest), what may (its test needs)."""
    pinned = f"{tree.name}=={tree.version}"
    return pinned, [pinned, "pytest"], tree.test_requirements(provider)


def _side(ctx: Context, side: str, tree: Tree, sources: Sources,
          base: Install | None) -> dict[str, Any]:  # fmt: skip
    path = ctx.outcome_path(tree.name, tree.version, side)
    if path.is_file():
        return read_json(path)
    installer = Installer(ctx.work, ctx.python, Dates(ctx.work, ctx.pip_python), ctx.cutoff)
    where = ctx.folder("venvs", tree.name, tree.version) / side
    started = time.monotonic()
    try:
        if base is None:
            pinned, core, extra = _requirements(tree, ctx.upgrade.provider)
            venv, made = baseline_venv(installer, where, ctx.upgrade.provider, ctx.spec(side),
                                       pinned, core, extra, ctx.constraints[side])  # fmt: skip
        else:
            venv, made = target_venv(installer, where, ctx.upgrade.provider, ctx.spec(side), base,
                                     ctx.constraints[side])  # fmt: skip
    except VenvError as exc:
        return {
            "status": "install failed",
            "reason": str(exc)[-800:],
        }  # not kept: may be the network
    seconds = round(time.monotonic() - started, 1)
    outcome = {**run_side(ctx, side, venv, made, tree, sources), "install_seconds": seconds}
    write_json(path, outcome)
    return outcome


def _install_of(outcome: dict[str, Any]) -> Install:
    kept = outcome["install"]
    return Install(kept["requirements"], kept["caps"], kept["freeze"], kept["notes"])


def _fetch(ctx: Context, name: str, version: str) -> tuple[Tree, Sources]:
    with _FETCH:
        sources = consumer_sources(ctx.work, ctx.pip_python, name, version)
        return sdist_tree(ctx.work, ctx.pip_python, name, version), sources


def judge_dependent(ctx: Context, spec: str) -> dict[str, Any]:
    started = time.monotonic()
    row = {"spec": spec, **_judge_dependent(ctx, spec)}
    return {**row, "wall_seconds": round(time.monotonic() - started, 1)}


def _judge_dependent(ctx: Context, spec: str) -> dict[str, Any]:
    name, version = pin(spec)
    row: dict[str, Any] = {"spec": spec}
    if time.monotonic() > ctx.deadline:
        return {**row, "status": "not run", "reason": "the time budget ran out (rerun to resume)"}
    try:
        tree, sources = _fetch(ctx, name, version)
    except NoTests as exc:
        return {**row, "status": "no tests", "reason": str(exc)}
    except (ConsumerError, OSError, subprocess.SubprocessError) as exc:
        return {**row, "status": "no sources", "reason": str(exc)}
    base = _side(ctx, "baseline", tree, sources, None)
    sides = {"baseline": base}
    if base.get("status") in ("completed", "timeout"):
        sides["target"] = _side(ctx, "target", tree, sources, _install_of(base))
    if not ctx.keep:
        for kind in ("venvs", "runs"):
            shutil.rmtree(ctx.folder(kind, name, version), ignore_errors=True)
    return {**row, **judge_sides(ctx, sides, sources)}


def _side_row(outcome: dict[str, Any]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for result in outcome.get("tests", {}).values():
        counts[result] = counts.get(result, 0) + 1
    keep = ("status", "reason", "exit", "seconds", "install_seconds", "modes", "log_tail")
    row = {k: outcome[k] for k in keep if k in outcome}
    return {**row, "tests": counts, "collect_errors": len(outcome.get("collect", []))}


def judge_sides(ctx: Context, sides: dict[str, dict[str, Any]], sources: Sources) -> dict[str, Any]:
    base, target = sides["baseline"], sides.get("target")
    rows = {side: _side_row(outcome) for side, outcome in sides.items()}
    if target is None or target.get("status") not in ("completed", "timeout"):
        failed = target if target is not None else base
        status = (
            "install failed"
            if failed.get("status") == "install failed"
            else str(failed.get("status"))
        )
        return {"status": status, "reason": failed.get("reason", ""), "sides": rows}
    pairs, counts = breaks.pair(base, target)
    start = target.get("start", {})
    layout = breaks.Layout(
        site=tuple(start.get("site") or [target["site"]]), stdlib=tuple(start.get("stdlib", ())),
        project=str(target.get("project", "")), consumer_files=frozenset(sources.files),
        provider_tops=frozenset(ctx.upgrade.import_names), checkout=target.get("checkout"),
    )  # fmt: skip
    judged = breaks.judge_pairs(pairs, layout)
    found = [
        b.as_dict(breaks.statement_span(sources.read(b.path), b.line)) for b in judged["consumer"]
    ]
    return {
        "status": "ran",
        "sides": rows,
        "venv_diff": freeze_diff(base["install"]["freeze"], target["install"]["freeze"]),
        "pairs": counts,
        "breaks": found,
        "test_breaks": [b.as_dict() for b in judged["tests"]],
        "not_breaks": judged["not_breaks"],
    }


# --------------------------------------------------------------------------- the stage


def context(upgrade: Upgrade, python: str, work: Path, args: Any, deadline: float) -> Context:
    venvs = {
        side: provider_venv(work, python, upgrade.provider, version, upgrade.import_names)
        for side, version in (("baseline", upgrade.baseline), ("target", upgrade.target))
    }
    pip_python = venvs["baseline"].python
    when = Dates(work, pip_python).of(upgrade.provider).get(str(Version(upgrade.target)))
    if when is None:
        raise VenvError(f"{upgrade.target_spec}: no upload time on the index (the cut-off)")
    return Context(upgrade, python, work, {s: v.path / "constraints.txt" for s, v in venvs.items()},
                   pip_python, when, args.suite_seconds, args.keep, deadline)  # fmt: skip


def _head(ctx: Context) -> dict[str, Any]:
    u = ctx.upgrade
    return {"upgrade": u.id, "family": u.family, "provider": u.provider, "baseline": u.baseline,
            "target": u.target, "python": ctx.python, "digest": digest(),
            "cutoff": ctx.cutoff.isoformat(), "suite_seconds": ctx.suite_seconds,
            "test_seconds": TEST_SECONDS,
            "network": "isolated (unshare -n)" if isolation() else "not isolated"}  # fmt: skip


def _said(ctx: Context, index: int, total: int, row: dict[str, Any]) -> str:
    sides = " / ".join(
        f"{side} {s.get('status')} {sum(s.get('tests', {}).values())} tests "
        f"{s.get('tests', {}).get('passed', 0)} passed {s.get('seconds', 0)} s "
        f"(install {s.get('install_seconds', 0)} s)"
        for side, s in row.get("sides", {}).items()
    )
    tail = (
        f"{len(row.get('breaks', []))} break(s)"
        if row["status"] == "ran"
        else row.get("reason", "")
    )
    head = f"suites: {ctx.upgrade.id}: [{index}/{total}] {row['spec']}: {row['status']}"
    return f"{head}: {sides} {tail}"


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__ or "")
    cli.add_argument("--jobs", type=int, default=MAX_JOBS, help=f"at most {MAX_JOBS}")
    cli.add_argument("--budget", type=int, default=BUDGET, metavar="SECONDS")
    cli.add_argument("--suite-seconds", type=int, default=SUITE_SECONDS, metavar="S")
    cli.add_argument("--keep", action="store_true", help="keep the venvs and run folders")
    args = cli.parse_args(argv)
    manifest, work = manifest_of(args), work_dir()
    deadline = time.monotonic() + args.budget
    jobs = max(1, min(args.jobs, MAX_JOBS))
    plans, failed = [], False
    for upgrade in manifest.select(args.only):
        if not upgrade.judged:
            say(f"suites: {upgrade.id}: static-only ({upgrade.judge_note[:80]})")
            continue
        try:
            ctx = context(upgrade, manifest.python, work, args, deadline)
        except VenvError as exc:
            say(f"suites: {upgrade.id}: {exc}")
            failed = True
            continue
        specs = list(upgrade.dependents[: args.limit] if args.limit else upgrade.dependents)
        plans.append((ctx, specs))
    with futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        submitted = [(ctx, specs, [pool.submit(_guarded, ctx, s) for s in specs])
                     for ctx, specs in plans]  # fmt: skip
        for ctx, specs, done in submitted:
            rows = []
            for index, future in enumerate(done, 1):
                rows.append(future.result())
                failed = failed or rows[-1]["status"] in ("crashed", "not run")
                say(_said(ctx, index, len(specs), rows[-1]))
            head = _head(ctx)
            write_json(
                upgrade_dir(work, ctx.upgrade.id) / "suites.json", {**head, "consumers": rows}
            )
    return 1 if failed else 0


def _guarded(ctx: Context, spec: str) -> dict[str, Any]:
    """One dependent; a bug of the harness there is its row's reason (the others go on, and
    what was kept resumes on the next run), and the stage exits 1."""
    try:
        return judge_dependent(ctx, spec)
    except Exception as exc:  # a harness bug must not lose hours of other suites
        return {"spec": spec, "status": "crashed", "reason": f"{type(exc).__name__}: {exc}"}


if __name__ == "__main__":
    sys.exit(main())
