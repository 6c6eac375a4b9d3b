"""drift-audit: find the call sites a provider upgrade would break, statically.

    >>> from auditor import audit
    >>> report = audit("speculators==0.3.0", ["vllm==0.17.0"])
    >>> [f.message for f in report.findings if f.status.value == "new"]

The heavy stages (griffe, networkx) are imported on first use, so that `import auditor` and
`drift-audit --help` stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auditor.errors import AuditError, ExitCode
from auditor.kinds import Kind, Severity
from auditor.model import Finding, Location, Report, Status

if TYPE_CHECKING:
    from auditor.pipeline import audit
    from auditor.reporters.json_report import load_report

__version__ = "0.1.0"

__all__ = [
    "AuditError",
    "ExitCode",
    "Finding",
    "Kind",
    "Location",
    "Report",
    "Severity",
    "Status",
    "__version__",
    "audit",
    "load_report",
]


def __getattr__(name: str) -> Any:
    if name == "audit":
        from auditor.pipeline import audit

        return audit
    if name == "load_report":
        from auditor.reporters.json_report import load_report

        return load_report
    raise AttributeError(f"module 'auditor' has no attribute {name!r}")
