# Maintainers: what drift-audit says on stderr, apart from the report.
#
# Owns: the `drift_audit` logger's handler (one escaped line per record, NOTE shown by
#       default, -q/-v/--debug), the progress status line (drawn from a thread after
#       PROGRESS_DELAY, cleared before each log line), the one-line `error:`/`hint:` pair,
#       and whether the text report is coloured (--color, NO_COLOR, FORCE_COLOR, TERM=dumb).
# Takes: flags and the run's Progress. Gives: lines on stderr; everything shown is passed
# through escape.terminal first.
"""Logging, the progress line and colour: the command line's own voice on stderr."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

import click

from auditor.cli.options import LOGGER, PROG
from auditor.escape import terminal

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from auditor.progress import Progress

NOTE = logging.INFO + 5  # shown by default (as warnings are), hidden by --quiet
logging.addLevelName(NOTE, "NOTE")
PROGRESS_DELAY = 0.5  # seconds before a status line appears: a warm run never shows one
PROGRESS_EVERY = 0.1


class _StatusLine:
    """One line on stderr, rewritten in place (`\\r`, erase line), from a display thread
    that polls the run's Progress; cleared before a log message and when the run ends.
    Plain click.echo and ANSI erase: no progress library is loaded, so the import cost on
    the warm path is nil (a run under PROGRESS_DELAY never shows the line at all)."""

    def __init__(self, progress: Progress) -> None:
        import threading

        self.progress = progress
        self.lock = threading.Lock()
        self.shown = False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="drift-audit-progress", daemon=True)

    def _loop(self) -> None:
        if self.stop.wait(PROGRESS_DELAY):
            return
        while not self.stop.is_set():
            self.draw()
            self.stop.wait(PROGRESS_EVERY)

    def draw(self) -> None:
        now = self.progress.snapshot()
        parts = [now.stage]
        if now.total:
            parts.append(f"{now.done}/{now.total} releases")
        if now.bytes_fetched:
            parts.append(f"{now.bytes_fetched / (1 << 20):.1f} MiB fetched")
        with self.lock:
            click.echo(f"\r\x1b[2K{PROG}: {terminal(', '.join(parts))}", err=True, nl=False)
            self.shown = True

    def clear(self) -> None:
        with self.lock:
            if self.shown:
                click.echo("\r\x1b[2K", err=True, nl=False)
                self.shown = False


_STATUS: list[_StatusLine] = []  # the line being shown, for the log handler to clear first


@contextlib.contextmanager
def progress_display(*, enabled: bool) -> Iterator[Progress]:
    """A Progress for audit(); drawn as a status line on stderr when `enabled`."""
    from auditor.progress import Progress

    progress = Progress()
    if not enabled:
        yield progress
        return
    line = _StatusLine(progress)
    _STATUS.append(line)
    line.thread.start()
    try:
        yield progress
    finally:
        line.stop.set()
        line.thread.join(timeout=1)
        line.clear()
        _STATUS.remove(line)


def say_error(message: str, hint: str | None) -> None:
    click.echo(f"{PROG}: error: {terminal(message)}", err=True)
    if hint:
        click.echo(f"{PROG}: hint: {terminal(hint)}", err=True)


class _Formatter(logging.Formatter):
    """One line per record, escaped for the terminal (a file name can hold a newline and a
    workflow command, or ESC sequences); a traceback (--debug) escaped line by line."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{PROG}: {record.levelname.lower()}: {terminal(record.getMessage())}"
        if record.exc_info:
            trace = self.formatException(record.exc_info)
            text += "\n" + "\n".join(terminal(line) for line in trace.splitlines())
        return text


class _EchoHandler(logging.Handler):
    """Writes to whatever stderr is now (CliRunner swaps it between runs)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            for line in _STATUS:
                line.clear()
            click.echo(self.format(record), err=True)
        except Exception:
            self.handleError(record)


def configure_logging(*, quiet: bool, verbose: bool, debug: bool) -> None:
    """The `drift_audit` logger to stderr: NOTE; INFO with -v; ERROR with -q; DEBUG."""
    logger = logging.getLogger(LOGGER)
    for handler in [h for h in logger.handlers if isinstance(h, _EchoHandler)]:
        logger.removeHandler(handler)
    handler = _EchoHandler()
    handler.setFormatter(_Formatter())
    logger.addHandler(handler)
    logger.propagate = False
    level = NOTE
    if quiet:
        level = logging.ERROR
    if verbose:
        level = logging.INFO
    if debug:
        level = logging.DEBUG
    logger.setLevel(level)


def use_color(
    choice: str | bool | None, *, fmt: str, to_file: bool, env: Mapping[str, str], isatty: bool
) -> bool:
    """Colour only the text format: --color always/never, else (auto) never into a file,
    off with NO_COLOR, FORCE_COLOR=0 or TERM=dumb, on with another FORCE_COLOR, else on a
    terminal (the conventions of no-color.org and force-color.org)."""
    if fmt not in ("text", "concise"):
        return False
    if choice in (True, "always"):
        return True
    if choice in (False, "never") or to_file or env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR")
    if force is not None and force != "":
        return force.lower() not in ("0", "false", "no", "off")
    if env.get("TERM") == "dumb":
        return False
    return isatty
