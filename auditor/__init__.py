"""drift-audit: find the call sites a provider upgrade would break, statically.

    >>> from auditor import audit
    >>> report = audit("speculators==0.3.0", ["vllm==0.17.0"])
    >>> [f.message for f in report.findings if f.status.value == "new"]

The heavy stages (griffe, networkx) are imported on first use, so that `import auditor` and
`drift-audit --help` stay fast.
"""

from __future__ import annotations

import sys as _sys  # built in: nothing on sys.path can stand in for it

if _sys.argv[:1] == ["-m"] and not getattr(_sys.flags, "safe_path", False):
    # `python -m auditor`, run in a consumer's folder: Python put that folder first on
    # sys.path, so its `typing.py` or `networkx.py` would be imported in place of the real
    # ones, running the consumer's code. The audit never imports from the current folder.
    import os as _os  # frozen and already loaded at start-up, like sys

    if _sys.path and _sys.path[0] in ("", _os.getcwd()):  # noqa: PTH109 (pathlib: not yet)
        del _sys.path[0]

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
