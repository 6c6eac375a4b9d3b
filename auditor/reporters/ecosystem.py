# Maintainers: the reports of an ecosystem run: text, json, markdown, html.
#
# Owns: their shapes. JSON is the contract (`schema_version`, `provider`, `consumers` with
# each audit's finding objects exactly as the audit's JSON report has them, `symbols` ranked
# by blast radius, `stats`); text is a summary for a terminal; markdown a release PR comment;
# html one self-contained page (no script, no network: consumers x outcomes, each regressed
# consumer's findings, the symbols ranked by blast radius). Every value comes from consumers'
# and the provider's sources, the index (a dependent's names and its archive's member names,
# in an error), or the store: each text escaped for its sink (escape.py), as the audit's
# reporters do: `terminal` (text), `json_text`, `markdown_text`/`markdown_code` inside
# `markdown_cell` for a table cell, `markdown_html` inside <summary>, `visible` then HTML
# escaping for the page. Text rows are padded to the widest spec up to SPEC_WIDTH.
"""Reporters for `drift-audit ecosystem`."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from auditor.escape import (
    json_text,
    markdown_cell,
    markdown_code,
    markdown_html,
    markdown_text,
    terminal,
    visible,
)
from auditor.model import Outcome

if TYPE_CHECKING:
    from collections.abc import Callable

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
            detail = f"{len(_errors(r))} new error(s)"
        elif r.outcome is Outcome.FIXED:
            detail = f"{len(r.fixed)} baseline break(s) repaired"
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
        note = markdown_text(r.error) if r.error else str(len(_errors(r)))
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
            f"<details><summary>{markdown_html(r.spec)}: {len(_errors(r))} new error(s)</summary>",
            "",
        ]
        out += [
            f"- {markdown_code(str(f['path']) + ':' + str(f['line']))} "
            f"{markdown_text(str(f['kind']))}: {markdown_text(str(f['message']))}"
            for f in _errors(r)
        ]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#222;background:#fff}
table{border-collapse:collapse;margin:1rem 0}
th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}
td.n{text-align:right}.regressed{color:#b00}.error{color:#a60}.fixed{color:#070}.clean{color:#555}
code{font-family:ui-monospace,monospace}details{margin:.5rem 0}
@media (prefers-color-scheme:dark){body{color:#ddd;background:#111}th,td{border-color:#444}}
"""


def render_html(report: EcosystemReport) -> str:
    e: Callable[[object], str] = lambda v: html.escape(visible(str(v)), quote=True)  # noqa: E731
    base = report.baseline or "each consumer's own baseline"
    rows = "".join(
        f'<tr id="c-{i}"><td><code>{e(r.spec)}</code></td><td class="{e(r.outcome.value)}">'
        f'{e(r.outcome.value)}</td><td class="n">{len(_errors(r))}</td>'
        f"<td>{e(r.error or (f'{r.undecided} undecided' if r.undecided else ''))}</td></tr>"
        for i, r in enumerate(_sorted(report))
    )
    symbols = "".join(
        f'<tr><td><code>{e(s.symbol)}</code></td><td class="n">{s.consumers}</td>'
        f'<td class="n">{s.sites}</td></tr>'
        for s in report.symbols
    )
    details = "".join(
        f'<section class="consumer"><h3><code>{e(r.spec)}</code></h3><ul>'
        + "".join(
            f"<li><code>{e(f['path'])}:{e(f['line'])}</code> <strong>{e(f['kind'])}</strong> "
            f"{e(f['message'])}</li>"
            for f in _errors(r)
        )
        + "</ul></section>"
        for r in _sorted(report)
        if r.outcome is Outcome.REGRESSED
    )
    title = f"drift-audit ecosystem: {report.target}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{e(title)}</h1><p>{len(report.consumers)} consumers (baseline: {e(base)}): "
        f"{e(_counts(report))}.</p>"
        '<h2>Consumers</h2><table id="consumers"><thead><tr><th>Consumer</th><th>Outcome</th>'
        f"<th>New errors</th><th>Error</th></tr></thead><tbody>{rows}</tbody></table>"
        '<h2>Blast radius</h2><table id="symbols"><thead><tr><th>Symbol</th><th>Consumers</th>'
        f"<th>Sites</th></tr></thead><tbody>{symbols}</tbody></table>"
        f"<h2>Regressed consumers</h2>{details or '<p>None.</p>'}"
        "</body></html>\n"
    )


RENDERERS: dict[str, Callable[[EcosystemReport], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "html": render_html,
}
