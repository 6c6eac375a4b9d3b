# Maintainers: the baseline file (`--write-baseline FILE`, read back by `--baseline-file`).
#
# Owns: its shape. Only what identifies a finding across runs: per finding its fingerprint
# and the facts it is made of (kind, path relative to the project root, the import-root
# relative `module_path` when it differs, enclosing scope, symbol, parameter) and a `reason`
# for the reader (the message without the release, which changes with the target). No
# timings, absolute paths, snippets, versions or statuses; entries unique and sorted; so
# rewriting it with nothing changed gives a byte-identical file, and a diff of it in review
# shows exactly the drift accepted or fixed. Suppressed findings are not recorded (their
# comment is the record). Reading accepts this shape and, as before it existed, a whole JSON
# report (`--format json`): both give Findings whose fingerprints match this run's.
"""The baseline file: fingerprints of accepted findings, stable byte for byte."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditError
from auditor.escape import json_text
from auditor.kinds import Kind
from auditor.model import Finding, Location, Status
from auditor.reporters import json_report

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from auditor.model import Report

FORMAT = "drift-audit-baseline"
VERSION = 1
_HINT = "write it again with `drift-audit --write-baseline FILE`"


def render(report: Report) -> str:
    """The baseline of a report: its findings except the suppressed ones."""
    entries = {
        _key(entry): entry
        for entry in (_entry(f) for f in report.findings if f.status is not Status.SUPPRESSED)
    }
    document = {
        "format": FORMAT,
        "version": VERSION,
        "findings": [entries[k] for k in sorted(entries)],
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


def _key(entry: Mapping[str, Any]) -> tuple[str, ...]:
    parts = ("path", "scope", "kind", "symbol", "parameter", "fingerprint")
    return tuple(str(entry.get(p) or "") for p in parts)


def load(path: str | Path, *, root: Path | None = None) -> tuple[Finding, ...]:
    """The recorded findings of a baseline file, or of a JSON report used as one.

    Raises:
        AuditError: unreadable, not JSON, or neither shape.
    """
    text, where = json_report.read_source(path, root)
    data = json_report.parse_json(text, where, "a baseline", hint=_HINT)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return _from_baseline(data, where)
    return json_report.from_dict(data, where=where).findings


def _from_baseline(data: Mapping[str, Any], where: str) -> tuple[Finding, ...]:
    if data.get("version") != VERSION:
        raise AuditError(
            f"{where}: baseline version {data.get('version')!r}; this drift-audit reads {VERSION}",
            hint=_HINT,
        )
    items = data.get("findings")
    if not isinstance(items, list):
        raise AuditError(f"{where}: 'findings' must be a list", hint=_HINT)
    return tuple(_finding(item, f"{where}: findings[{i}]") for i, item in enumerate(items))


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
        location=Location(str(text["path"]), 1, 1, 1, 1),
        scope=str(text["scope"]),
        symbol=str(text["symbol"]),
        parameter=parameter,
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
        status=Status.BASELINED,
        module_path=module_path,
    )
