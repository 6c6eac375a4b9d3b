# Maintainers: the registry of output formats.
#
# Each format is one module with `NAME` and `render(report, *, color=False) -> str`: it
# formats a Report it is given and does nothing else (no filtering, sorting, exit codes or
# network). The CLI offers exactly the names in REPORTERS for --format; a new format is a new
# module added to FORMATS below. A module is imported only when its format is used (the html
# one brings jinja2, ~30 ms of start-up that a text or json run need not pay).
"""Reporters: one module per output format, all with the same shape."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Protocol, cast

from auditor.reporters.common import tool_version
from auditor.reporters.json_report import load_report

if TYPE_CHECKING:
    from auditor.model import Report

# format name -> module under auditor.reporters (each module's NAME is its format name)
FORMATS = {
    "text": "text",
    "concise": "concise",
    "json": "json_report",
    "sarif": "sarif",
    "github": "github",
    "markdown": "markdown",
    "html": "html",
    "gitlab": "gitlab",
    "junit": "junit",
}


class Render(Protocol):
    """What every reporter's `render` looks like."""

    def __call__(self, report: Report, *, color: bool = False) -> str: ...


class _Registry(MutableMapping[str, Render]):
    """Format name -> render function, importing each reporter module on first use.

    Assigning a name replaces that format's renderer (tests and plug-ins do that)."""

    def __init__(self) -> None:
        self._replaced: dict[str, Render] = {}

    def __getitem__(self, name: str) -> Render:
        if name in self._replaced:
            return self._replaced[name]
        module = importlib.import_module(f"auditor.reporters.{FORMATS[name]}")
        return cast("Render", module.render)

    def __setitem__(self, name: str, render: Render) -> None:
        if name not in FORMATS:
            raise KeyError(name)
        self._replaced[name] = render

    def __delitem__(self, name: str) -> None:
        del self._replaced[name]

    def __iter__(self) -> Iterator[str]:
        return iter(FORMATS)

    def __len__(self) -> int:
        return len(FORMATS)


REPORTERS: MutableMapping[str, Render] = _Registry()

__all__ = ["REPORTERS", "Render", "load_report", "tool_version"]
