# Maintainers: the baseline file (`--write-baseline FILE`, read back by `--baseline-file`).
#
# Owns: its shape. Only what identifies a finding across runs: per finding its fingerprint
# and the facts it is made of (kind, path relative to the project root, the import-root
# relative `module_path` when it differs, enclosing scope, symbol, parameter) and a `reason`
# for the reader (the message without the release, which changes with the target). No
# timings, absolute paths, snippets, versions or statuses; entries unique and sorted, each
# with a `count` when its fingerprint occurs more than once (absent: 1, so files written
# before counts read the same, and rewrite byte for byte); so
# rewriting it with nothing changed gives a byte-identical file, and a diff of it in review
# shows exactly the drift accepted or fixed. Suppressed findings are not recorded (their
# comment is the record). Reading accepts this shape and, as before it existed, a whole JSON
# report (`--format json`): both give a model.Recorded, one Finding per fingerprint (matching
# this run's) and its count as a number, so reading costs what the file's entries cost,
# whatever counts they state.
"""The baseline file: fingerprints of accepted findings, stable byte for byte."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditError
from auditor.escape import json_text
from auditor.kinds import Kind
from auditor.model import Finding, Location, Recorded, Status
from auditor.reporters import json_report

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from auditor.model import Report

FORMAT = "drift-audit-baseline"
VERSION = 1
MAX_COUNT = 1_000_000  # occurrences of one fingerprint: bounds what a file can make us hold
_HINT = "write it again with `drift-audit --write-baseline FILE`"


def render(report: Report) -> str:
    """The baseline of a report: its findings except the suppressed ones, one entry per
    fingerprint with `count` when it occurs more than once (as pyright's --writebaseline
    counts per file and rule), so a second break of the same shape is new."""
    entries: dict[tuple[str, ...], dict[str, Any]] = {}
    counts: Counter[tuple[str, ...]] = Counter()
    for finding in report.findings:
        if finding.status is not Status.SUPPRESSED:
            entry = _entry(finding)
            entries[_key(entry)] = entry
            counts[_key(entry)] += 1
    document = {
        "format": FORMAT,
        "version": VERSION,
        "findings": [_counted(entries[k], counts[k]) for k in sorted(entries)],
    }
    return json_text(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def _entry(finding: Finding) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "fingerprint": finding.fingerprint,
        "kind": finding.kind.slug,
        "path": finding.location.path,
    }
    if finding.module_path and finding.module_path != finding.location.path:
        entry["module_path"] = finding.module_path
    return entry | {
        "scope": finding.scope,
        "symbol": finding.symbol,
        "parameter": finding.parameter,
        "reason": finding.reason,
    }


def _counted(entry: dict[str, Any], count: int) -> dict[str, Any]:
    """The entry with its count; a count of 1 is left out (the file as it was before
    counts, byte for byte)."""
    return entry | {"count": count} if count > 1 else entry


def _key(entry: Mapping[str, Any]) -> tuple[str, ...]:
    parts = ("path", "scope", "kind", "symbol", "parameter", "fingerprint")
    return tuple(str(entry.get(p) or "") for p in parts)


def load(path: str | Path, *, root: Path | None = None) -> Recorded:
    """The recorded findings of a baseline file, or of a JSON report used as one: one per
    fingerprint, with its count (work and memory grow with the file's entries, never with
    the counts they state).

    Raises:
        AuditError: unreadable, not JSON, or neither shape.
    """
    text, where = json_report.read_source(path, root)
    data = json_report.parse_json(text, where, "a baseline", hint=_HINT)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return _from_baseline(data, where)
    return Recorded.of((f, 1) for f in json_report.from_dict(data, where=where).findings)


def _from_baseline(data: Mapping[str, Any], where: str) -> Recorded:
    if data.get("version") != VERSION:
        raise AuditError(
            f"{where}: baseline version {data.get('version')!r}; this drift-audit reads {VERSION}",
            hint=_HINT,
        )
    items = data.get("findings")
    if not isinstance(items, list):
        raise AuditError(f"{where}: 'findings' must be a list", hint=_HINT)
    return Recorded.of(
        (_finding(item, f"{where}: findings[{i}]"), _count(item, f"{where}: findings[{i}]"))
        for i, item in enumerate(items)
    )


def _count(item: Mapping[str, Any], where: str) -> int:
    """How many findings an entry stands for: `count`, 1 when absent (files written before
    counts)."""
    count = item.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
        raise AuditError(f"{where}: count must be a whole number from 1 to {MAX_COUNT}", hint=_HINT)
    return count


def _finding(item: object, where: str) -> Finding:
    if not isinstance(item, dict):
        raise AuditError(f"{where} is not an object", hint=_HINT)
    text = {k: item.get(k) for k in ("kind", "path", "scope", "symbol")}
    if not all(isinstance(v, str) for v in text.values()):
        raise AuditError(f"{where}: kind, path, scope and symbol must be strings", hint=_HINT)
    parameter, module_path = item.get("parameter"), item.get("module_path", "")
    if not isinstance(parameter, (str, type(None))) or not isinstance(module_path, str):
        raise AuditError(f"{where}: parameter and module_path must be strings", hint=_HINT)
    try:
        kind = Kind.from_slug(str(text["kind"]))
    except ValueError as exc:
        raise AuditError(f"{where}: unknown kind {text['kind']!r}", hint=_HINT) from exc
    return Finding(
        kind=kind,
        location=Location(str(text["path"]), 0, 0, 0, 0),  # a baseline file keeps no lines
        scope=str(text["scope"]),
        symbol=str(text["symbol"]),
        parameter=parameter,
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
        status=Status.BASELINED,
        module_path=module_path,
    )
