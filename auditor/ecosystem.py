# Maintainers: a provider release against all of its dependents (`drift-audit ecosystem`).
#
# Owns: the consumer list (`--consumers FILE`: `name==version`, `name` for its newest
# release on the index (`consumer_arg`), a folder, `name @ file:///...`, `#` comments; or
# `--dependents`, found on the index by sources/dependents.py), one audit per consumer
# through engine.py, each consumer's outcome (with how its audit inferred its baseline),
# the blast radius of each changed provider symbol (consumers, and call sites: a place in a
# consumer's code, however many findings it has), and what is reused from the SQLite store
# (ecostore.py).
# - A consumer's `findings` are exactly what `drift-audit CONSUMER --against TARGET
#   --format json` reports for it alone (`audit_one` makes that document the same way the CLI
#   does: pipeline.audit, fixes on, json_report). Its outcome: `error` (could not be audited:
#   the one-line reason), `regressed` (a new error), `still-broken` (errors, all already
#   there at its baseline), `fixed` (an error of the baseline that the target no longer has,
#   found by auditing the consumer against its baseline release too), else `clean`.
# - The provider side is shared: every audit uses the same cache, where the provider's files
#   and the lookup memo (keyed by file content) land once; the parent fetches the target
#   before the audits start.
# - The store gets each result as it finishes, committed at once, with what it was made
#   from (ecostore.Inputs: sources/identity.py's identities of the target, the baseline and
#   the consumer). A rerun with the same store skips what is done: the same specs *and* the
#   same inputs. The parent names the target and a given baseline once (a folder's content
#   is hashed: the cost is in docs/performance.md); the worker names the consumer before
#   its audit reads it, and an inferred baseline after; a rerun names again the consumer
#   (and inferred baseline) of each row kept for this target. A row whose inputs changed,
#   or cannot be named (an installed distribution, a folder holding a link), is audited
#   again; so is an `error` row. Ctrl-C or a crash loses nothing finished. Without a store
#   nothing is named. The store is untrusted: ecostore.py checks it and every row.
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
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from auditor.ecostore import NO_BASELINE, UNREAD, Inputs, Store, classify
from auditor.engine import make_engine
from auditor.errors import AuditError, BadSpecError, ConfigError
from auditor.model import BlastRadius, ConsumerResult, EcosystemReport, Outcome

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from auditor.ecostore import Kept
    from auditor.engine import Done
    from auditor.sources import Index

log = logging.getLogger("drift_audit")

DEFAULT_TIMEOUT = 600.0  # seconds per consumer
MIN_TIMEOUT, MAX_TIMEOUT = 1.0, 86400.0  # a day: more is a typo, and inf cannot be waited on
DEFAULT_MEMORY = 4 << 30  # bytes of address space per consumer audit
MIN_MEMORY_MIB, MAX_MEMORY_MIB = 64, 1 << 20  # 64 MiB to 1 TiB


@dataclass(frozen=True, slots=True)
class Task:
    """One consumer's audit, as a worker needs it (picklable)."""

    spec: str  # as listed: the row's name
    target: str
    baseline: str | None
    cache_dir: str | None
    index_url: str | None
    offline: bool
    consumer: str = ""  # what the worker audits: consumer_arg(spec)
    identify: bool = False  # name the consumer and an inferred baseline (for the store)


@dataclass(frozen=True, slots=True)
class Audited:
    """What a worker sends back: the CLI's JSON documents (target; baseline when known)."""

    exit_status: int
    report: str | None  # the JSON report against the target
    at_baseline: str | None  # the JSON report against the baseline release alone
    error: str | None = None
    consumer_id: str | None = None  # with Task.identify: what the audit read of the consumer
    baseline_id: str | None = None  # and of an inferred baseline (NO_BASELINE: none)


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


_PROJECT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508 names
NEWEST = ">=0"  # a bare name's specifier: every final release, so the newest is audited


def consumer_arg(spec: str) -> str:
    """What the audit of a listed consumer is given: a folder or file named relative to the
    current folder made absolute (a process in another folder finds it); a bare project name
    that names no folder or file here, `name>=0`: its newest release on the index (as the
    list's format says; an audit's own CONSUMER would look for an installed distribution);
    anything else (a requirement, a direct reference) as it is."""
    try:
        path = Path(spec).expanduser()
        exists = path.exists()
    except (OSError, ValueError, RuntimeError):  # too long, a NUL, an unknown ~user
        return spec
    if not exists:
        return f"{spec}{NEWEST}" if _PROJECT_NAME.fullmatch(spec) else spec
    if path.is_absolute():
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
    has a baseline, its report against the baseline release alone (for `fixed`). With
    `task.identify`, the identities of the consumer (named before the audit reads it) and of
    an inferred baseline, which the store keeps the row with."""
    if not task.identify:
        return _audited(task, None)
    from auditor.sources import open_index

    try:
        index = open_index(task.index_url, task.cache_dir, task.offline)
    except AuditError as exc:
        return Audited(2, None, None, exc.message)
    try:
        return _audited(task, index)
    finally:
        index.close()


def _audited(task: Task, index: Index | None) -> Audited:
    from auditor import pipeline
    from auditor.reporters import json_report
    from auditor.sources.identity import consumer_identity

    consumer = task.consumer or task.spec
    options: dict[str, Any] = {
        "cache_dir": task.cache_dir,
        "index_url": task.index_url,
        "offline": task.offline,
        "fixes": True,
    }
    try:  # the consumer is resolved as the audit resolves it: its failure is the audit's
        consumer_id = consumer_identity(consumer, index) if index is not None else None
        report = pipeline.audit(consumer, [task.target], baseline=task.baseline, **options)
    except AuditError as exc:
        return Audited(2, None, None, exc.message)
    document = json_report.render(replace(report, list_undecided=True))
    baseline = report.provider.baseline
    at_baseline = None
    if baseline is not None:
        at_baseline = _at_baseline(task, report.provider.name, baseline, options)
    failing = any(f.status.value == "new" and f.severity.value == "error" for f in report.findings)
    inferred = None
    if index is not None and task.baseline is None:  # a given one the parent names
        inferred = inferred_identity(report.provider.name, baseline, index)
    return Audited(1 if failing else 0, document, at_baseline, None, consumer_id, inferred)


def inferred_identity(provider: str, version: object, index: Index) -> str | None:
    """The identity of the baseline release an audit inferred (`version`; None: it had
    none), resolved as the audit resolved it; None when it cannot be named."""
    from packaging.version import InvalidVersion, Version

    from auditor.sources.identity import spec_identity

    if version is None:
        return NO_BASELINE
    try:
        Version(str(version))  # a kept row's version is untrusted: a version, or no match
        return spec_identity(f"{provider}=={version}", index)
    except (InvalidVersion, AuditError):
        return None


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
        _stat(data, "undecided"),
        _stat(data, "sites"),
        tuple(data.get("undecided") or ()),
        _baseline_why(data["provider"]),
    )


def _baseline_why(provider: Mapping[str, Any]) -> str | None:
    """Why the audit's baseline is the one it inferred (the JSON's `baseline_inferred`)."""
    why = provider.get("baseline_inferred")
    return why if isinstance(why, str) else None


def _stat(data: Mapping[str, Any], key: str) -> int:
    stats = data.get("stats")
    count = stats.get(key, 0) if isinstance(stats, dict) else 0
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def _fixed(at_baseline: str | None, findings: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Errors the consumer had with its baseline release that the target no longer has."""
    if at_baseline is None:
        return ()
    before = [f for f in json.loads(at_baseline)["findings"] if f["severity"] == "error"]
    now = {f["fingerprint"] for f in findings}
    return tuple(sorted({f["fingerprint"] for f in before} - now))


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
        made = _provider_inputs(target, baseline, cache_dir, index_url, offline, store)
        wanted = set(specs) - set(failed)
        kept_rows = kept.done(target, baseline, made.target) if store is not None else {}
        candidates = {s: k for s, k in kept_rows.items() if s in wanted}
        finished = _still_made_from(candidates, made, provider, cache_dir, index_url, offline)
        todo = [s for s in specs if s not in finished and s not in failed]
        if engine == "local":
            _preload()
        tasks = [
            Task(s, target, baseline, cache_dir, index_url, offline, consumer_arg(s),
                 identify=store is not None)
            for s in todo
        ]  # fmt: skip
        results = {**finished, **failed}
        for done in make_engine(engine, jobs=jobs, address=ray_address).run(
            audit_one, tasks, timeout=timeout, memory=memory
        ):
            result = outcome_of(done.task.spec, done)
            kept.put(target, baseline, result, _made_from(done, made))
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


@dataclass(frozen=True, slots=True)
class _Provider:
    """The identities of the target and of a given baseline (None: cannot be named, or no
    store to key), named once in the parent."""

    target: str | None
    baseline: str | None
    given: bool  # --baseline was given: `baseline` names it for every row


def _provider_inputs(
    target: str,
    baseline: str | None,
    cache_dir: str | None,
    index_url: str | None,
    offline: bool,
    store: Path | None,
) -> _Provider:
    """Fetch the target (and a given baseline) once, before the audits share the cache; and,
    with a store, name them (a folder's content hashed once per run)."""
    from auditor.sources import open_index
    from auditor.sources.identity import release_identity

    index = open_index(index_url, cache_dir, offline)
    try:
        named = [index.releases(spec)[-1] if spec is not None else None
                 for spec in (target, baseline)]  # fmt: skip
    finally:
        index.close()
    if store is None:
        return _Provider(None, None, baseline is not None)
    ids = [release_identity(r) if r is not None else None for r in named]
    return _Provider(ids[0], ids[1], baseline is not None)


def _still_made_from(
    candidates: Mapping[str, Kept],
    made: _Provider,
    provider: str,
    cache_dir: str | None,
    index_url: str | None,
    offline: bool,
) -> dict[str, ConsumerResult]:
    """The kept results whose consumer and baseline are still what their row was made from
    (named again here, as the audit names them); the others are audited again."""
    if not candidates:
        return {}
    from auditor.sources import open_index

    index = open_index(index_url, cache_dir, offline)
    baselines: dict[str | None, str | None] = {}
    same: dict[str, ConsumerResult] = {}
    try:
        for spec, kept in candidates.items():
            version = kept.result.baseline
            if version not in baselines:
                baselines[version] = (
                    made.baseline if made.given else inferred_identity(provider, version, index)
                )
            now = Inputs(made.target or "", baselines[version] or "", _consumer_id(spec, index))
            if "" not in (now.baseline, now.consumer) and now == kept.inputs:
                same[spec] = kept.result
    finally:
        index.close()
    if len(same) < len(candidates):
        log.info(
            "auditing again %d consumer(s) whose kept row was made from other sources",
            len(candidates) - len(same),
        )
    return same


def _consumer_id(spec: str, index: Index) -> str:
    """The consumer's identity now, as its audit would name it; '' when it cannot be."""
    from auditor.sources.identity import consumer_identity

    try:
        return consumer_identity(consumer_arg(spec), index) or ""
    except AuditError as exc:
        log.debug("%s cannot be named: %s", spec, exc.message)
        return ""


def _made_from(done: Done[Task, Audited], made: _Provider) -> Inputs:
    """What a finished audit was made from, for its row ('' where it cannot be named)."""
    audited = done.result
    consumer = audited.consumer_id if audited is not None else None
    inferred = audited.baseline_id if audited is not None else None
    baseline = made.baseline if made.given else inferred
    return Inputs(made.target or "", baseline or "", consumer or "")


def _preload() -> None:
    """Import, once in the parent, what every audit imports (griffe, the fixes made from the
    text, the reporters): forked children then start with it loaded instead of paying it each."""
    import importlib

    for module in ("auditor.pipeline", "auditor.provider.api", "auditor.fixtext",
                   "auditor.reporters.json_report"):  # fmt: skip
        importlib.import_module(module)


def blast_radius(results: Iterable[ConsumerResult]) -> tuple[BlastRadius, ...]:
    """Per provider symbol with new errors: how many consumers and call sites it breaks,
    the widest first. A site is a place in a consumer's code (path, line, column): the
    findings of one call (a missing argument and too many positional) count it once."""
    consumers: dict[str, set[str]] = {}
    sites: dict[str, set[tuple[str, object, object, object]]] = {}
    for result in results:
        for finding in result.findings:
            if finding.get("status") != "new" or finding.get("severity") != "error":
                continue
            symbol = str(finding["symbol"])
            consumers.setdefault(symbol, set()).add(result.spec)
            where = (result.spec, finding.get("path"), finding.get("line"), finding.get("column"))
            sites.setdefault(symbol, set()).add(where)
    ranked = sorted(consumers, key=lambda s: (-len(consumers[s]), -len(sites[s]), s))
    return tuple(BlastRadius(s, len(consumers[s]), len(sites[s])) for s in ranked)
