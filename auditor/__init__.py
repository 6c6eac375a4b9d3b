"""drift-audit: find the call sites a provider upgrade would break, statically.

    >>> from auditor import audit
    >>> report = audit("speculators==0.3.0", ["vllm==0.17.0"])
    >>> [f.message for f in report.findings if f.status.value == "new"]

Every public name is imported on first use (`__getattr__` below), so that `import auditor`,
`drift-audit --version` and `--help` load nothing of the audit, and the heavy stages (griffe,
networkx) only when an audit reaches them.
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

if TYPE_CHECKING:
    from auditor.errors import AuditError, ExitCode
    from auditor.kinds import Kind, Severity
    from auditor.model import Finding, Location, Report, Status
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


# public name -> the module that defines it, imported when the name is first read
_LAZY = {
    "AuditError": "auditor.errors",
    "ExitCode": "auditor.errors",
    "Kind": "auditor.kinds",
    "Severity": "auditor.kinds",
    "Finding": "auditor.model",
    "Location": "auditor.model",
    "Report": "auditor.model",
    "Status": "auditor.model",
    "audit": "auditor.pipeline",
    "load_report": "auditor.reporters.json_report",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
