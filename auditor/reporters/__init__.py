# Maintainers: the registry of output formats.
#
# Each format is one module with `NAME` and `render(report, *, color=False) -> str`: it
# formats a Report it is given and does nothing else (no filtering, sorting, exit codes or
# network). The CLI offers exactly the names in REPORTERS for --format; a new format is a new
# module added to the tuple below.
"""Reporters: one module per output format, all with the same shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from auditor.reporters import github, html, json_report, markdown, sarif, text
from auditor.reporters.common import tool_version
from auditor.reporters.json_report import load_report

if TYPE_CHECKING:
    from auditor.model import Report


class Render(Protocol):
    """What every reporter's `render` looks like."""

    def __call__(self, report: Report, *, color: bool = False) -> str: ...


REPORTERS: dict[str, Render] = {
    m.NAME: m.render for m in (text, json_report, sarif, github, markdown, html)
}

__all__ = ["REPORTERS", "Render", "load_report", "tool_version"]
