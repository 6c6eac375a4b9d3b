# Maintainers: the concise text report (`--format concise`, ruff's `concise`).
#
# Owns: one line per finding, `path:line:col: severity[slug] message [status]`, exactly the
# headline of the full text report (text.headline), then the full report's summary line. No
# source, signatures or chains: for a CI log, grep and editors. Takes a Report in its given
# order; never filters or sorts. Colour as the text report: a palette, empty when off.
"""Concise reporter: one line per finding, then the summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.reporters.text import ANSI, PLAIN, headline, summary_line

if TYPE_CHECKING:
    from auditor.model import Report

NAME = "concise"


def render(report: Report, *, color: bool = False) -> str:
    """One line per finding and the summary line; ANSI colour only when `color` is true."""
    pal = ANSI if color else PLAIN
    lines = [headline(f, pal, gated=report.gated(f)) for f in report.findings]
    lines.append(summary_line(report, pal))
    return "\n".join(lines) + "\n"
