"""Running the command line in the test process and reading its one-line errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from click.testing import CliRunner, Result

from auditor.cli import cli

if TYPE_CHECKING:
    from pathlib import Path


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """The CLI in this process (CliRunner), stdout and stderr apart."""
    return CliRunner().invoke(cli, list(args), env=env, prog_name="drift-audit")


def error_line(result: Result) -> str:
    """The one `drift-audit: error: ...` line of a run that could not audit (exit 2);
    fails when there is a traceback, an internal error, or more than one error line."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    stderr = result.stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("drift-audit: error: ")]
    assert len(errors) == 1, stderr
    return errors[0].removeprefix("drift-audit: error: ")


def files_outside(root: Path, *inside: Path) -> set[str]:
    """Every path under `root` except those under the folders `inside` (posix, relative)."""
    kept = set()
    for path in root.rglob("*"):
        if any(path == folder or folder in path.parents for folder in inside):
            continue
        kept.add(path.relative_to(root).as_posix())
    return kept
