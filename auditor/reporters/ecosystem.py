# Maintainers: the reports of an ecosystem run: text, json, markdown, html.
#
# Owns: their shapes. JSON is the contract (`schema_version`, `provider`, `consumers` with
# each audit's finding objects exactly as the audit's JSON report has them, `symbols` ranked
# by blast radius, `stats`); text is a summary for a terminal; markdown a release PR comment;
# html one self-contained page (no script, no network: consumers x outcomes, each consumer's
# findings with their code, the symbols ranked by blast radius with links to their sites),
# rendered by html.render_page through the audit report's jinja environment, style and
# components (templates/ecosystem.html.j2, components.html.j2). Every value comes from
# consumers' and the provider's sources, the index (a dependent's names and its archive's
# member names, in an error), or the store: each text escaped for its sink (escape.py), as
# the audit's reporters do: `terminal` (text), `json_text`, `markdown_text`/`markdown_code` inside
# `markdown_cell` for a table cell, `markdown_html` inside <summary>, the page escaped as
# the audit report's is (html.py: `visible`, then autoescape). Text rows are padded to the
# widest spec up to SPEC_WIDTH.
"""Reporters for `drift-audit ecosystem`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from auditor.escape import (
    json_text,
    markdown_cell,
    markdown_code,
    markdown_html,
    markdown_text,
    terminal,
)
from auditor.model import Outcome
from auditor.reporters.common import plural

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from auditor.model import ConsumerResult, EcosystemReport

SCHEMA_VERSION = 1
SPEC_WIDTH = 48  # text rows are padded to the widest spec, or this: a longer one sticks out
ORDER = [Outcome.REGRESSED, Outcome.ERROR, Outcome.STILL_BROKEN, Outcome.FIXED, Outcome.CLEAN]


def to_dict(report: EcosystemReport) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "provider": {"name": report.provider, "baseline": report.baseline, "target": report.target},
        "consumers": [
            {
                "spec": r.spec,
                "name": r.name,
                "version": r.version,
                "baseline": r.baseline,
                "outcome": r.outcome.value,
                "error": r.error,
                "findings": list(r.findings),
                "undecided": r.undecided,
                "sites": r.sites,
                "undecided_sites": list(r.undecided_sites),
                "baseline_inferred": r.baseline_why,
            }
            for r in report.consumers
        ],
        "symbols": [
            {"symbol": s.symbol, "consumers": s.consumers, "sites": s.sites} for s in report.symbols
        ],
        "stats": dict(report.stats),
    }


def render_json(report: EcosystemReport) -> str:
    return json_text(json.dumps(to_dict(report), indent=2, ensure_ascii=False)) + "\n"


def _sorted(report: EcosystemReport) -> list[ConsumerResult]:
    return sorted(report.consumers, key=lambda r: (ORDER.index(r.outcome), r.spec))


def _errors(result: ConsumerResult) -> list[dict[str, Any]]:
    return [
        dict(f)
        for f in result.findings
        if f.get("severity") == "error" and f.get("status") == "new"
    ]


def _counts(report: EcosystemReport) -> str:
    return ", ".join(
        f"{sum(1 for r in report.consumers if r.outcome is o)} {o.value}" for o in ORDER
    )


def summary_line(report: EcosystemReport) -> str:
    """The run in one line, as the audit's summary: what stderr says when the report goes to
    a file (`-o`)."""
    return f"{plural(len(report.consumers), 'consumer')}; outcomes: {_counts(report)}"


def render_text(report: EcosystemReport) -> str:
    base = report.baseline or "each consumer's own baseline"
    lines = [
        terminal(f"{report.target} against {len(report.consumers)} consumers (baseline: {base})"),
        f"outcomes: {_counts(report)}",
        "",
    ]
    shown = {r.spec: terminal(r.spec) for r in report.consumers}
    width = min(max((len(s) for s in shown.values()), default=0), SPEC_WIDTH)
    for r in _sorted(report):
        detail = terminal(r.error) if r.error else ""
        if r.outcome is Outcome.REGRESSED:
            detail = plural(len(_errors(r)), "new error")
        elif r.outcome is Outcome.FIXED:
            detail = f"{plural(len(r.fixed), 'baseline break')} repaired"
        if r.undecided and r.outcome is not Outcome.ERROR:
            detail = f"{detail} ({r.undecided} undecided)".lstrip()
        lines.append(f"  {r.outcome.value:<12} {shown[r.spec]:<{width}}  {detail}".rstrip())
    if report.symbols:
        lines += ["", "blast radius (consumers, call sites) of the changed symbols:"]
        for s in report.symbols:
            lines.append(f"  {s.consumers:>4} {s.sites:>5}  {terminal(s.symbol)}")
    stats = report.stats
    lines += [
        "",
        f"{stats.get('audited', 0)} audited, {stats.get('reused_from_store', 0)} from the store, "
        f"in {stats.get('seconds', 0)}s",
    ]
    return "\n".join(lines) + "\n"


def _cell_code(text: str) -> str:
    return markdown_cell(markdown_code(text))


def render_markdown(report: EcosystemReport) -> str:
    base = report.baseline or "each consumer's own baseline"
    out = [
        f"## drift-audit ecosystem: {markdown_code(report.target)}",
        "",
        f"{len(report.consumers)} consumers against {markdown_code(report.target)} "
        f"(baseline: {markdown_text(base)}): {_counts(report)}.",
        "",
        "| Consumer | Outcome | New errors |",
        "| --- | --- | ---: |",
    ]
    for r in _sorted(report):
        note = markdown_cell(markdown_text(r.error)) if r.error else str(len(_errors(r)))
        if r.undecided and not r.error:
            note += f" ({r.undecided} undecided)"
        out.append(f"| {_cell_code(r.spec)} | {r.outcome.value} | {note} |")
    if report.symbols:
        out += [
            "",
            "### Blast radius",
            "",
            "| Symbol | Consumers | Sites |",
            "| --- | ---: | ---: |",
        ]
        out += [f"| {_cell_code(s.symbol)} | {s.consumers} | {s.sites} |" for s in report.symbols]
    for r in (r for r in _sorted(report) if r.outcome is Outcome.REGRESSED):
        out += [
            "",
            f"<details><summary>{markdown_html(r.spec)}: "
            f"{plural(len(_errors(r)), 'new error')}</summary>",
            "",
        ]
        out += [
            f"- {markdown_code(str(f['path']) + ':' + str(f['line']))} "
            f"{markdown_text(str(f['kind']))}: {markdown_text(str(f['message']))}"
            for f in _errors(r)
        ]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


OUTCOME_CSS = {  # the badge colour of each outcome: as bad as a severity, or fine
    Outcome.REGRESSED: "error",
    Outcome.ERROR: "warning",
    Outcome.STILL_BROKEN: "warning",
    Outcome.FIXED: "ok",
    Outcome.CLEAN: "ok",
}
_RANK = {"error": 0, "warning": 1, "info": 2}


def _finding_view(f: Mapping[str, Any], anchor: str) -> dict[str, Any]:
    from auditor.model import Location
    from auditor.reporters.html import frame_lines

    def number(key: str) -> int:
        value = f.get(key)
        return value if isinstance(value, int) else 0

    loc = Location(
        str(f.get("path", "")),
        number("line"),
        number("column"),
        number("end_line"),
        number("end_column"),
    )
    source = f.get("source")
    pairs = (
        [p for p in source if isinstance(p, list) and len(p) == 2]
        if isinstance(source, list)
        else []
    )
    return {
        "anchor": anchor,
        "severity": str(f.get("severity", "")),
        "status": str(f.get("status", "")),
        "kind": str(f.get("kind", "")),
        "message": str(f.get("message", "")),
        "symbol": str(f.get("symbol", "")),
        "path": loc.path,
        "line": loc.line,
        "column": loc.column,
        "lines": frame_lines(pairs, loc),
    }


def _row_view(i: int, r: ConsumerResult, given: str | None) -> dict[str, Any]:
    anchor = f"c-{i}"
    ordered = sorted(
        enumerate(r.findings),
        key=lambda p: (p[1].get("status") != "new", _RANK.get(str(p[1].get("severity")), 3), p[0]),
    )
    findings = [_finding_view(f, f"{anchor}-f-{j}") for j, f in ordered]
    new_errors = len(_errors(r))
    note = r.error or (f"{r.undecided} undecided" if r.undecided else "")
    how = "given" if given else _inferred_how(r)
    return {
        "anchor": anchor,
        "result": r,
        "css": OUTCOME_CSS[r.outcome],
        "new_errors": new_errors,
        "findings": findings,
        "note": note,
        "baseline_how": how,
        "summary": f"{plural(new_errors, 'new error')}, {plural(len(findings), 'finding')}",
    }


def _inferred_how(result: ConsumerResult) -> str:
    """How the consumer's audit chose its baseline, in its own words (`inferred: vllm pins
    ...`, `inferred: the newest release uploaded before ...`); "" without a baseline."""
    if result.baseline is None:
        return ""
    return f"inferred: {result.baseline_why}" if result.baseline_why else "inferred"


def _symbol_links(symbol: str, rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """A link to each call site the symbol breaks, once per site (a call with several
    findings is one place), to the first finding there."""
    links: dict[str, dict[str, str]] = {}
    for row in rows:
        for f in row["findings"]:
            if f["symbol"] == symbol and f["severity"] == "error" and f["status"] == "new":
                label = f"{row['result'].name or row['result'].spec}: {f['path']}:{f['line']}"
                where = f"{row['anchor']} {f['path']}:{f['line']}:{f['column']}"
                links.setdefault(where, {"anchor": f["anchor"], "label": label})
    return list(links.values())


def render_html(report: EcosystemReport) -> str:
    """The page, through the audit report's jinja environment and components."""
    from auditor.reporters.html import render_page

    rows = [_row_view(i, r, report.baseline) for i, r in enumerate(_sorted(report))]
    tiles = [
        {
            "count": sum(1 for r in report.consumers if r.outcome is o),
            "label": o.value,
            "css": f"sev-{OUTCOME_CSS[o]}" if OUTCOME_CSS[o] != "ok" else "",
        }
        for o in ORDER
    ]
    symbols = [
        {
            "symbol": s.symbol,
            "consumers": s.consumers,
            "sites": s.sites,
            "links": _symbol_links(s.symbol, rows),
        }
        for s in report.symbols
    ]
    stats = report.stats
    return render_page(
        "ecosystem.html.j2",
        title=f"drift-audit ecosystem: {report.target}",
        provider=report.provider,
        target=report.target,
        baseline=report.baseline,
        outcome_counts=_counts(report),
        rows=rows,
        any_note=any(row["note"] for row in rows),
        tiles=tiles,
        symbols=symbols,
        stats_line=f"{stats.get('audited', 0)} audited, "
        f"{stats.get('reused_from_store', 0)} from the store, in {stats.get('seconds', 0)} s",
    )


RENDERERS: dict[str, Callable[[EcosystemReport], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "html": render_html,
}
