# Maintainers: the JSON report, schema version 1 (DESIGN.md "JSON report"), both ways.
#
# Owns: the exact key order of the document and of each finding, and reading a document back
# into a Report (`load_report`), which is also how a baseline file is read: a baseline is just
# a previous report. Takes a Report; gives a string, or a Report from text or a file.
# `message`, `first_broken` and `fingerprint` are derived from a Finding's facts: they are
# written for readers and ignored on load; `test` (the site is in a test file: named as one,
# model.is_test_path, and not imported by library code) is read back as Finding.production
# where the name alone would say otherwise; `severity` is read back when it is not the
# kind's (a warning-level changed-default, a [tool.drift-audit.severity] override). `scope` and
# `source` are extra fields (not in DESIGN's list) that the fingerprint and the text reporter
# need; `also_used_at` (optional) lists the lines of the same file that use a name an import
# finding reports gone.
# A report made by audit() (one with `providers`) also has the top-level keys `providers`
# (every provider; `provider` stays the first, for readers of the original shape), `matrix`
# (the drift timeline: one column per provider release, one row per finding, in order),
# `fixed` (baseline-file findings gone now), `unused_suppressions` and `left_out` (what
# `select`/`ignore` kept out of `findings`, each with where it was set: the project's config
# file or the command line; [] when every kind is reported; also written for a report built
# by hand that has some), `excluded` (the files `exclude` kept out of the scan, with its
# patterns and where it was set) and `ungated` (settings that keep new findings out of the
# exit status: `gate-tests = false`, where it was set, and how many new findings it let
# pass, derived); all optional on load, so a version-1 reader that predates them reads on.
# Change the shape only with a new SCHEMA_VERSION; the round-trip test keeps this honest.
"""JSON reporter (schema version 1) and its reader, `load_report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditError
from auditor.escape import json_text
from auditor.files import read_file
from auditor.kinds import Kind, Severity
from auditor.model import (
    ConsumerInfo,
    Edit,
    Excluded,
    Finding,
    Fix,
    LeftOut,
    Location,
    ProviderInfo,
    Report,
    Stats,
    Status,
    Undecided,
    Ungated,
    is_test_path,
    timeline,
)
from auditor.reporters.common import TOOL_NAME, tool_version

if TYPE_CHECKING:
    from collections.abc import Mapping

NAME = "json"
SCHEMA_VERSION = 1

_HINT = "pass a file written by `drift-audit --format json` or `--write-baseline FILE`"


def render(report: Report, *, color: bool = False) -> str:
    """The whole report as schema-version-1 JSON, with a trailing newline."""
    text = json.dumps(to_dict(report), indent=2, sort_keys=False, ensure_ascii=False)
    return json_text(text) + "\n"


def to_dict(report: Report, *, undecided: bool | None = None) -> dict[str, Any]:
    """The report as plain JSON-ready data, keys in schema order. The undecided sites are
    counted in `stats`, and listed when `undecided` (default: when the report says so,
    --show-unknown: a big consumer has thousands)."""
    consumer, stats = report.consumer, report.stats
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": tool_version()},
        "consumer": {"name": consumer.name, "version": consumer.version, "origin": consumer.origin},
        "provider": _provider_dict(report.provider),
    }
    if report.providers:
        document["providers"] = [_provider_dict(p) for p in report.providers]
    document["findings"] = [finding_to_dict(f) for f in report.findings]
    if report.providers:
        document.update(_audit_extras(report))
    if report.list_undecided if undecided is None else undecided:
        document["undecided"] = [_undecided_dict(u) for u in report.undecided]
    if report.providers or report.left_out:
        document["left_out"] = [_left_out_dict(entry) for entry in report.left_out]
    if report.providers or report.excluded:
        document["excluded"] = [_excluded_dict(entry) for entry in report.excluded]
    if report.providers or report.ungated:
        document["ungated"] = [_ungated_dict(entry, report) for entry in report.ungated]
    return document | {
        "stats": {
            "files_scanned": stats.files_scanned,
            "call_sites": stats.call_sites,
            "provider_modules_loaded": stats.provider_modules_loaded,
            "provider_modules_cached": stats.provider_modules_cached,
            "provider_modules_earlier": stats.provider_modules_earlier,
            "undecided": stats.undecided,
            "sites": stats.sites,
            "unchanged": stats.unchanged,
            "bytes_fetched": stats.bytes_fetched,
            "requests": stats.requests,
            "seconds": round(stats.seconds, 3),
            "replayed": stats.replayed,
        },
    }


def _provider_dict(provider: ProviderInfo) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": provider.name,
        "baseline": provider.baseline,
        "targets": list(provider.targets),
    }
    if provider.baseline_why is not None:
        data["baseline_inferred"] = provider.baseline_why
    if provider.call_sites is not None:
        data["call_sites"] = provider.call_sites
    return data


def _audit_extras(report: Report) -> dict[str, Any]:
    """`matrix`, `fixed` and `unused_suppressions`: the keys a report from audit() adds."""
    table = timeline(report)
    return {
        "matrix": {
            "releases": [{"provider": p, "version": v} for p, v in table.columns],
            "rows": [
                {"fingerprint": f.fingerprint, "broken": list(row)}
                for f, row in zip(report.findings, table.rows, strict=True)
            ],
        },
        "fixed": [_fixed_dict(f) for f in report.fixed],
        "unused_suppressions": [
            {"path": path, "line": line, "kinds": list(kinds)}
            for path, line, kinds in report.unused_suppressions
        ],
    }


def _undecided_dict(entry: Undecided) -> dict[str, Any]:
    where = entry.location
    return {
        "path": where.path,
        "line": where.line,
        "column": where.column,
        "scope": entry.scope,
        "target": entry.target,
        "provider": entry.provider,
        "reason": entry.reason,
        "cause": entry.cause,
    }


def _left_out_dict(entry: LeftOut) -> dict[str, Any]:
    return {
        "setting": entry.setting,
        "source": entry.source,
        "file": entry.file,
        "kinds": [k.slug for k in entry.kinds],
    }


def _excluded_dict(entry: Excluded) -> dict[str, Any]:
    return {
        "source": entry.source,
        "file": entry.file,
        "patterns": list(entry.patterns),
        "paths": list(entry.paths),
    }


def _ungated_dict(entry: Ungated, report: Report) -> dict[str, Any]:
    passed = sum(1 for f in report.findings if entry.lets_pass(f))
    return {"setting": entry.setting, "source": entry.source, "file": entry.file, "passed": passed}


def _fixed_dict(finding: Finding) -> dict[str, Any]:
    return {
        "fingerprint": finding.fingerprint,
        "kind": finding.kind.slug,
        "symbol": finding.symbol,
        "parameter": finding.parameter,
        "path": finding.location.path,
        **({"line": finding.location.line} if finding.location.line > 0 else {}),  # 0: unknown
        "scope": finding.scope,
    }


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    """One finding, keys in schema order (DESIGN's fields, then `scope` and `source`)."""
    loc = finding.location
    return {
        "fingerprint": finding.fingerprint,
        "kind": finding.kind.slug,
        "severity": finding.severity.value,
        "message": finding.message,
        "path": loc.path,
        "module_path": finding.module_path or loc.path,
        "test": finding.in_test_file,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "symbol": finding.symbol,
        "parameter": finding.parameter,
        "broken_in": list(finding.broken_in),
        "first_broken": finding.first_broken_known,
        "first_audited": finding.first_audited,
        **({"releases_audited": finding.releases_audited} if finding.releases_audited else {}),
        "baseline_signature": finding.baseline_signature,
        "target_signature": finding.target_signature,
        "reached_from": [list(chain) for chain in finding.reached_from],
        "suggestion": finding.suggestion,
        "status": finding.status.value,
        "scope": finding.scope,
        "source": [[number, text] for number, text in finding.source],
        **({"also_used_at": list(finding.also_at)} if finding.also_at else {}),
        **({"fix": fix_to_dict(finding.fix)} if finding.fix is not None else {}),
    }


def fix_to_dict(fix: Fix) -> dict[str, Any]:
    """A finding's fix: safe or not, what it does, and its edits (1-based, end exclusive)."""
    return {
        "safe": fix.safe,
        "description": fix.description,
        "edits": [
            {
                "path": e.path,
                "line": e.line,
                "column": e.column,
                "end_line": e.end_line,
                "end_column": e.end_column,
                "text": e.text,
            }
            for e in fix.edits
        ],
    }


# --------------------------------------------------------------------------- reading back


MAX_REPORT_BYTES = 256 << 20  # a report read back (a baseline file)


def load_report(text_or_path: str | Path, *, root: Path | None = None) -> Report:
    """Read a JSON report (text, or a path to a file) back into a Report.

    Args:
        text_or_path: the document itself (a string starting with `{`) or a file path.
        root: the path came from the consumer's config: it must stay inside this folder.

    Raises:
        AuditError: the file cannot be read (or is not a regular file, or is over
            MAX_REPORT_BYTES), is not JSON, is not a drift-audit report, or has a schema
            version this drift-audit does not read.
    """
    text, where = read_source(text_or_path, root)
    return from_dict(parse_json(text, where, "a report"), where=where)


def parse_json(text: str, where: str, what: str, hint: str = _HINT) -> object:
    """The JSON document read from `where`; AuditError when it is not JSON, or nested too
    deeply to be `what` ("a report", "a baseline")."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise AuditError(
            f"{where} is not valid JSON: {exc.msg} (line {exc.lineno})", hint=hint
        ) from exc
    except RecursionError as exc:
        raise AuditError(f"{where} is nested too deeply to be {what}", hint=hint) from exc


def from_dict(data: object, *, where: str = "the report") -> Report:
    """Build a Report from parsed schema-version-1 data; AuditError when it does not fit."""
    top = _mapping(data, where)
    version = top.get("schema_version")
    if version != SCHEMA_VERSION:
        raise AuditError(
            f"{where} has schema_version {version!r}; this drift-audit reads version "
            f"{SCHEMA_VERSION}",
            hint="write it again with this drift-audit (--format json or --write-baseline)",
        )
    findings = tuple(
        _finding(item, f"{where}: findings[{i}]")
        for i, item in enumerate(_get(top, "findings", list, where))
    )
    return Report(
        consumer=_consumer(_mapping(_get(top, "consumer", dict, where), f"{where}: consumer")),
        provider=_provider(_mapping(_get(top, "provider", dict, where), f"{where}: provider")),
        findings=findings,
        stats=_stats(_mapping(_get(top, "stats", dict, where), f"{where}: stats")),
        providers=tuple(
            _provider(_mapping(item, f"{where}: providers[{i}]"))
            for i, item in enumerate(_get_extra(top, "providers", list, where, []))
        ),
        matrix=_matrix(_get_extra(top, "matrix", dict, where, {}), len(findings), where),
        fixed=tuple(
            _fixed(_mapping(item, f"{where}: fixed[{i}]"), f"{where}: fixed[{i}]")
            for i, item in enumerate(_get_extra(top, "fixed", list, where, []))
        ),
        unused_suppressions=tuple(
            _unused(_mapping(item, f"{where}: unused_suppressions[{i}]"), where)
            for i, item in enumerate(_get_extra(top, "unused_suppressions", list, where, []))
        ),
        left_out=tuple(
            _left_out(_mapping(item, f"{where}: left_out[{i}]"), f"{where}: left_out[{i}]")
            for i, item in enumerate(_get_extra(top, "left_out", list, where, []))
        ),
        excluded=tuple(
            _excluded(_mapping(item, f"{where}: excluded[{i}]"), f"{where}: excluded[{i}]")
            for i, item in enumerate(_get_extra(top, "excluded", list, where, []))
        ),
        ungated=tuple(
            _ungated(_mapping(item, f"{where}: ungated[{i}]"), f"{where}: ungated[{i}]")
            for i, item in enumerate(_get_extra(top, "ungated", list, where, []))
        ),
        undecided=tuple(
            _undecided(_mapping(item, f"{where}: undecided[{i}]"), f"{where}: undecided[{i}]")
            for i, item in enumerate(_get_extra(top, "undecided", list, where, []))
        ),
    )


def _undecided(data: Mapping[str, Any], where: str) -> Undecided:
    line, column = _get(data, "line", int, where), _get(data, "column", int, where)
    return Undecided(
        Location(_get(data, "path", str, where), line, column, line, column),
        _get(data, "scope", str, where),
        _get(data, "target", str, where),
        _get(data, "provider", str, where),
        _get(data, "reason", str, where),
        _get_extra(data, "cause", str, where, ""),
    )


LEFT_OUT_SETTINGS = ("select", "ignore")
LEFT_OUT_SOURCES = ("config", "command-line", "api")


def _left_out(data: Mapping[str, Any], where: str) -> LeftOut:
    setting, source = _get(data, "setting", str, where), _get(data, "source", str, where)
    if setting not in LEFT_OUT_SETTINGS or source not in LEFT_OUT_SOURCES:
        raise AuditError(f"{where}: unknown setting or source", hint=_NEWER_HINT)
    kinds = _strings(_get(data, "kinds", list, where), f"{where}.kinds")
    return LeftOut(
        setting, source, _get(data, "file", _OPT_STR, where), tuple(_kind(k, where) for k in kinds)
    )


def _excluded(data: Mapping[str, Any], where: str) -> Excluded:
    source = _get(data, "source", str, where)
    if source not in LEFT_OUT_SOURCES:
        raise AuditError(f"{where}: unknown source", hint=_NEWER_HINT)
    return Excluded(
        source,
        _get(data, "file", _OPT_STR, where),
        _strings(_get(data, "patterns", list, where), f"{where}.patterns"),
        _strings(_get(data, "paths", list, where), f"{where}.paths"),
    )


def _ungated(data: Mapping[str, Any], where: str) -> Ungated:
    setting, source = _get(data, "setting", str, where), _get(data, "source", str, where)
    if setting != "gate-tests" or source not in LEFT_OUT_SOURCES:
        raise AuditError(f"{where}: unknown setting or source", hint=_NEWER_HINT)
    return Ungated(setting, source, _get(data, "file", _OPT_STR, where))


def _matrix(data: Mapping[str, Any], rows: int, where: str) -> tuple[tuple[bool | None, ...], ...]:
    """The matrix rows (the columns follow from `providers`); () when absent."""
    if not data:
        return ()
    items = _get(data, "rows", list, f"{where}: matrix")
    if len(items) != rows:
        raise AuditError(f"{where}: matrix has {len(items)} rows for {rows} findings", hint=_HINT)
    out: list[tuple[bool | None, ...]] = []
    for i, item in enumerate(items):
        broken = _get(_mapping(item, f"{where}: matrix.rows[{i}]"), "broken", list, where)
        if not all(b is None or isinstance(b, bool) for b in broken):
            raise AuditError(
                f"{where}: matrix.rows[{i}].broken: expected true, false or null", hint=_HINT
            )
        out.append(tuple(broken))
    return tuple(out)


def _fixed(data: Mapping[str, Any], where: str) -> Finding:
    line = _get_extra(data, "line", int, where, 0)  # absent: not known (a baseline file's)
    column = 1 if line > 0 else 0
    return Finding(
        kind=_kind(_get(data, "kind", str, where), where),
        location=Location(_get(data, "path", str, where), line, column, line, column),
        scope=_get(data, "scope", str, where),
        symbol=_get(data, "symbol", str, where),
        parameter=_get(data, "parameter", _OPT_STR, where),
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
    )


def _unused(data: Mapping[str, Any], where: str) -> tuple[str, int, tuple[str, ...]]:
    where = f"{where}: unused_suppressions"
    kinds = _strings(_get(data, "kinds", list, where), f"{where}.kinds")
    return (_get(data, "path", str, where), _get(data, "line", int, where), kinds)


def read_source(text_or_path: str | Path, root: Path | None) -> tuple[str, str]:
    """The document's text and how to name it in messages (a file, or the text itself)."""
    if isinstance(text_or_path, str) and text_or_path.lstrip().startswith("{"):
        return text_or_path, "the JSON report"
    path = Path(text_or_path)
    try:
        return read_file(path, limit=MAX_REPORT_BYTES, root=root).decode("utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise AuditError(f"cannot read report {path}: {reason}", hint=_HINT) from exc


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise AuditError(f"{where} is not a drift-audit report (expected an object)", hint=_HINT)
    return value


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """data[key], checked against `kind` (include type(None) for nullable fields).

    JSON values are untyped until checked here, hence `Any`.
    """
    if key not in data:
        raise AuditError(f"{where}: missing field {key!r}", hint=_HINT)
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise AuditError(f"{where}: field {key!r} has the wrong type", hint=_HINT)
    return value


def _get_extra(
    data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any
) -> Any:
    """An optional field (`scope`, `source`, `matrix`...): a default when absent, checked when
    present."""
    return _get(data, key, kind, where) if key in data else default


_OPT_STR = (str, type(None))


def _consumer(data: Mapping[str, Any]) -> ConsumerInfo:
    where = "consumer"
    return ConsumerInfo(
        name=_get(data, "name", str, where),
        version=_get(data, "version", _OPT_STR, where),
        origin=_get(data, "origin", str, where),
    )


def _provider(data: Mapping[str, Any]) -> ProviderInfo:
    where = "provider"
    return ProviderInfo(
        name=_get(data, "name", str, where),
        baseline=_get(data, "baseline", _OPT_STR, where),
        targets=_strings(_get(data, "targets", list, where), f"{where}.targets"),
        baseline_why=_get_extra(data, "baseline_inferred", _OPT_STR, where, None),
        call_sites=_get_extra(data, "call_sites", (int, type(None)), where, None),
    )


def _stats(data: Mapping[str, Any]) -> Stats:
    where = "stats"
    return Stats(
        files_scanned=_get(data, "files_scanned", int, where),
        call_sites=_get(data, "call_sites", int, where),
        provider_modules_loaded=_get(data, "provider_modules_loaded", int, where),
        provider_modules_cached=_get_extra(data, "provider_modules_cached", int, where, 0),
        provider_modules_earlier=_get_extra(data, "provider_modules_earlier", int, where, 0),
        undecided=_get_extra(data, "undecided", int, where, 0),
        sites=_get_extra(data, "sites", int, where, 0),
        unchanged=_get_extra(data, "unchanged", int, where, 0),
        bytes_fetched=_get(data, "bytes_fetched", int, where),
        seconds=_seconds(_get(data, "seconds", (int, float), where), where),
        requests=_get_extra(data, "requests", int, where, 0),  # added after schema 1 shipped
        replayed=_get_extra(data, "replayed", bool, where, False),  # likewise
    )


def _seconds(value: float, where: str) -> float:
    number = float(value)
    if not 0 <= number < float("inf"):
        raise AuditError(f"{where}: field 'seconds' is not a duration", hint=_HINT)
    return number


def finding_from_dict(value: object, *, where: str = "a finding") -> Finding:
    """One finding object, as `finding_to_dict` writes it, read back with every field
    checked; AuditError when it does not fit (an ecosystem store's rows hold these)."""
    return _finding(value, where)


def _finding(value: object, where: str) -> Finding:
    data = _mapping(value, where)
    return Finding(
        kind=_kind(_get(data, "kind", str, where), where),
        location=_location(data, where),
        scope=_get_extra(data, "scope", str, where, ""),
        symbol=_get(data, "symbol", str, where),
        parameter=_get(data, "parameter", _OPT_STR, where),
        broken_in=_strings(_get(data, "broken_in", list, where), f"{where}.broken_in"),
        baseline_signature=_get(data, "baseline_signature", _OPT_STR, where),
        target_signature=_get(data, "target_signature", _OPT_STR, where),
        reached_from=_chains(_get(data, "reached_from", list, where), where),
        suggestion=_get(data, "suggestion", _OPT_STR, where),
        status=_status(_get(data, "status", str, where), where),
        source=_source(_get_extra(data, "source", list, where, []), where),
        also_at=_lines(_get_extra(data, "also_used_at", list, where, []), where),
        module_path=_module_path(data, where),
        first_audited=_get_extra(data, "first_audited", _OPT_STR, where, None),
        releases_audited=_get_extra(data, "releases_audited", int, where, 0),
        level=_level(data, where),
        fix=_fix(data["fix"], where) if "fix" in data else None,
        production=_production(data, where),
    )


def _production(data: Mapping[str, Any], where: str) -> bool:
    """A file named like a test file whose finding says `test: false`: library code imports
    it (Finding.production); absent (an older report): the name decides, as it did."""
    test = _get_extra(data, "test", bool, where, None)
    return test is False and is_test_path(_get(data, "path", str, where))


def _fix(value: object, where: str) -> Fix:
    data = _mapping(value, f"{where}.fix")
    edits = []
    for i, item in enumerate(_get(data, "edits", list, where)):
        edit = _mapping(item, f"{where}.fix.edits[{i}]")
        line, column, end_line, end_column = (
            _get(edit, k, int, where) for k in ("line", "column", "end_line", "end_column")
        )
        path, text = _get(edit, "path", str, where), _get(edit, "text", str, where)
        edits.append(Edit(path, line, column, end_line, end_column, text))
    return Fix(_get(data, "safe", bool, where), _get(data, "description", str, where), tuple(edits))


def _level(data: Mapping[str, Any], where: str) -> Severity | None:
    """The finding's severity when it is not its kind's (a per-finding or configured one)."""
    kind = Kind.from_slug(_get(data, "kind", str, where))
    try:
        severity = Severity(_get_extra(data, "severity", str, where, kind.severity.value))
    except ValueError as exc:
        raise AuditError(f"{where}: unknown severity", hint=_NEWER_HINT) from exc
    return None if severity is kind.severity else severity


def _module_path(data: Mapping[str, Any], where: str) -> str:
    """`module_path` as a Finding keeps it: "" when it is the same as `path`."""
    module_path: str = _get_extra(data, "module_path", str, where, "")
    return "" if module_path == data.get("path") else module_path


def _lines(values: list[Any], where: str) -> tuple[int, ...]:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise AuditError(f"{where}.also_used_at: expected a list of line numbers", hint=_HINT)
    return tuple(values)


def _location(data: Mapping[str, Any], where: str) -> Location:
    return Location(
        path=_get(data, "path", str, where),
        line=_get(data, "line", int, where),
        column=_get(data, "column", int, where),
        end_line=_get(data, "end_line", int, where),
        end_column=_get(data, "end_column", int, where),
    )


_NEWER_HINT = "the report may come from a newer drift-audit; write it again with this one"


def _kind(slug: str, where: str) -> Kind:
    try:
        return Kind.from_slug(slug)
    except ValueError as exc:
        raise AuditError(f"{where}: unknown kind {slug!r}", hint=_NEWER_HINT) from exc


def _status(value: str, where: str) -> Status:
    try:
        return Status(value)
    except ValueError as exc:
        raise AuditError(f"{where}: unknown status {value!r}", hint=_NEWER_HINT) from exc


def _strings(values: list[Any], where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) for v in values):
        raise AuditError(f"{where}: expected a list of strings", hint=_HINT)
    return tuple(values)


def _chains(values: list[Any], where: str) -> tuple[tuple[str, ...], ...]:
    if not all(isinstance(chain, list) for chain in values):
        raise AuditError(f"{where}.reached_from: expected a list of lists", hint=_HINT)
    return tuple(_strings(chain, f"{where}.reached_from") for chain in values)


def _source(pairs: list[Any], where: str) -> tuple[tuple[int, str], ...]:
    def is_pair(p: object) -> bool:
        return (
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and isinstance(p[1], str)
        )

    if not all(is_pair(p) for p in pairs):
        raise AuditError(f"{where}.source: expected a list of [line, text] pairs", hint=_HINT)
    return tuple((p[0], p[1]) for p in pairs)
