# Maintainers: the command line, and the only package that writes to the terminal.
#
# Owns: `main`, the command, and `script`, the console entry point around it
#       (`drift-audit` in pyproject.toml, and `python -m auditor`; after an audit it exits
#       without the interpreter's teardown). main routes `cache ...` to cache.py,
#       `ecosystem ...` to ecosystem.py (unless a folder of that name is the consumer),
#       anything else to the audit command (audit.py). click lives in this package and
#       nowhere else. The parts: options.py (Options, Plan: the command line over
#       `[tool.drift-audit]`), audit.py, explain.py (--explain, --list-kinds), cache.py,
#       ecosystem.py, output.py (report files, stdout, the exit status) and terminal.py
#       (logging, progress, colour). Each command's module is imported only when that
#       command runs (`drift-audit cache info` loads nothing of the audit, an audit nothing
#       of the ecosystem run); the names below are there on first use (`__getattr__`).
# Takes: argv. Gives: an exit status: 0 nothing new at or above --fail-on, 1 findings, 2 the
# audit could not run, 130 interrupted.
"""drift-audit's command line (click)."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.cli.audit import cli
    from auditor.cli.cache import cache_cli
    from auditor.cli.ecosystem import ecosystem_cli
    from auditor.cli.terminal import use_color

__all__ = ["cache_cli", "cli", "ecosystem_cli", "main", "script", "use_color"]

PROG = "drift-audit"  # options.PROG: the same name, without importing the options here

# public name -> the module that defines it, imported when the name is first read
_LAZY = {
    "cli": "auditor.cli.audit",
    "cache_cli": "auditor.cli.cache",
    "ecosystem_cli": "auditor.cli.ecosystem",
    "use_color": "auditor.cli.terminal",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'auditor.cli' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def main(argv: Sequence[str] | None = None) -> None:
    """The command: SystemExit with its status (what tests and embedders call)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if args == ["--version"]:  # what click's version option says, without loading a command
        from auditor import __version__

        sys.stdout.write(f"{PROG} {__version__}\n")
        sys.exit(0)
    if _is_cache_command(args):
        from auditor.cli.cache import cache_cli

        cache_cli.main(args=args[1:], prog_name=f"{PROG} cache")
    elif _is_ecosystem_command(args):
        from auditor.cli.ecosystem import ecosystem_cli

        ecosystem_cli.main(args=args[1:], prog_name=f"{PROG} ecosystem")
    else:
        from auditor.cli.audit import cli

        cli.main(args=args, prog_name=PROG)


def script() -> None:
    """Entry point of the `drift-audit` script and of `python -m auditor`: main(), and after
    an audit, out without the interpreter's teardown (freeing every object of the run, ~20 ms
    of a 0.15 s warm run), as mypy does by default. By then the report and every file are
    written and closed; stdout, stderr and the log handlers are flushed here. Not after
    `cache` or `ecosystem` (process pools and Ray shut down at exit), not while any thread
    but a daemon still runs, nor with DRIFT_AUDIT_NO_FAST_EXIT=1; an exception (a broken
    pipe) leaves as it always did.

    An audit runs with the cyclic collector paused up to that exit (collector.py): its
    facts are garbage in cycles by then, and a collection would walk them for nothing
    (1.6 s of a cold transformers run). Without the fast exit it is restored first."""
    args = sys.argv[1:]
    from auditor.collector import collector_paused

    auditing = not (_is_cache_command(args) or _is_ecosystem_command(args))
    with collector_paused() if auditing else contextlib.nullcontext():
        try:
            main(args)
        except SystemExit as done:
            status = done.code
        else:
            status = 0
        if auditing:
            _exit_now(status)
    sys.exit(status)


def _exit_now(status: object) -> None:
    """os._exit() with SystemExit's status; returns (for a normal exit) when it may not.
    logging and threading are looked at only when the run imported them (`--version` did
    not: no handler to flush, no thread but this one)."""
    import os

    if os.environ.get("DRIFT_AUDIT_NO_FAST_EXIT"):
        return
    threading = sys.modules.get("threading")
    if threading is not None and any(
        not t.daemon for t in threading.enumerate() if t is not threading.main_thread()
    ):
        return
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:
        return  # a message to print: SystemExit's own way
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # what the interpreter's own exit says of it
    os._exit(code)


def _is_ecosystem_command(args: list[str]) -> bool:
    import os

    return args[:1] == ["ecosystem"] and not os.path.isdir("ecosystem")  # noqa: PTH112


def _is_cache_command(args: list[str]) -> bool:
    """`drift-audit cache info|clear`; a consumer folder named `cache` still audits."""
    if args[:1] != ["cache"]:
        return False
    return args[1] in ("info", "clear", "-h", "--help") if len(args) > 1 else True
