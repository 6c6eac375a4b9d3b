# Maintainers: the command line, and the only package that writes to the terminal.
#
# Owns: `main`, the console entry point (`drift-audit` in pyproject.toml, and
#       `python -m auditor`): it routes `cache ...` to cache.py, `ecosystem ...` to
#       ecosystem.py (unless a folder of that name is the consumer), anything else to the
#       audit command (audit.py). click lives in this package and nowhere else. The parts:
#       options.py (Options, Plan: the command line over `[tool.drift-audit]`), audit.py,
#       explain.py (--explain, --list-kinds), cache.py, ecosystem.py, output.py (report
#       files, stdout, the exit status) and terminal.py (logging, progress, colour).
# Takes: argv. Gives: an exit status: 0 nothing new at or above --fail-on, 1 findings, 2 the
# audit could not run, 130 interrupted.
"""drift-audit's command line (click)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.cli.audit import cli
from auditor.cli.cache import cache_cli
from auditor.cli.ecosystem import ecosystem_cli
from auditor.cli.options import PROG
from auditor.cli.terminal import use_color

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["cache_cli", "cli", "ecosystem_cli", "main", "use_color"]


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `drift-audit` script and of `python -m auditor`."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if _is_cache_command(args):
        cache_cli.main(args=args[1:], prog_name=f"{PROG} cache")
    elif args[:1] == ["ecosystem"] and not Path("ecosystem").is_dir():
        ecosystem_cli.main(args=args[1:], prog_name=f"{PROG} ecosystem")
    else:
        cli.main(args=args, prog_name=PROG)


def _is_cache_command(args: list[str]) -> bool:
    """`drift-audit cache info|clear`; a consumer folder named `cache` still audits."""
    if args[:1] != ["cache"]:
        return False
    return args[1] in ("info", "clear", "-h", "--help") if len(args) > 1 else True
