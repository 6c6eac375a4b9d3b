# Maintainers: `drift-audit ecosystem`, one provider release against many consumers.
#
# Owns: the command's options (--timeout and --memory checked by ecosystem.py's bounds), the
#       consumer list (--consumers FILE, or the index's --dependents), a progress line per
#       consumer on a terminal, the report written or printed, and the exit status: 1 when a
#       consumer regressed, 2 when more audits failed than --max-errors, else 0.
# Takes: the command line. Gives: an exit status; the run itself is auditor/ecosystem.py's.
"""The ecosystem command."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from auditor.cli.options import INTERRUPTED, LOGGER, PROG
from auditor.cli.output import encode, write_files, write_stdout
from auditor.cli.terminal import configure_logging, say_error
from auditor.errors import AuditError, ConfigError, ExitCode
from auditor.escape import terminal
from auditor.files import Output

if TYPE_CHECKING:
    from auditor.model import EcosystemReport

ECOSYSTEM_FORMATS = ("text", "json", "markdown", "html")


def _bounded(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """--timeout and --memory within the ecosystem's bounds (finite, not NaN), else a usage
    error."""
    from auditor import ecosystem

    check = ecosystem.checked_timeout if param.name == "timeout" else ecosystem.checked_memory
    try:
        return check(value)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise click.BadParameter(exc.message, ctx=ctx, param=param) from exc


@click.command(
    name="ecosystem",
    help="""Audit one provider release against many of its dependents.

\b
Examples:
  drift-audit ecosystem --against vllm==0.17.0 --consumers dependents.txt
  drift-audit ecosystem --against vllm==0.17.0 --baseline vllm==0.16.0 \\
      --consumers dependents.txt --store results.sqlite --format html -o eco.html
  drift-audit ecosystem --against acme==2.0 --dependents --index-url URL --limit 200
  drift-audit ecosystem --against acme==2.0 --consumers list.txt --engine ray

\b
The --consumers FILE: one consumer a line; `#` starts a comment:
  name==version          that release, from the package index
  name                   its newest release on the index
  ./folder               a project or package folder (relative to here)
  name @ file:///path    a local folder, wheel or sdist

\b
Outcomes: regressed (new errors), still-broken, fixed (a baseline break the
target repairs), clean, error (could not audit: the reason).

\b
Exit status:
  0    no consumer regressed, and no audit failed (or no more than --max-errors)
  1    some consumer regressed
  2    the run could not start, or more audits failed (error rows) than
       --max-errors allows: a run that could not look is never a pass
  130  interrupted""",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option("--against", "target", required=True, metavar="SPEC", help="The provider release.")
@click.option("--baseline", metavar="SPEC", help="One baseline for all (default: each its own).")
@click.option("--consumers", "consumers_file", metavar="FILE",
              help="One consumer a line (the format is above).")  # fmt: skip
@click.option("--dependents", is_flag=True, help="Every project on the index that requires it.")
@click.option("--index-url", metavar="URL", help="Package index (simple API). Default: pip's.")
@click.option("--limit", type=click.IntRange(min=1), help="With --dependents: projects examined.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--ray-address", metavar="ADDR", help="An existing Ray cluster (default: start one).")
@click.option("--jobs", type=click.IntRange(min=1), help="Audits at a time (default: CPU count).")
@click.option("--store", metavar="FILE", help="SQLite file: results kept; a rerun skips them.")
@click.option("--timeout", type=float, default=600, show_default=True, callback=_bounded,
              help="Seconds per consumer audit (1 to 86400).")  # fmt: skip
@click.option("--memory", "memory_mib", type=int, default=4096, callback=_bounded,
              show_default=True, help="MiB of memory per audit (64 to 1048576).")  # fmt: skip
@click.option("--max-errors", type=click.IntRange(min=0), default=0, show_default=True,
              help="Error rows (audits that failed) the run may have and still pass.")  # fmt: skip
@click.option("--format", "format_", type=click.Choice(ECOSYSTEM_FORMATS), default="text")
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE.")
@click.option("--cache-dir", metavar="DIR", help="Where fetched sources are cached.")
@click.option("--offline", is_flag=True, help="Never use the network; use the cache only.")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only.")
@click.option("-v", "--verbose", is_flag=True, help="Log each consumer as it finishes.")
@click.option("--debug", is_flag=True, help="Tracebacks of internal errors.")
def ecosystem_cli(**options: Any) -> None:
    sys.exit(run_ecosystem(**options))


def run_ecosystem(
    *,
    target: str,
    baseline: str | None,
    consumers_file: str | None,
    dependents: bool,
    index_url: str | None,
    limit: int | None,
    engine: str,
    ray_address: str | None,
    jobs: int | None,
    store: str | None,
    timeout: float,
    memory_mib: int,
    max_errors: int = 0,
    format_: str,
    output: str | None,
    cache_dir: str | None,
    offline: bool,
    quiet: bool,
    verbose: bool,
    debug: bool = False,
) -> int:
    """`drift-audit ecosystem`: the exit status."""
    configure_logging(quiet=quiet, verbose=verbose, debug=debug)
    try:
        from auditor import ecosystem
        from auditor.reporters.ecosystem import RENDERERS, summary_line

        specs, unexamined = _ecosystem_consumers(
            consumers_file, dependents, target, index_url, cache_dir, limit
        )
        tty = sys.stderr.isatty() and not quiet

        def said(result: Any, done: int, total: int) -> None:
            if tty or verbose:
                click.echo(
                    f"{PROG}: [{done}/{total}] {terminal(result.spec)}: {result.outcome.value}",
                    err=True,
                )

        report = ecosystem.run(
            specs, target, baseline=baseline, engine=engine, jobs=jobs,
            ray_address=ray_address, store=Path(store) if store else None,
            cache_dir=cache_dir, index_url=index_url, offline=offline, timeout=timeout,
            memory=memory_mib << 20, on_result=said, unexamined=unexamined,
        )  # fmt: skip
        text = RENDERERS[format_](report)
        if output:
            write_files([Output(Path(output), encode(text))])
            if not quiet:
                line = terminal(summary_line(report))
                click.echo(f"{PROG}: {line}; report in {terminal(output)}", err=True)
        else:
            write_stdout(text)
    except AuditError as exc:
        say_error(exc.message, exc.hint)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        kept = f"; finished audits are kept in {store}" if store else ""
        click.echo(f"{PROG}: interrupted{kept}", err=True)
        return INTERRUPTED
    except (click.ClickException, click.exceptions.Exit, BrokenPipeError):
        raise
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"{PROG}: internal error: {type(exc).__name__}: {terminal(str(exc))} "
            "(rerun with --debug for the traceback)",
            err=True,
        )
        return ExitCode.ERROR
    return ecosystem_status(report, max_errors)


def ecosystem_status(report: EcosystemReport, max_errors: int) -> int:
    """1 when a consumer regressed; else 2 when more audits failed than `max_errors` (the run
    could not look at them: never a pass); else 0. Failed audits are said on stderr."""
    failed = sum(1 for r in report.consumers if r.outcome.value == "error")
    regressed = any(r.outcome.value == "regressed" for r in report.consumers)
    if failed <= max_errors:
        return ExitCode.FINDINGS if regressed else ExitCode.CLEAN
    message = f"{failed} of {len(report.consumers)} audits failed (outcome error)"
    if regressed:
        logging.getLogger(LOGGER).warning("%s; the report says why", message)
        return ExitCode.FINDINGS
    say_error(f"{message}: the run cannot pass", f"each error row says why; --max-errors {failed}"
           " lets such a run pass")  # fmt: skip
    return ExitCode.ERROR


def _ecosystem_consumers(
    consumers_file: str | None,
    dependents: bool,
    target: str,
    index_url: str | None,
    cache_dir: str | None,
    limit: int | None,
) -> tuple[list[str], dict[str, str]]:
    """The consumer specs (from the file, or the index's dependents of the provider), and
    those that could not be examined, with why (a project whose page, metadata or file could
    not be read, or failed its integrity check). None at all is an error: a run over nobody
    is never a pass."""
    if (consumers_file is None) == (not dependents):
        raise ConfigError("give one of --consumers FILE or --dependents")
    if consumers_file is not None:
        specs = _consumers_listed(Path(consumers_file))
        if not specs:
            raise ConfigError(f"--consumers {consumers_file} lists no consumer")
        return specs, {}
    from auditor.ecosystem import provider_name
    from auditor.sources import open_index
    from auditor.sources.dependents import find_dependents

    provider = provider_name(target)
    index = open_index(index_url, cache_dir, False)
    try:
        found = find_dependents(index, provider, limit=limit)
    finally:
        index.close()
    if not found:
        raise AuditError(
            f"--dependents found no consumer: no project on the index requires {provider}",
            hint="check --index-url (and --limit): its root page lists the projects examined",
        )
    unexamined = {d.spec: d.error for d in found if d.error is not None}
    return [d.spec for d in found], unexamined


def _consumers_listed(path: Path) -> list[str]:
    from auditor.ecosystem import read_consumers
    from auditor.files import read_file

    try:
        text = read_file(path, limit=16 << 20, root=path.resolve().parent).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read --consumers {path}: {exc}") from exc
    return read_consumers(text)
