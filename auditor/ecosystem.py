# Maintainers: a provider release against all of its dependents (`drift-audit ecosystem`).
#
# Owns: the consumer list (`--consumers FILE`: `name==version`, `name`, a folder,
# `name @ file:///...`, `#` comments; or `--dependents`, found on the index by
# sources/dependents.py), one audit per consumer through engine.py, each consumer's outcome,
# the blast radius of each changed provider symbol, and the SQLite store.
# - A consumer's `findings` are exactly what `drift-audit CONSUMER --against TARGET
#   --format json` reports for it alone (`audit_one` makes that document the same way the CLI
#   does: pipeline.audit, fixes on, json_report). Its outcome: `error` (could not be audited:
#   the one-line reason), `regressed` (a new error), `still-broken` (errors, all already
#   there at its baseline), `fixed` (an error of the baseline that the target no longer has,
#   found by auditing the consumer against its baseline release too), else `clean`.
# - The provider side is shared: every audit uses the same cache, where the provider's files
#   and the lookup memo (keyed by file content) land once; the parent fetches the target
#   before the audits start.
# - The store (stdlib sqlite3) gets each result as it finishes, committed at once: a rerun
#   with the same store skips what is done (same consumer, target and baseline) but audits
#   an `error` row again; Ctrl-C or a crash loses nothing finished.
# - The store is untrusted (a file from an earlier run, perhaps restored from a shared CI
#   cache): only a regular file (no link, FIFO, device or folder) that is a SQLite database
#   holding our one table, or nothing yet, is opened; anything else is a StoreError (one
#   line, exit 2) before a byte is written. Every row read back is checked field by field,
#   each finding read as the audit's JSON reader reads one and written back identical, its
#   outcome the one its findings give: a row that does not fit is a miss, audited again.
# - A task runs in another process, maybe another folder (a Ray worker's is its own): its
#   paths are absolute (`Task.consumer`, the cache, a folder index).
# - A consumer that could not even be examined (`unexamined`: a dependent whose page,
#   metadata or file could not be read, or failed its integrity check) is an `error` row
#   with the reason, never left out.
# Takes: specs and options. Gives: an EcosystemReport.
"""Ecosystem runs: one provider release, many consumers, one report."""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from auditor.engine import make_engine
from auditor.errors import AuditError, BadSpecError, ConfigError, StoreError
from auditor.model import BlastRadius, ConsumerResult, EcosystemReport, Outcome

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from auditor.engine import Done

log = logging.getLogger("drift_audit")

SCHEMA_VERSION = 1
DEFAULT_TIMEOUT = 600.0  # seconds per consumer
MIN_TIMEOUT, MAX_TIMEOUT = 1.0, 86400.0  # a day: more is a typo, and inf cannot be waited on
DEFAULT_MEMORY = 4 << 30  # bytes of address space per consumer audit
MIN_MEMORY_MIB, MAX_MEMORY_MIB = 64, 1 << 20  # 64 MiB to 1 TiB
MAX_ROW_CHARS = 64 << 20  # a kept row read back (a big consumer's findings: ~100 KiB)


@dataclass(frozen=True, slots=True)
class Task:
    """One consumer's audit, as a worker needs it (picklable)."""

    spec: str  # as listed: the row's name
    target: str
    baseline: str | None
    cache_dir: str | None
    index_url: str | None
    offline: bool
    consumer: str = ""  # what the worker audits (the spec, a relative path made absolute)


@dataclass(frozen=True, slots=True)
class Audited:
    """What a worker sends back: the CLI's JSON documents (target; baseline when known)."""

    exit_status: int
    report: str | None  # the JSON report against the target
    at_baseline: str | None  # the JSON report against the baseline release alone
    error: str | None = None


# --------------------------------------------------------------------------- the list


def read_consumers(text: str) -> list[str]:
    """One consumer per line; blank lines and `#` comments skipped; duplicates once, where
    first listed."""
    out: dict[str, None] = {}
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            out.setdefault(line)
    return list(out)


def checked_timeout(seconds: float) -> float:
    """Seconds per audit: a finite number from MIN_TIMEOUT to MAX_TIMEOUT (`nan` would turn
    the timeout off, `inf` cannot be waited on); ConfigError otherwise."""
    if not (math.isfinite(seconds) and MIN_TIMEOUT <= seconds <= MAX_TIMEOUT):
        raise ConfigError(
            f"the timeout must be from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g} seconds, not {seconds}"
        )
    return float(seconds)


def checked_memory(mib: int) -> int:
    """MiB of memory per audit, from MIN_MEMORY_MIB to MAX_MEMORY_MIB; ConfigError else."""
    if not MIN_MEMORY_MIB <= mib <= MAX_MEMORY_MIB:
        raise ConfigError(
            f"the memory must be from {MIN_MEMORY_MIB} to {MAX_MEMORY_MIB} MiB, not {mib}"
        )
    return mib


def absolute_here(spec: str) -> str:
    """`spec` as a process in another folder finds it: a folder or file named relative to
    the current folder made absolute; anything else (a requirement, a name) as it is."""
    try:
        path = Path(spec).expanduser()
        if path.is_absolute() or not path.exists():
            return spec
    except (OSError, ValueError, RuntimeError):  # too long, a NUL, an unknown ~user
        return spec
    return str(path.absolute())  # not resolve(): a link in it stays the consumer's own


def provider_name(target: str) -> str:
    try:
        req = Requirement(target)
    except InvalidRequirement as exc:
        raise BadSpecError(f"--against {target!r}: {exc}", hint="e.g. vllm==0.17.0") from exc
    if req.url is None and not any(s.operator in ("==", "===") for s in req.specifier):
        raise BadSpecError(
            f"--against {target} must name one release",
            hint=f"pin it: {req.name}==VERSION (an ecosystem run audits one target)",
        )
    return canonicalize_name(req.name)


# --------------------------------------------------------------------------- one audit


def audit_one(task: Task) -> Audited:
    """The consumer's JSON report against the target, made as the CLI makes it; and, when it
    has a baseline, its report against the baseline release alone (for `fixed`)."""
    from auditor import pipeline
    from auditor.reporters import json_report

    options: dict[str, Any] = {
        "cache_dir": task.cache_dir,
        "index_url": task.index_url,
        "offline": task.offline,
        "fixes": True,
    }
    try:
        report = pipeline.audit(
            task.consumer or task.spec, [task.target], baseline=task.baseline, **options
        )
    except AuditError as exc:
        return Audited(2, None, None, exc.message)
    document = json_report.render(report)
    baseline = report.provider.baseline
    at_baseline = None
    if baseline is not None:
        at_baseline = _at_baseline(task, report.provider.name, baseline, options)
    failing = any(f.status.value == "new" and f.severity.value == "error" for f in report.findings)
    return Audited(1 if failing else 0, document, at_baseline)


def _at_baseline(task: Task, provider: str, version: str, options: dict[str, Any]) -> str | None:
    from auditor import pipeline
    from auditor.reporters import json_report

    pinned = task.baseline or f"{provider}=={version}"
    try:
        report = pipeline.audit(task.consumer or task.spec, [pinned], baseline=pinned, **options)
    except AuditError as exc:
        log.info("%s against its baseline %s: %s", task.spec, pinned, exc.message)
        return None
    return json_report.render(report)


UNREAD = ("unparsable", "unparsable-provider")  # findings that say what was not checked


def _unread(found: Sequence[Mapping[str, Any]]) -> str:
    findings = [f for f in found if f["kind"] in UNREAD and f["status"] == "new"]
    first = findings[0]
    what = "a consumer file" if first["kind"] == "unparsable" else "a provider module"
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"not fully checked: {what} could not be parsed, at {first['path']}{more}"


def outcome_of(spec: str, done: Done[Task, Audited]) -> ConsumerResult:
    """The consumer's row: its outcome, from the worker's documents (or failure)."""
    audited = done.result
    if audited is None or done.failure is not None:
        return ConsumerResult(
            spec, None, None, None, Outcome.ERROR, done.failure, seconds=done.seconds
        )
    if audited.report is None:
        return ConsumerResult(
            spec, None, None, None, Outcome.ERROR, audited.error, seconds=done.seconds
        )
    data = json.loads(audited.report)
    findings = tuple(data["findings"])
    fixed = _fixed(audited.at_baseline, findings)
    outcome = classify(findings, fixed)
    consumer = data["consumer"]
    return ConsumerResult(
        spec,
        consumer.get("name"),
        consumer.get("version"),
        data["provider"].get("baseline"),
        outcome,
        _unread(findings) if outcome is Outcome.ERROR else None,
        findings,
        fixed,
        done.seconds,
        _undecided_count(data),
    )


def _undecided_count(data: Mapping[str, Any]) -> int:
    stats = data.get("stats")
    count = stats.get("undecided", 0) if isinstance(stats, dict) else 0
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def classify(findings: Sequence[Mapping[str, Any]], fixed: Sequence[str]) -> Outcome:
    """The outcome an audit's findings (and the baseline breaks it repairs) give: a consumer
    part of which could not be checked (UNREAD) is an error, unless it regressed anyway."""
    errors = [f for f in findings if f["severity"] == "error" and f["kind"] not in UNREAD]
    if any(f["status"] == "new" for f in errors):
        return Outcome.REGRESSED
    if any(f["kind"] in UNREAD and f["status"] == "new" for f in findings):
        return Outcome.ERROR  # neither clean nor the release's fault
    if errors:
        return Outcome.STILL_BROKEN
    return Outcome.FIXED if fixed else Outcome.CLEAN


def _fixed(at_baseline: str | None, findings: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Errors the consumer had with its baseline release that the target no longer has."""
    if at_baseline is None:
        return ()
    before = [f for f in json.loads(at_baseline)["findings"] if f["severity"] == "error"]
    now = {f["fingerprint"] for f in findings}
    return tuple(sorted({f["fingerprint"] for f in before} - now))


# --------------------------------------------------------------------------- the store


class Store:
    """Results of finished audits, one row per (consumer, target, baseline); None keeps
    them in memory for this run only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.db = _open_store(path)

    def done(self, target: str, baseline: str | None) -> dict[str, ConsumerResult]:
        """The results kept for this target and baseline; an audit that failed (`error`: a
        network failure, a timeout, a release gone) is not a result, and is tried again, as
        is a row that does not fit."""
        rows = self._query(
            "SELECT spec, CASE WHEN typeof(row) = 'text' AND length(row) <= ? THEN row END"
            " FROM audits WHERE target = ? AND baseline = ?",
            (MAX_ROW_CHARS, target, baseline or ""),
        )
        kept: dict[str, ConsumerResult] = {}
        unfit = failed = 0
        for spec, row in rows:
            result = kept_result(spec, row)
            if result is None:
                unfit += 1
            elif result.outcome is Outcome.ERROR:
                failed += 1
            else:
                kept[result.spec] = result
        if failed:
            log.info("auditing again %d consumer(s) whose audit failed before", failed)
        if unfit:
            log.warning("%d row(s) of --store %s do not fit; auditing them again", unfit, self.path)
        return kept

    def put(self, target: str, baseline: str | None, result: ConsumerResult) -> None:
        self._query(
            "INSERT OR REPLACE INTO audits VALUES (?, ?, ?, ?, ?)",
            (result.spec, target, baseline or "", json.dumps(_row(result)), time.time()),
        )
        self._commit()

    def close(self) -> None:
        self.db.close()

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc

    def _commit(self) -> None:
        try:
            self.db.commit()
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc


_COLUMNS = [  # PRAGMA table_info: name, declared type, primary key position
    ("spec", "TEXT", 1),
    ("target", "TEXT", 2),
    ("baseline", "TEXT", 3),
    ("row", "TEXT", 0),
    ("finished", "REAL", 0),
]
_STORE_HINT = "name a new file, or a store an earlier `drift-audit ecosystem` run wrote"


def _open_store(path: Path | None) -> sqlite3.Connection:
    """The store's database, checked to be ours (or empty: then made ours)."""
    if path is None:
        db = sqlite3.connect(":memory:")
    else:
        _check_regular(path)
        try:
            db = sqlite3.connect(str(path))
        except sqlite3.Error as exc:
            raise _store_error(path, exc) from exc
    try:
        _check_schema(db, path)
    except BaseException:
        db.close()
        raise
    return db


def _check_regular(path: Path) -> None:
    """A store is a regular file, or nothing yet: a link, FIFO, device or folder is refused
    before it is opened (SQLite would follow, block on or write into it)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot use --store {path}: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(mode):
        raise StoreError(f"--store {path} is a symbolic link", hint="name the file itself")
    if not stat.S_ISREG(mode):
        raise StoreError(
            f"--store {path} is not a regular file (a folder, FIFO or device)", hint=_STORE_HINT
        )


def _check_schema(db: sqlite3.Connection, path: Path | None) -> None:
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if not tables and version == 0:
            db.execute(
                "CREATE TABLE audits (spec TEXT NOT NULL, target TEXT NOT NULL,"
                " baseline TEXT NOT NULL, row TEXT NOT NULL, finished REAL NOT NULL,"
                " PRIMARY KEY (spec, target, baseline))"
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.commit()
            return
        columns = [(r[1], r[2], r[5]) for r in db.execute("PRAGMA table_info(audits)")]
    except sqlite3.Error as exc:
        raise _store_error(path, exc) from exc
    if tables != ["audits"] or columns != _COLUMNS or version not in (0, SCHEMA_VERSION):
        raise StoreError(
            f"--store {path} is not a drift-audit store (a database of another schema"
            f"{'' if version in (0, SCHEMA_VERSION) else f', version {version}'})",
            hint=_STORE_HINT,
        )


def _store_error(path: Path | None, exc: sqlite3.Error) -> StoreError:
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in reason:
        return StoreError(f"--store {path} is not a SQLite database", hint=_STORE_HINT)
    return StoreError(f"cannot use --store {path}: {reason}", hint=_STORE_HINT)


def _row(result: ConsumerResult) -> dict[str, Any]:
    return {
        "spec": result.spec,
        "name": result.name,
        "version": result.version,
        "baseline": result.baseline,
        "outcome": result.outcome.value,
        "error": result.error,
        "findings": list(result.findings),
        "fixed": list(result.fixed),
        "seconds": result.seconds,
        "undecided": result.undecided,
    }


_ROW_KEYS = frozenset(_row(ConsumerResult("", None, None, None, Outcome.CLEAN)))
# Rows kept before `undecided` was counted fit too: their count is taken as 0 (unknown then,
# and never a finding either way), so a store from an earlier release is not audited again.
_EARLIER_ROW_KEYS = _ROW_KEYS - {"undecided"}


class _Unfit(Exception):
    """A kept row, or a field of it, is not what `_row` writes."""


def kept_result(spec: object, text: object) -> ConsumerResult | None:
    """A row read back from the store, every field checked; None when it does not fit (its
    key is not text, it is not JSON, or not the shape `_row` writes)."""
    if not isinstance(spec, str) or not isinstance(text, str):
        return None
    try:
        row = json.loads(text)
        return _result(spec, row)
    except (ValueError, RecursionError, _Unfit):  # JSONDecodeError is a ValueError
        return None


def _result(spec: str, row: object) -> ConsumerResult:
    if not isinstance(row, dict) or row.get("spec") != spec:
        raise _Unfit
    if set(row) == _EARLIER_ROW_KEYS:
        row = {**row, "undecided": 0}
    elif set(row) != _ROW_KEYS:
        raise _Unfit
    outcome = Outcome(_field(row, "outcome", str))  # ValueError: not an outcome
    findings = tuple(_finding(f) for f in _field(row, "findings", list))
    fixed = tuple(_field(row, "fixed", list))
    if not all(isinstance(f, str) for f in fixed):
        raise _Unfit
    error = _field(row, "error", (str, type(None)))
    if outcome is not Outcome.ERROR and (
        error is not None or classify(findings, fixed) is not outcome
    ):
        raise _Unfit  # an outcome its own findings contradict
    seconds = _field(row, "seconds", (int, float))
    undecided = _field(row, "undecided", int)
    if not (math.isfinite(seconds) and seconds >= 0) or undecided < 0:
        raise _Unfit
    return ConsumerResult(
        spec,
        _field(row, "name", (str, type(None))),
        _field(row, "version", (str, type(None))),
        _field(row, "baseline", (str, type(None))),
        outcome,
        error,
        findings,
        fixed,
        float(seconds),
        undecided,
    )


def _field(row: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = row[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _Unfit
    return value


def _finding(value: object) -> Mapping[str, Any]:
    """A kept finding: exactly what the audit's JSON report writes for the finding the
    audit's JSON reader reads from it (kind, severity, message, fingerprint all agree)."""
    from auditor.reporters.json_report import finding_from_dict, finding_to_dict

    try:
        again = finding_to_dict(finding_from_dict(value))
    except (AuditError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise _Unfit from exc
    if again != value:
        raise _Unfit
    return again


# --------------------------------------------------------------------------- the run


def run(
    specs: Sequence[str],
    target: str,
    *,
    baseline: str | None = None,
    engine: str = "local",
    jobs: int | None = None,
    ray_address: str | None = None,
    store: Path | None = None,
    cache_dir: str | None = None,
    index_url: str | None = None,
    offline: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    memory: int | None = DEFAULT_MEMORY,
    on_result: Callable[[ConsumerResult, int, int], None] | None = None,
    unexamined: Mapping[str, str] | None = None,
) -> EcosystemReport:
    """Audit every consumer against `target`; results stored as they finish. `unexamined`:
    specs that could not be looked at (why): `error` rows, never audited or stored."""
    started = time.perf_counter()
    provider = provider_name(target)
    timeout = checked_timeout(timeout)
    cache_dir = str(Path(cache_dir).expanduser().absolute()) if cache_dir else None
    index_url = _index_url(index_url)
    failed = {s: ConsumerResult(s, None, None, None, Outcome.ERROR, why)
              for s, why in (unexamined or {}).items()}  # fmt: skip
    kept = Store(store)
    try:
        wanted = set(specs) - set(failed)
        finished = {s: r for s, r in kept.done(target, baseline).items() if s in wanted}
        todo = [s for s in specs if s not in finished and s not in failed]
        _warm_provider(target, baseline, cache_dir, index_url, offline)
        if engine == "local":
            _preload()
        tasks = [
            Task(s, target, baseline, cache_dir, index_url, offline, absolute_here(s)) for s in todo
        ]
        results = {**finished, **failed}
        for done in make_engine(engine, jobs=jobs, address=ray_address).run(
            audit_one, tasks, timeout=timeout, memory=memory
        ):
            result = outcome_of(done.task.spec, done)
            kept.put(target, baseline, result)
            results[result.spec] = result
            if on_result is not None:
                on_result(result, len(results), len(specs))
    finally:
        kept.close()
    rows = tuple(results[s] for s in specs if s in results)
    stats = {
        "consumers": len(rows),
        "reused_from_store": len(finished),
        "audited": len(tasks),
        "engine": engine,
        "seconds": round(time.perf_counter() - started, 3),
        **{o.value: sum(1 for r in rows if r.outcome is o) for o in Outcome},
    }
    return EcosystemReport(provider, target, baseline, rows, blast_radius(rows), stats)


def _index_url(url: str | None) -> str | None:
    """--index-url checked, a folder as an absolute file:// URL (the workers' folder is not
    necessarily this one)."""
    from auditor.sources.urls import check_index_url

    return check_index_url(url, origin="--index-url") if url else None


def _warm_provider(
    target: str, baseline: str | None, cache_dir: str | None, index_url: str | None, offline: bool
) -> None:
    """Fetch the target (and a given baseline) once, before the audits share the cache."""
    from auditor.sources import open_index

    index = open_index(index_url, cache_dir, offline)
    try:
        for spec in (target, baseline):
            if spec is not None:
                index.releases(spec)
    finally:
        index.close()


def _preload() -> None:
    """Import, once in the parent, what every audit imports (griffe, the fixes made from the
    text, the reporters): forked children then start with it loaded instead of paying it each."""
    import importlib

    for module in ("auditor.pipeline", "auditor.provider.api", "auditor.fixtext",
                   "auditor.reporters.json_report"):  # fmt: skip
        importlib.import_module(module)


def blast_radius(results: Iterable[ConsumerResult]) -> tuple[BlastRadius, ...]:
    """Per provider symbol with new errors: how many consumers and call sites it breaks,
    the widest first."""
    consumers: dict[str, set[str]] = {}
    sites: dict[str, int] = {}
    for result in results:
        for finding in result.findings:
            if finding.get("status") != "new" or finding.get("severity") != "error":
                continue
            symbol = str(finding["symbol"])
            consumers.setdefault(symbol, set()).add(result.spec)
            sites[symbol] = sites.get(symbol, 0) + 1
    ranked = sorted(consumers, key=lambda s: (-len(consumers[s]), -sites[s], s))
    return tuple(BlastRadius(s, len(consumers[s]), sites[s]) for s in ranked)
