# Maintainers: the ecosystem run's SQLite store (`drift-audit ecosystem --store FILE`).
#
# Owns: the store file, its one table and its schema version; a row per (consumer spec,
# target spec, baseline spec), with what it was made from (`Inputs`: the identities,
# sources/identity.py, of the target release, the baseline release and the consumer the
# audit read); each row read back checked; and `classify` (the outcome findings give),
# which the run and the check of a kept row share.
# - A row is reused only for the same specs *and* the same inputs: the caller asks for the
#   rows made against this target (`done`: its identity, else none at all) and compares
#   each row's baseline and consumer identities with what they are now. A row that does not
#   say what it was made from ('' : unknown, a store of an earlier release) never matches.
# - Schema version 2 added the identities. A version 1 store (or one from before
#   user_version was set) is migrated in one transaction: the columns added, empty, so that
#   every row it held is a miss, audited again and replaced.
# - The store is untrusted (a file from an earlier run, perhaps restored from a shared CI
#   cache): only a regular file (no link, FIFO, device or folder) that is a SQLite database
#   holding our one table, or nothing yet, is opened; anything else is a StoreError (one
#   line, exit 2) before a byte is written. Every row read back is checked field by field,
#   each finding read as the audit's JSON reader reads one and written back identical, its
#   outcome the one its findings give: a row that does not fit is a miss, audited again.
#   An identity read back is compared, never parsed; one that is not text never matches.
# Takes: ConsumerResults and Inputs. Gives: the kept ones that fit.
"""The ecosystem store: finished audits, kept with what they were made from."""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import stat
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditError, StoreError
from auditor.model import ConsumerResult, Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

log = logging.getLogger("drift_audit")

SCHEMA_VERSION = 2
MAX_ROW_CHARS = 64 << 20  # a kept row read back (a big consumer's findings: ~100 KiB)
NO_BASELINE = "none"  # the baseline identity of a row audited without a baseline


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a row was made from: sources/identity.py's lines ('' unknown: never matches)."""

    target: str
    baseline: str
    consumer: str


@dataclass(frozen=True, slots=True)
class Kept:
    """A row read back: its result and what it was made from."""

    result: ConsumerResult
    inputs: Inputs


UNREAD = ("unparsable", "unparsable-provider")  # findings that say what was not checked


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


# --------------------------------------------------------------------------- the store


class Store:
    """Results of finished audits, one row per (consumer, target, baseline), each with what
    it was made from; None keeps them in memory for this run only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.db = _open_store(path)

    def done(self, target: str, baseline: str | None, target_id: str | None) -> dict[str, Kept]:
        """The rows kept for these specs and made against this very target (`target_id`:
        its identity; None, one that cannot be named: no row at all). An audit that failed
        (`error`: a network failure, a timeout, a release gone) is not a result, and is
        tried again, as is a row that does not fit."""
        if not target_id:
            log.warning("%s cannot be named by its content: no row of the store is reused", target)
            return {}
        rows = self._query(
            "SELECT spec, CASE WHEN typeof(row) = 'text' AND length(row) <= ? THEN row END,"
            " baseline_id, consumer_id, target_id = ? FROM audits"
            " WHERE target = ? AND baseline = ?",
            (MAX_ROW_CHARS, target_id, target, baseline or ""),
        )
        kept: dict[str, Kept] = {}
        unfit = failed = other = 0
        for spec, row, baseline_id, consumer_id, same_target in rows:
            if same_target != 1:
                other += 1
                continue
            result = kept_result(spec, row)
            if result is None:
                unfit += 1
            elif result.outcome is Outcome.ERROR:
                failed += 1
            else:
                inputs = Inputs(target_id, _text(baseline_id), _text(consumer_id))
                kept[result.spec] = Kept(result, inputs)
        if other:
            log.info("auditing again %d consumer(s) kept against another %s", other, target)
        if failed:
            log.info("auditing again %d consumer(s) whose audit failed before", failed)
        if unfit:
            log.warning("%d row(s) of --store %s do not fit; auditing them again", unfit, self.path)
        return kept

    def put(self, target: str, baseline: str | None, result: ConsumerResult, made: Inputs) -> None:
        """Keep `result`, made from `made`, in place of any row of the same specs."""
        self._query(
            "INSERT OR REPLACE INTO audits VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                result.spec, target, baseline or "", json.dumps(_row(result)), time.time(),
                made.target, made.baseline, made.consumer,
            ),
        )  # fmt: skip
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


_COLUMNS_1 = [  # PRAGMA table_info: name, declared type, primary key position
    ("spec", "TEXT", 1),
    ("target", "TEXT", 2),
    ("baseline", "TEXT", 3),
    ("row", "TEXT", 0),
    ("finished", "REAL", 0),
]
_IDENTITIES = ("target_id", "baseline_id", "consumer_id")  # added by schema version 2
_COLUMNS = [*_COLUMNS_1, *((name, "TEXT", 0) for name in _IDENTITIES)]
_IDENTITY_COLUMN = "{} TEXT NOT NULL DEFAULT ''"
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
            identities = ", ".join(_IDENTITY_COLUMN.format(name) for name in _IDENTITIES)
            db.execute(
                "CREATE TABLE audits (spec TEXT NOT NULL, target TEXT NOT NULL,"
                " baseline TEXT NOT NULL, row TEXT NOT NULL, finished REAL NOT NULL,"
                f" {identities}, PRIMARY KEY (spec, target, baseline))"
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.commit()
            return
        columns = [(r[1], r[2], r[5]) for r in db.execute("PRAGMA table_info(audits)")]
        if tables == ["audits"] and columns == _COLUMNS_1 and version in (0, 1):
            _migrate(db, path)
            return
    except sqlite3.Error as exc:
        raise _store_error(path, exc) from exc
    if tables != ["audits"] or columns != _COLUMNS or version not in (0, SCHEMA_VERSION):
        raise StoreError(
            f"--store {path} is not a drift-audit store (a database of another schema"
            f"{'' if version in (0, SCHEMA_VERSION) else f', version {version}'})",
            hint=_STORE_HINT,
        )


def _migrate(db: sqlite3.Connection, path: Path | None) -> None:
    """A version 1 store made version 2, in one transaction: its rows say nothing of what
    they were made from (empty identities), so none of them is reused."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for name in _IDENTITIES:
            db.execute(f"ALTER TABLE audits ADD COLUMN {_IDENTITY_COLUMN.format(name)}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.commit()
    except BaseException:
        db.rollback()
        raise
    log.info("--store %s kept by an earlier release: its rows will be audited again", path)


def _text(value: object) -> str:
    """An identity read back: text, else '' (which never matches)."""
    return value if isinstance(value, str) else ""


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
        "sites": result.sites,
        "undecided_sites": list(result.undecided_sites),
        "baseline_why": result.baseline_why,
    }


_ROW_KEYS = frozenset(_row(ConsumerResult("", None, None, None, Outcome.CLEAN)))
# Rows kept before `undecided`, then `sites` and `undecided_sites`, were kept fit too: what
# they lack is taken as 0 or none (unknown then, and never a finding either way), so a store
# from an earlier release is not audited again.
# `baseline_why` came later still: a row without it says no reason (None).
_LATER_KEYS = {"undecided": 0, "sites": 0, "undecided_sites": [], "baseline_why": None}
_EARLIER_ROW_KEYS = (
    _ROW_KEYS - set(_LATER_KEYS),
    _ROW_KEYS - {"sites", "undecided_sites", "baseline_why"},
    _ROW_KEYS - {"baseline_why"},
)
_UNDECIDED_FIELDS = {
    "path": str, "line": int, "column": int, "scope": str, "target": str, "provider": str,
    "reason": str, "cause": str,
}  # fmt: skip


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
    if set(row) in _EARLIER_ROW_KEYS:
        row = _LATER_KEYS | row
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
    undecided, sites = _field(row, "undecided", int), _field(row, "sites", int)
    if not (math.isfinite(seconds) and seconds >= 0) or undecided < 0 or sites < 0:
        raise _Unfit
    undecided_sites = tuple(_undecided_site(u) for u in _field(row, "undecided_sites", list))
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
        sites,
        undecided_sites,
        _field(row, "baseline_why", (str, type(None))),
    )


def _undecided_site(entry: object) -> Mapping[str, object]:
    """One kept undecided site: exactly json_report's fields, each of its type."""
    if not isinstance(entry, dict) or set(entry) != set(_UNDECIDED_FIELDS):
        raise _Unfit
    for key, kind in _UNDECIDED_FIELDS.items():
        _field(entry, key, kind)
    return entry


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
