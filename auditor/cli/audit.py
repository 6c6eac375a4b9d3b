# Maintainers: the audit command, `drift-audit [CONSUMER] --against SPEC ...`.
#
# Owns: the click command and its options, the run (settings, plan, a replay of an earlier
#       identical run when nothing it rests on changed, else `auditor.pipeline.audit()`,
#       then --fix and the re-audit), what is said about baselines, and turning the outcome
#       into an exit status: an AuditError is one line and a hint (2), an interrupt 130, a
#       MemoryError one line, any other exception a bug: one line asking for --debug, which
#       re-raises it.
# Takes: the command line. Gives: an exit status; the report through output.py.
"""The audit command."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from auditor.cli.explain import explain_kind, list_kinds
from auditor.cli.options import (
    DEFAULT_FAIL_ON,
    DEFAULT_FORMAT,
    INTERRUPTED,
    LOGGER,
    PROG,
    Options,
    Plan,
    make_plan,
    settings_for,
    settings_not_used,
    settings_origin,
    shown_path,
)
from auditor.cli.output import (
    exit_status,
    say_tests_not_gated,
    unsafe_left,
    write_files,
    write_report,
)
from auditor.cli.terminal import NOTE, configure_logging, progress_display, say_error
from auditor.config import FAIL_ON_CHOICES, Settings
from auditor.errors import AuditError, ExitCode
from auditor.escape import terminal
from auditor.reporters import REPORTERS, tool_version
from auditor.reporters.common import plural

if TYPE_CHECKING:
    from collections.abc import Iterator

    from auditor.model import Provenance, ProviderInfo, Report

HELP = """Find the call sites in CONSUMER that a provider upgrade breaks, statically.

CONSUMER is a project or package folder (default: the current folder), an
installed distribution or import name, or a requirement NAME==VERSION read
from the package index. Nothing is installed, imported or executed.

Settings come from [tool.drift-audit] in the nearest pyproject.toml at or
above CONSUMER's folder, or from --config FILE (a consumer that is not a
folder takes none from the current folder): against, baseline, fail-on,
format, output, exclude, baseline-file, select, ignore, gate-tests and a
[tool.drift-audit.severity] table. The command line wins. Paths and `file:`
references in the settings must stay inside the project; the kinds, files
and test-file findings they leave out of the gate are named in every report.
Without a baseline file named, .drift-baseline.json at the project root is
read if there is one.
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
    help="A baseline file (--write-baseline) or JSON report; the findings it records are "
    "accepted (JSON status 'baselined') and do not fail. Default: baseline-file in "
    "[tool.drift-audit], else .drift-baseline.json at the project root if there is one.",
)
@click.option(
    "--write-baseline",
    metavar="FILE",
    help="Also write the baseline file: this run's findings as fingerprints, sorted "
    "(.drift-baseline.json is the name later runs read by themselves).",
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
    "--show-baselined",
    is_flag=True,
    help="List the recorded (baseline file) and suppressed findings in full.",
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
    "*_test.py, conftest.py, unless its other code imports them) fail the run, or not; they "
    "are reported either way. Default: gate-tests in [tool.drift-audit], else they do.",
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
    callback=explain_kind,
    help="Explain a kind of finding (what, why, an example, the fix) and exit.",
)
@click.option(
    "--list-kinds",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=list_kinds,
    help="List every kind of finding and exit.",
)
@click.version_option(tool_version(), "--version", prog_name=PROG, message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, /, format_: str | None, no_color: bool, **options: Any) -> None:
    if no_color:
        options["color"] = "never"
    ctx.exit(run(Options(format=format_, **options)))


def run(opts: Options) -> int:
    """Run one audit as the command line asks; the exit status."""
    configure_logging(quiet=opts.quiet, verbose=opts.verbose, debug=opts.debug)
    try:
        return _run(opts)
    except AuditError as exc:
        logging.getLogger(LOGGER).debug("the audit could not run", exc_info=True)
        say_error(exc.message, exc.hint)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        _stop_network()
        click.echo(f"{PROG}: interrupted", err=True)
        return INTERRUPTED
    except (click.ClickException, click.exceptions.Exit, BrokenPipeError):
        raise
    except MemoryError as exc:  # says nothing of the input: nothing of this run was kept
        where = f" {exc}" if exc.args else ""
        say_error(f"ran out of memory{terminal(where)}; nothing was reported", MEMORY_HINT)
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
FIX_FORMATS = ("json", "sarif", "html", "text", "concise", "markdown")


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
    _say_settings(opts, settings)
    _say_baselines(report, opts)
    if opts.fix:
        report = _fix(report, plan, opts)
    write_report(report, plan, opts)
    if opts.exit_zero:
        return ExitCode.CLEAN
    say_tests_not_gated(report, plan)
    return exit_status(report, plan.fail_on)


def _say_settings(opts: Options, settings: Settings) -> None:
    """One line on stderr naming the settings in force; with -v, the current folder's
    settings that a consumer that is not a folder does not take (they are another
    project's)."""
    log = logging.getLogger(LOGGER)
    origin = settings_origin(settings)
    if origin is not None:
        log.log(NOTE, "settings from %s", origin)
    elif log.isEnabledFor(logging.INFO) and (found := settings_not_used(opts.consumer, None)):
        unused = shown_path(found)
        log.info(
            "not using the settings of %s: %s is not a folder of that project "
            "(--config %s applies them)",
            unused, opts.consumer, unused,
        )  # fmt: skip


def _say_baselines(report: Report, opts: Options) -> None:
    """On stderr, per provider: the baseline inferred and why (the first time for this
    project and version, every time with -v); a warning when it is not older than a target
    (nothing can be new then), or when the consumer never reaches the provider."""
    log = logging.getLogger(LOGGER)
    consumer = report.consumer.name
    for provider in report.providers or (report.provider,):
        name, baseline = provider.name, provider.baseline
        if baseline is not None and provider.baseline_why and _note_due(report, provider, opts):
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


def _note_due(report: Report, provider: ProviderInfo, opts: Options) -> bool:
    """Whether to say how the baseline was inferred: always with -v; else once per consumer
    (name, version, where it comes from), provider, baseline and reason, remembered in the
    cache (sources/notes.py); never when notes are not shown (-q)."""
    log = logging.getLogger(LOGGER)
    if log.isEnabledFor(logging.INFO):
        return True
    if not log.isEnabledFor(NOTE):
        return False
    from auditor.sources.notes import first_time
    from auditor.sources.root import cache_root

    who = report.consumer
    key = ["baseline", who.name, who.version or "", who.origin, provider.name]
    return first_time(
        cache_root(opts.cache_dir), [*key, provider.baseline or "", provider.baseline_why or ""]
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
            excluded_by=plan.exclude_by,
            ungated=plan.ungated,
        )
    if keep_as is not None and provenance and not warned:
        from auditor import replay
        from auditor.sources.root import cache_root

        replay.save(cache_root(opts.cache_dir), keep_as, report, provenance[0], began=began)
    return report


def _shows_progress(opts: Options) -> bool:
    """A status line on stderr only for a person watching: a terminal, not -q, not dumb."""
    if opts.quiet or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


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
            f"{unsafe_left(report, opts, ' not applied')}",
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


def _baseline_file(plan: Plan, opts: Options) -> str | None:
    """The baseline file to read; none when it does not exist yet (this run may be the one
    that writes it: say so unless it is)."""
    path = plan.baseline_file
    if plan.baseline_file_default:
        logging.getLogger(LOGGER).info("recorded findings from %s (the project's own)", path)
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
