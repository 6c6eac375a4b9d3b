# Maintainers: the command line, and the only module that writes to the terminal.
#
# Owns: parsing options (click lives here and nowhere else), merging them over the consumer
# project's `[tool.drift-audit]` settings (the command line wins), calling
# `auditor.pipeline.audit()`, choosing a reporter, writing the report (stdout, or a file
# replaced atomically so a failure never leaves half a report), and turning the outcome into
# an exit status: 0 nothing new at or above --fail-on, 1 findings, 2 the audit could not run
# (an AuditError: one line and a hint), 130 interrupted. Any other exception is a bug: one
# line asking for --debug, which re-raises it. Logging of the `drift_audit` logger goes to
# stderr. Colour: text on a terminal only; NO_COLOR / FORCE_COLOR; --color/--no-color win.
"""drift-audit's command line (click)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from auditor.config import (
    ALL,
    FAIL_ON_CHOICES,
    Settings,
    check_kinds,
    find_settings,
    left_out,
    load_config_file,
    no_kind_selected,
    unknown_kind_hint,
)
from auditor.errors import AuditError, ConfigError, ExitCode
from auditor.escape import terminal
from auditor.files import Output, Refused, write_outputs
from auditor.kinds import Kind, Severity
from auditor.model import Status
from auditor.reporters import REPORTERS, baseline_file, tool_version
from auditor.reporters.common import count_by_kind, left_out_note, plural

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from auditor.model import EcosystemReport, Finding, LeftOut, Provenance, Report
    from auditor.progress import Progress

PROG = "drift-audit"
LOGGER = "drift_audit"
INTERRUPTED = 130  # 128 + SIGINT, as shells report it
DEFAULT_FORMAT = "text"
DEFAULT_FAIL_ON = "error"

HELP = """Find the call sites in CONSUMER that a provider upgrade breaks, statically.

CONSUMER is a project or package folder (default: the current folder), an
installed distribution or import name, or a requirement NAME==VERSION read
from the package index. Nothing is installed, imported or executed.

Settings come from [tool.drift-audit] in the nearest pyproject.toml at or
above CONSUMER's folder (or the current folder), or from --config FILE:
against, baseline, fail-on, format, output, exclude, baseline-file, select,
ignore, gate-tests and a [tool.drift-audit.severity] table. The command line
wins.
Paths in reports, --exclude and the baseline file are relative to the
project root (the folder of that pyproject.toml).

\b
Examples:
  drift-audit speculators==0.3.0 --against vllm==0.17.0
  drift-audit . --against 'vllm>=0.12,<0.18' --baseline vllm==0.11.0
  drift-audit . --against vllm==0.17.0 --format sarif -o drift.sarif
  drift-audit . --against vllm==0.17.0 --write-baseline .drift-baseline.json --exit-zero
  drift-audit . --against vllm==0.17.0 --baseline-file .drift-baseline.json
  drift-audit . --against vllm==0.17.0 --select unexpected-keyword,missing-argument
  drift-audit . --against vllm==0.17.0 --statistics
  drift-audit . --against vllm==0.17.0 --diff
  drift-audit --explain unexpected-keyword
  drift-audit --list-kinds
  drift-audit cache info          (or: cache clear; both take --cache-dir)
  drift-audit ecosystem --help    (a provider release against its dependents)

\b
Exit status:
  0    nothing new at or above --fail-on (or --exit-zero)
  1    new findings at or above --fail-on
  2    the audit could not run (bad spec, unknown package or version,
       unreadable input, index unreachable, bad settings)
  130  interrupted

\b
Environment:
  DRIFT_AUDIT_CACHE_DIR  the cache folder (like --cache-dir)
  DRIFT_AUDIT_TIMEOUT    seconds to wait on the index per read (default 30)
  DRIFT_AUDIT_RETRIES    retries after a network error or a 5xx (default 3)
  DRIFT_AUDIT_DEADLINE   seconds of network time for the whole run (default 1800)
  NO_COLOR, FORCE_COLOR  colour off (NO_COLOR, FORCE_COLOR=0, TERM=dumb) or on
"""


@dataclass(frozen=True, slots=True)
class Options:
    """The command line as given (None / () where an option was not passed)."""

    consumer: str = "."
    against: tuple[str, ...] = ()
    baseline: tuple[str, ...] = ()
    format: str | None = None
    output: str | None = None
    fail_on: str | None = None
    baseline_file: str | None = None
    write_baseline: str | None = None
    offline: bool = False
    cache_dir: str | None = None
    index_url: str | None = None
    exclude: tuple[str, ...] = ()
    pre: bool = False
    quiet: bool = False
    verbose: bool = False
    debug: bool = False
    color: str = "auto"  # auto, always, never
    config: str | None = None
    select: tuple[str, ...] = ()  # comma-separated lists as given
    ignore: tuple[str, ...] = ()
    statistics: bool = False
    exit_zero: bool = False
    show_baselined: bool = False
    show_preexisting: bool = False
    show_unknown: bool = False
    gate_tests: bool | None = None  # --gate-tests / --no-gate-tests
    diff: bool = False
    fix: bool = False
    unsafe_fixes: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    """Options merged over settings: what this run will do."""

    against: tuple[str, ...]
    baseline: tuple[str, ...]  # at most one per provider
    format: str
    output: str | None  # None: stdout
    fail_on: str
    exclude: tuple[str, ...]
    baseline_file: str | None
    output_root: Path | None = None  # set when `output` came from the config: stay inside it
    baseline_file_root: Path | None = None  # likewise for `baseline-file`
    select: tuple[Kind, ...] | None = None  # None: every kind
    ignore: tuple[Kind, ...] = ()
    severity: tuple[tuple[Kind, Severity], ...] = ()
    project_root: Path | None = None  # where the settings came from: paths are relative to it
    left_out: tuple[LeftOut, ...] = ()  # what select/ignore leave out, and who said so
    gate_tests: bool = True  # False: findings in test files do not fail the run


# --------------------------------------------------------------------------- the command


def _list_kinds(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(kinds_table(), nl=False)
    ctx.exit(ExitCode.CLEAN)


def _explain(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """`--explain KIND`: the kind's documentation, shipped with the package (like `ruff rule`)."""
    if value is None or ctx.resilient_parsing:
        return
    from auditor import kinddocs

    kind = kinddocs.find(value)
    if kind is None:
        _error(f"unknown kind {value!r}", unknown_kind_hint(value))
        ctx.exit(ExitCode.ERROR)
    click.echo(kinddocs.plain(kind), nl=False)
    ctx.exit(ExitCode.CLEAN)


@click.command(
    name=PROG,
    help=HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.argument("consumer", required=False, default=".")
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="SPEC",
    help="Provider requirement to audit against (PEP 508); repeatable. A range audits every "
    "matching release. Required here or in [tool.drift-audit].",
)
@click.option(
    "--baseline",
    multiple=True,
    metavar="SPEC",
    help="Provider release the consumer is known to work with; one per provider. Default: "
    "inferred from the consumer's metadata, else the installed version.",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(list(REPORTERS)),
    help=f"Report format. Default: {DEFAULT_FORMAT}.",
)
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE (- for stdout).")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON_CHOICES),
    help=f"Exit 1 when a new finding is at or above this severity. Default: {DEFAULT_FAIL_ON}.",
)
@click.option(
    "--baseline-file",
    metavar="FILE",
    help="A baseline file (--write-baseline) or JSON report; findings recorded there are "
    "'baselined' and do not fail.",
)
@click.option(
    "--write-baseline",
    metavar="FILE",
    help="Also write the baseline file: this run's findings as fingerprints, sorted.",
)
@click.option("--offline", is_flag=True, help="Never use the network; use the cache only.")
@click.option("--cache-dir", metavar="DIR", help="Where fetched sources are cached.")
@click.option("--index-url", metavar="URL", help="Package index (simple API). Default: pip's.")
@click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Consumer paths to skip; repeatable."
)
@click.option("--pre", is_flag=True, help="Let a range match pre-releases.")
@click.option("--config", metavar="FILE", help="Read settings from FILE, not pyproject.toml.")
@click.option(
    "--select",
    multiple=True,
    metavar="KINDS",
    help="Report only these kinds (comma-separated slugs, or ALL); repeatable.",
)
@click.option("--ignore", multiple=True, metavar="KINDS", help="Leave these kinds out; repeatable.")
@click.option(
    "--statistics",
    is_flag=True,
    help="Print the count of findings per kind instead of the report (-o still gets it).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings would fail the gate.")
@click.option(
    "--show-baselined", is_flag=True, help="List baselined and suppressed findings in full."
)
@click.option(
    "--show-preexisting",
    is_flag=True,
    help="List the preexisting findings (broken at the baseline too) in full; else counted.",
)
@click.option(
    "--show-unknown",
    is_flag=True,
    help="List the sites the analysis could not decide, each with its reason (JSON always does).",
)
@click.option(
    "--gate-tests/--no-gate-tests",
    "gate_tests",
    default=None,
    help="Let new findings in the consumer's test files (under tests/ or test/, test_*.py, "
    "*_test.py, conftest.py) fail the run, or not; they are reported either way. Default: "
    "gate-tests in [tool.drift-audit], else they do.",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print the fixes as a unified diff instead of the report; change nothing.",
)
@click.option(
    "--fix", is_flag=True, help="Apply the safe fixes to a folder consumer, then audit again."
)
@click.option("--unsafe-fixes", is_flag=True, help="With --diff or --fix, also the unsafe fixes.")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only.")
@click.option("-v", "--verbose", is_flag=True, help="Log more: releases, baselines, retries.")
@click.option("--debug", is_flag=True, help="Log everything, with timings per stage; tracebacks.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    is_flag=False,
    flag_value="always",  # a bare --color, as before
    show_default=True,
    help="Colour the text report. auto: on a terminal, unless NO_COLOR, FORCE_COLOR=0 or "
    "TERM=dumb.",
)
@click.option("--no-color", "no_color", is_flag=True, hidden=True, help="Same as --color never.")
@click.option(
    "--explain",
    metavar="KIND",
    expose_value=False,
    is_eager=True,
    callback=_explain,
    help="Explain a kind of finding (what, why, an example, the fix) and exit.",
)
@click.option(
    "--list-kinds",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_list_kinds,
    help="List every kind of finding and exit.",
)
@click.version_option(tool_version(), "--version", prog_name=PROG, message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, /, format_: str | None, no_color: bool, **options: Any) -> None:
    if no_color:
        options["color"] = "never"
    ctx.exit(run(Options(format=format_, **options)))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `drift-audit` script and of `python -m auditor`."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if _is_cache_command(args):
        cache_cli.main(args=args[1:], prog_name=f"{PROG} cache")
    elif args[:1] == ["ecosystem"] and not Path("ecosystem").is_dir():
        ecosystem_cli.main(args=args[1:], prog_name=f"{PROG} ecosystem")
    else:
        cli.main(args=args, prog_name=PROG)


# --------------------------------------------------------------------------- cache


def _is_cache_command(args: list[str]) -> bool:
    """`drift-audit cache info|clear`; a consumer folder named `cache` still audits."""
    if args[:1] != ["cache"]:
        return False
    return args[1] in ("info", "clear", "-h", "--help") if len(args) > 1 else True


@click.group(
    name="cache",
    help="Show or empty the cache of fetched sources (default: $DRIFT_AUDIT_CACHE_DIR, "
    "else the user cache folder).",
    context_settings={"help_option_names": ["-h", "--help"]},
)
def cache_cli() -> None:
    pass


_CACHE_DIR = click.option("--cache-dir", metavar="DIR", help="The cache folder to use.")


@cache_cli.command(name="info", help="Where the cache is, its size, what it holds per release.")
@_CACHE_DIR
def cache_info(cache_dir: str | None) -> None:
    from auditor.sources.cachedir import Owner, cache_usage
    from auditor.sources.root import cache_root

    usage = cache_usage(cache_root(cache_dir))
    owned = usage.owned
    click.echo(f"cache: {terminal(str(usage.root))}")
    if owned.owner is Owner.FOREIGN:  # never walked: it is not drift-audit's
        click.echo(f"not a drift-audit cache ({terminal(owned.why)}): nothing counted")
        return
    click.echo(f"size: {_mib(usage.size)}")
    if not owned.is_cache:
        missing = owned.owner is Owner.MISSING
        click.echo("nothing cached yet" + (": the folder does not exist" if missing else ""))
        return
    click.echo(f"index pages: {usage.pages}, local archives: {usage.local}")
    other = f", other files: {usage.other_files}" if usage.other_files else ""
    memos = f"lookup memos: {usage.lookup_memos}, call-chain memos: {usage.chain_memos}"
    click.echo(f"{memos}, runs kept for a replay: {usage.replays}{other}")
    for e in usage.entries:  # names and versions read from the (untrusted) cache
        what = "members read by ranges" if e.how == "ranges" else "files extracted"
        click.echo(f"  {terminal(e.name)} {terminal(e.version)}: {e.files} {what}, {_mib(e.size)}")


@cache_cli.command(
    name="clear",
    help="Remove everything drift-audit keeps in the cache; the folder stays, with its "
    "CACHEDIR.TAG. A folder that is not drift-audit's cache is refused, nothing deleted.",
)
@_CACHE_DIR
def cache_clear(cache_dir: str | None) -> None:
    from auditor.sources.cachedir import Owner, clear_cache
    from auditor.sources.root import cache_root

    root = cache_root(cache_dir)
    try:
        cleared = clear_cache(root)
    except AuditError as exc:
        _error(exc.message, exc.hint)
        sys.exit(ExitCode.ERROR)
    shown, owner = terminal(str(root)), cleared.owned.owner
    if owner in (Owner.MISSING, Owner.EMPTY):
        state = "does not exist" if owner is Owner.MISSING else "is empty"
        click.echo(f"nothing to clear: {shown} {state}")
    else:
        click.echo(f"cleared {shown} ({_mib(cleared.freed)} freed)")


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


# --------------------------------------------------------------------------- ecosystem


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
@click.option("--consumers", "consumers_file", metavar="FILE", help="One consumer per line.")
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
        _error(exc.message, exc.hint)
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
    _error(f"{message}: the run cannot pass", f"each error row says why; --max-errors {failed}"
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
    those that could not be examined, with why (a dependent whose metadata failed its
    integrity check). None at all is an error: a run over nobody is never a pass."""
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
    unexamined = {f"{d.name}=={d.version}": d.error for d in found if d.error is not None}
    return [f"{d.name}=={d.version}" for d in found], unexamined


def _consumers_listed(path: Path) -> list[str]:
    from auditor.ecosystem import read_consumers
    from auditor.files import read_file

    try:
        text = read_file(path, limit=16 << 20, root=path.resolve().parent).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read --consumers {path}: {exc}") from exc
    return read_consumers(text)


# --------------------------------------------------------------------------- running


def run(opts: Options) -> int:
    """Run one audit as the command line asks; the exit status."""
    configure_logging(quiet=opts.quiet, verbose=opts.verbose, debug=opts.debug)
    try:
        return _run(opts)
    except AuditError as exc:
        logging.getLogger(LOGGER).debug("the audit could not run", exc_info=True)
        _error(exc.message, exc.hint)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        _stop_network()
        click.echo(f"{PROG}: interrupted", err=True)
        return INTERRUPTED
    except (click.ClickException, click.exceptions.Exit, BrokenPipeError):
        raise
    except MemoryError as exc:  # says nothing of the input: nothing of this run was kept
        where = f" {exc}" if exc.args else ""
        _error(f"ran out of memory{terminal(where)}; nothing was reported", MEMORY_HINT)
        return ExitCode.ERROR
    except Exception as exc:
        if opts.debug:
            raise
        click.echo(
            f"{PROG}: internal error: {type(exc).__name__}: {terminal(str(exc))} "
            "(rerun with --debug for the traceback)",
            err=True,
        )
        return ExitCode.ERROR


def _stop_network() -> None:
    """Cancel range requests still running on worker threads, so that the process exits now
    rather than when a slow server answers (only if the network was used at all)."""
    fetch = sys.modules.get("auditor.sources.fetch")
    if fetch is not None:
        fetch.abort_all()


MEMORY_HINT = (
    "free memory or raise the limit (on Python 3.10 and 3.11, a file nested more deeply than "
    "Python's own parser accepts ends the same way)"
)
# reports that carry each finding's fix (the text ones say which findings --fix repairs)
FIX_FORMATS = ("json", "sarif", "html", "text", "concise")


def _run(opts: Options) -> int:
    started = time.perf_counter()
    began = time.time()
    settings = settings_for(opts.consumer, opts.config)
    plan = make_plan(opts, settings)
    with_fixes = opts.diff or opts.fix or plan.format in FIX_FORMATS
    baseline_path = _baseline_file(plan, opts)
    key = _replay_key(opts, plan, settings, baseline_path)
    report = _replayed(opts, key, started) if key is not None else None
    if report is None:
        report = _audit(opts, plan, baseline_path, fixes=with_fixes, keep_as=key, began=began)
    _say_baselines(report)
    if opts.fix:
        report = _fix(report, plan, opts)
    write_report(report, plan, opts)
    if opts.exit_zero:
        return ExitCode.CLEAN
    _say_tests_not_gated(report, plan)
    return exit_status(report, plan.fail_on, gate_tests=plan.gate_tests)


NOTE = logging.INFO + 5  # shown by default (as warnings are), hidden by --quiet
logging.addLevelName(NOTE, "NOTE")


def _say_baselines(report: Report) -> None:
    """On stderr, per provider: the baseline inferred and why; a warning when it is not older
    than a target (nothing can be new then), or when the consumer never reaches the provider."""
    log = logging.getLogger(LOGGER)
    consumer = report.consumer.name
    for provider in report.providers or (report.provider,):
        name, baseline = provider.name, provider.baseline
        if baseline is not None and provider.baseline_why:
            log.log(NOTE, "baseline %s %s inferred: %s", name, baseline, provider.baseline_why)
        if provider.call_sites == 0:
            log.warning("%s has no site into %s: nothing of it was checked", consumer, name)
        if baseline is None or not provider.targets:
            continue
        oldest = min(provider.targets, key=_version_key)
        if _version_key(baseline) > _version_key(oldest):
            log.warning("the baseline %s %s is newer than the target %s", name, baseline, oldest)
        elif _version_key(baseline) == _version_key(oldest):
            log.warning(
                "the baseline %s %s is the target itself: no finding can be new", name, baseline
            )


def _version_key(version: str) -> tuple[int, object]:
    from packaging.version import InvalidVersion, Version

    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)  # a folder's label: compared as text


def _audit(
    opts: Options,
    plan: Plan,
    baseline_path: str | None,
    *,
    fixes: bool,
    keep_as: str | None,
    began: float = 0.0,
) -> Report:
    """The audit; kept for a replay under `keep_as` when the run warned of nothing (a
    replay would not warn again) and its sources cannot change (replay.save)."""
    from auditor import pipeline

    provenance: list[Provenance] = []
    with progress_display(enabled=_shows_progress(opts)) as progress, _warnings() as warned:
        report = pipeline.audit(
            opts.consumer,
            plan.against,
            baseline=plan.baseline or None,
            index_url=opts.index_url,
            cache_dir=opts.cache_dir,
            offline=opts.offline,
            exclude=plan.exclude,
            pre=opts.pre,
            baseline_file=baseline_path,
            baseline_file_root=plan.baseline_file_root,
            project_root=plan.project_root,
            select=plan.select,
            ignore=plan.ignore,
            severity=dict(plan.severity),
            progress=progress,
            fixes=fixes,
            provenance=provenance.append,
            left_out=plan.left_out,
        )
    if keep_as is not None and provenance and not warned:
        from auditor import replay
        from auditor.sources.root import cache_root

        replay.save(cache_root(opts.cache_dir), keep_as, report, provenance[0], began=began)
    return report


# --------------------------------------------------------------------------- replays


def _replay_key(
    opts: Options, plan: Plan, settings: Settings, baseline_path: str | None
) -> str | None:
    """The key a replay of this run is kept under; None when it is not replayed: asked to
    change files (--fix) or show them (--diff), to log every stage (--debug), or
    DRIFT_AUDIT_NO_REPLAY=1. (A folder consumer's files are checked by replay.load.)"""
    from auditor import replay

    if not replay.enabled() or opts.fix or opts.diff or opts.debug:
        return None
    from auditor.files import read_file
    from auditor.reporters.json_report import MAX_REPORT_BYTES
    from auditor.sources.pipconf import read_index_settings

    baseline = "none"
    if baseline_path is not None:
        try:
            data = read_file(baseline_path, limit=MAX_REPORT_BYTES, root=plan.baseline_file_root)
        except OSError:
            return None  # the audit says why
        baseline = hashlib.sha256(data).hexdigest()
    index = read_index_settings(opts.index_url)
    return replay.run_key([repr(opts), repr(plan), repr(settings), repr(index), baseline])


def _replayed(opts: Options, key: str, started: float) -> Report | None:
    from dataclasses import replace

    from auditor import replay
    from auditor.sources.root import cache_root

    report = replay.load(cache_root(opts.cache_dir), key)
    if report is None:
        return None
    return replace(report, stats=replace(report.stats, seconds=time.perf_counter() - started))


@contextlib.contextmanager
def _warnings() -> Iterator[list[logging.LogRecord]]:
    """The warnings logged inside the block (whether shown or not)."""
    seen: list[logging.LogRecord] = []

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    handler = Seen(logging.WARNING)
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    try:
        yield seen
    finally:
        logger.removeHandler(handler)


def _fix(report: Report, plan: Plan, opts: Options) -> Report:
    """--fix: every chosen fix written (all files or none), then the audit again: what it
    reports is what is left, and the count said is of the findings that disappeared (a
    fix can repair more than its own finding: a keyword renamed is no longer deprecated)."""
    from auditor.fixfiles import fixed_files, outputs

    changes = fixed_files(report, unsafe=opts.unsafe_fixes, option="--fix")
    inside = report.consumer.confine or report.consumer.root or "."  # a package folder
    write_files(outputs(changes, Path(inside)))
    again = _audit(
        opts, plan, _baseline_file(plan, opts), fixes=plan.format in FIX_FORMATS, keep_as=None
    )
    if not opts.quiet:
        gone = _disappeared(report, again)
        files = plural(len(changes), "file")
        applied = sum(len(c.fixed) for c in changes)
        edits = f" ({plural(applied, 'fix', 'fixes')} applied)" if applied != gone else ""
        click.echo(
            f"{PROG}: fixed {plural(gone, 'finding')}{edits} in {files}"
            f"{_unsafe_left(report, opts, ' not applied')}",
            err=True,
        )
    return again


def _disappeared(before: Report, after: Report) -> int:
    """How many findings of `before` the re-audit no longer reports (by fingerprint, each
    occurrence counted)."""
    left = Counter(f.fingerprint for f in after.findings)
    gone = 0
    for finding in before.findings:
        if left[finding.fingerprint] > 0:
            left[finding.fingerprint] -= 1
        else:
            gone += 1
    return gone


def _unsafe_left(report: Report, opts: Options, verb: str = "") -> str:
    """The unsafe fixes not chosen: ` (1 more with --unsafe-fixes)`, or with `verb`
    `; 1 unsafe fix not applied (--unsafe-fixes)`; "" when none."""
    left = 0 if opts.unsafe_fixes else sum(1 for f in report.findings if _fixable(f, safe=False))
    if not left:
        return ""
    if verb:
        return f"; {plural(left, 'unsafe fix', 'unsafe fixes')}{verb} (--unsafe-fixes)"
    return f" ({left} more with --unsafe-fixes)"


def _fixable(finding: Finding, *, safe: bool) -> bool:
    fix = finding.fix
    return fix is not None and fix.safe is safe and finding.status is not Status.SUPPRESSED


def _baseline_file(plan: Plan, opts: Options) -> str | None:
    """The baseline file to read; none when it does not exist yet (this run may be the one
    that writes it: say so unless it is)."""
    path = plan.baseline_file
    if path is None or Path(path).exists() or Path(path).is_symlink():
        return path
    writing = opts.write_baseline and Path(path).resolve() == Path(opts.write_baseline).resolve()
    if not writing:
        logging.getLogger(LOGGER).warning(
            "baseline file %s does not exist yet: every finding counts as new "
            "(write it with --write-baseline %s)",
            path, path,
        )  # fmt: skip
    return None


def settings_for(consumer: str, config: str | None = None) -> Settings:
    """`--config FILE`, else the nearest pyproject.toml with `[tool.drift-audit]` at or above
    the consumer folder (the current folder for a consumer that is not a folder)."""
    if config is not None:
        return load_config_file(Path(config))
    folder = Path(consumer).expanduser()
    return find_settings(folder if folder.is_dir() else Path.cwd())


def make_plan(opts: Options, settings: Settings) -> Plan:
    """Merge the command line over the settings (the command line wins)."""
    against = opts.against or settings.against
    if not against:
        raise click.UsageError(
            "missing --against SPEC (or `against` in [tool.drift-audit] of pyproject.toml)"
        )
    fmt = opts.format or settings.format or DEFAULT_FORMAT
    if fmt not in REPORTERS:
        raise ConfigError(
            f"format = {fmt!r} in [tool.drift-audit] of {settings.source} is not one of "
            f"{', '.join(REPORTERS)}"
        )
    output = opts.output or settings.output
    # a path from the command line goes where the user typed; one from the consumer's
    # pyproject.toml (untrusted: it comes with the pull request) must stay in the project
    from_config = settings.root if opts.output is None and output is not None else None
    from_config_baseline = settings.root if opts.baseline_file is None else None
    select = _kinds(opts.select, "--select") if opts.select else settings.select
    if select == ():
        raise no_kind_selected("--select")
    ignore = (*settings.ignore, *_kinds(opts.ignore, "--ignore"))
    project_root = _project_root(opts.consumer, settings)
    return Plan(
        against=against,
        baseline=opts.baseline or settings.baseline,
        format=fmt,
        output=None if output in (None, "-") else output,
        fail_on=opts.fail_on or settings.fail_on or DEFAULT_FAIL_ON,
        exclude=opts.exclude or settings.exclude,
        baseline_file=opts.baseline_file or settings.baseline_file,
        output_root=from_config,
        baseline_file_root=from_config_baseline if settings.baseline_file else None,
        select=None if select is None else _members(select),  # ALL: the kinds off by default too
        ignore=_members(ignore),
        severity=tuple((Kind.from_slug(k), Severity(v)) for k, v in settings.severity),
        project_root=project_root,
        left_out=_left_out(opts, settings, project_root),
        gate_tests=_first_set(opts.gate_tests, settings.gate_tests, default=True),
    )


def _first_set(*values: bool | None, default: bool) -> bool:
    return next((v for v in values if v is not None), default)


def _left_out(opts: Options, settings: Settings, project_root: Path | None) -> tuple[LeftOut, ...]:
    """What `select` (the command line's, else the config's) and each `ignore` leave out;
    a file named by --config is the command line's, the project's pyproject.toml its own."""
    file = _config_file(settings, project_root)
    source = "command-line" if opts.config else "config"
    cli_select = _kinds(opts.select, "--select") if opts.select else None
    found = [
        left_out("select", cli_select, "command-line", None) if cli_select is not None else None,
        left_out("select", settings.select, source, file)
        if cli_select is None and settings.select is not None
        else None,
        left_out("ignore", settings.ignore, source, file),
        left_out("ignore", _kinds(opts.ignore, "--ignore"), "command-line", None),
    ]
    return tuple(entry for entry in found if entry is not None)


def _config_file(settings: Settings, project_root: Path | None) -> str | None:
    """The settings' file as reports name it: relative to the project root when inside it."""
    source = settings.source
    if source is None:
        return None
    if project_root is not None:
        with contextlib.suppress(ValueError):
            return source.resolve().relative_to(project_root.resolve()).as_posix()
    return str(source)


def _kinds(values: tuple[str, ...], option: str) -> tuple[str, ...]:
    """`--select a,b --select c` -> ("a", "b", "c"), each checked against the catalogue."""
    slugs = tuple(s.strip() for v in values for s in v.split(",") if s.strip())
    return check_kinds(slugs, option)


def _members(slugs: Sequence[str]) -> tuple[Kind, ...]:
    if ALL in slugs:
        return tuple(Kind)
    return tuple(dict.fromkeys(Kind.from_slug(s) for s in slugs))


def _project_root(consumer: str, settings: Settings) -> Path | None:
    """Report paths are relative to the folder of the settings' pyproject.toml when the
    consumer is a folder inside it; else audit() finds the consumer's own project."""
    if settings.root is None or settings.source is None or not Path(consumer).is_dir():
        return None
    if settings.source.name != "pyproject.toml":  # --config FILE: not a project's root
        return None
    root = settings.root.resolve()
    inside = Path(consumer).resolve() == root or root in Path(consumer).resolve().parents
    return root if inside else None


def exit_status(report: Report, fail_on: str, *, gate_tests: bool = True) -> int:
    """1 when a new finding is at or above `fail_on` (never: always 0), else 0; with
    `gate_tests` false, findings in the consumer's test files do not count."""
    gated = (f for f in report.findings if gate_tests or not f.in_test_file)
    failing = any(_gating(f, fail_on) for f in gated)
    return ExitCode.FINDINGS if failing else ExitCode.CLEAN


def _gating(finding: Finding, fail_on: str) -> bool:
    """A new finding at or above `fail_on` (nothing is, for `never`)."""
    if fail_on == "never" or finding.status is not Status.NEW:
        return False
    return finding.severity.rank >= Severity(fail_on).rank


def _say_tests_not_gated(report: Report, plan: Plan) -> None:
    """With gate-tests off, a note on stderr of the failing findings it kept out of the gate."""
    if plan.gate_tests:
        return
    kept_out = sum(1 for f in report.findings if f.in_test_file and _gating(f, plan.fail_on))
    if kept_out:
        logging.getLogger(LOGGER).log(
            NOTE,
            "%s in test files left out of the exit status (gate-tests off)",
            plural(kept_out, "new finding"),
        )


# --------------------------------------------------------------------------- output


# list baselined findings only if asked
READER_FORMATS = ("text", "concise", "markdown", "github", "html")


def write_report(report: Report, plan: Plan, opts: Options) -> None:
    """Render every output before touching any file, then write the files all or nothing
    (files.write_outputs), then standard output: the report, or with --statistics the
    counts per kind; and when the report went to a file, its summary line on stderr."""
    color = use_color(
        opts.color,
        fmt=plan.format,
        to_file=plan.output is not None,
        env=os.environ,
        isatty=sys.stdout.isatty(),
    )
    shown = report
    if plan.format in READER_FORMATS:
        shown = reader_view(
            report,
            baselined=opts.show_baselined,
            preexisting=opts.show_preexisting or plan.format == "html",
        )
    if opts.show_unknown:
        shown = replace(shown, list_undecided=True)
    text = REPORTERS[plan.format](shown, color=color)
    outputs = []
    if opts.write_baseline:
        outputs.append(Output(Path(opts.write_baseline), encode(baseline_file.render(report))))
    if plan.output is not None:
        outputs.append(Output(Path(plan.output), encode(text), root=plan.output_root))
    diff = None
    if opts.diff:
        from auditor.fixfiles import diff_of, fixed_files

        changes = fixed_files(report, unsafe=opts.unsafe_fixes, option="--diff")
        diff = diff_of(changes)
    write_files(outputs)
    if diff is not None:
        write_stdout(diff)
        if not opts.quiet:
            would = sum(len(c.fixed) for c in changes)
            more = _unsafe_left(report, opts)
            click.echo(f"Would fix {plural(would, 'finding')}{more}", err=True)
    elif opts.statistics:
        write_stdout(statistics_table(report))
    elif plan.output is None:
        write_stdout(text)
    if plan.output is not None and not opts.quiet:
        from auditor.reporters.text import summary_line

        where = terminal(plan.output)
        click.echo(f"{PROG}: {terminal(summary_line(report))}; report in {where}", err=True)


def reader_view(report: Report, *, baselined: bool = False, preexisting: bool = False) -> Report:
    """The report as a reader sees it: baselined and suppressed findings (unless
    `baselined`, --show-baselined) and preexisting ones (unless `preexisting`,
    --show-preexisting) counted (Report.hidden) but not listed; the matrix rows follow the
    findings kept. (A 3,000-finding torch baseline must not bury the one new finding.)"""
    quiet = {Status.BASELINED, Status.SUPPRESSED} if not baselined else set()
    if not preexisting:
        quiet.add(Status.PREEXISTING)
    keep = [i for i, f in enumerate(report.findings) if f.status not in quiet]
    if len(keep) == len(report.findings):
        return report
    hidden = tuple(f for f in report.findings if f.status in quiet)
    return report.narrowed(keep, hidden=hidden)


def statistics_table(report: Report) -> str:
    """`--statistics`: per kind present, how many findings, by status (like ruff's); then
    what the settings left out, if anything."""
    note = left_out_note(report)
    tail = f"not checked: {terminal(note)}\n" if note else ""
    rows = count_by_kind(report.findings)
    severity = {f.kind: f.severity.value for f in report.findings}
    if not rows:
        return "no findings\n" + tail
    width = max(len(k.slug) for k in rows)
    head = f"{'count':>5}  {'kind':<{width}}  {'severity':<8}  " + "  ".join(
        f"{s.value:>11}" for s in Status
    )
    lines = [head.rstrip()]
    for kind in sorted(rows, key=lambda k: (-sum(rows[k].values()), list(Kind).index(k))):
        counts = rows[kind]
        cells = "  ".join(f"{counts[s]:>11}" for s in Status)
        lines.append(
            f"{sum(counts.values()):>5}  {kind.slug:<{width}}  {severity[kind]:<8}  {cells}"
        )
    lines.append(f"{len(report.findings):>5}  total")
    return "\n".join(lines) + "\n" + tail


def encode(text: str) -> bytes:
    """UTF-8; a lone surrogate (a name that was not UTF-8) as its backslash escape, which in
    JSON is a valid escape, so no report ever fails to encode."""
    return text.encode("utf-8", "backslashreplace")


def write_files(outputs: Sequence[Output]) -> None:
    """AuditError (nothing written) when any output cannot be written as a regular file."""
    try:
        write_outputs(outputs)
    except OSError as exc:
        where = exc.filename or "the report"
        raise AuditError(
            f"cannot write {where}: {exc.strerror or exc}", hint=_write_hint(exc)
        ) from exc


def _write_hint(exc: OSError) -> str:
    if isinstance(exc, Refused):
        return (
            "name a regular file (or - for standard output); a path set in "
            "[tool.drift-audit] must stay inside the project"
        )
    return "check that the folder exists and is writable"


def write_stdout(text: str) -> None:
    """The report on standard output; AuditError when it cannot be written (a full disk)."""
    try:
        sys.stdout.flush()  # anything written as text before goes first
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:  # a text stream with no bytes beneath (an embedding program's)
            sys.stdout.write(encode(text).decode("utf-8"))
            sys.stdout.flush()
        else:
            stream.write(encode(text))
            stream.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _silence_stdout()
        raise AuditError(
            f"cannot write the report to standard output: {exc.strerror or exc}",
            hint="free some space, or write the report to a file with -o FILE",
        ) from exc


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush of what could not be
    written does not print a second error."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


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


# --------------------------------------------------------------------------- terminal


PROGRESS_DELAY = 0.5  # seconds before a status line appears: a warm run never shows one
PROGRESS_EVERY = 0.1


def _shows_progress(opts: Options) -> bool:
    """A status line on stderr only for a person watching: a terminal, not -q, not dumb."""
    if opts.quiet or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


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


def _error(message: str, hint: str | None) -> None:
    click.echo(f"{PROG}: error: {terminal(message)}", err=True)
    if hint:
        click.echo(f"{PROG}: hint: {terminal(hint)}", err=True)


def kinds_table() -> str:
    """`--list-kinds`: slug, severity and summary of every kind, aligned."""
    kinds = list(Kind)
    slug_width = max(len(k.slug) for k in kinds)
    sev_width = max(len(k.severity.value) for k in kinds)
    return "".join(
        f"{k.slug:<{slug_width}}  {k.severity.value:<{sev_width}}  {k.summary}\n" for k in kinds
    )


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
