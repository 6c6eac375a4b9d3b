# Maintainers: the command line as given, and merged over the project's settings.
#
# Owns: `Options` (the flags as typed: None or () where one was not passed), `Plan` (what
#       this run will do: the command line over `[tool.drift-audit]`, the command line
#       winning; a path that came from the consumer's pyproject.toml must stay inside the
#       project, and so must a `file:` reference in its `against`/`baseline`, checked here:
#       `_within`), finding the settings (`--config FILE`, else the nearest pyproject.toml),
#       the project root reports are relative to, --select/--ignore as kinds and what they
#       leave out, where `exclude` and `gate-tests` were set (the report names them), and
#       the names the other command modules share (PROG, LOGGER, defaults).
# Takes: Options and Settings. Gives: a Plan, or a click.UsageError / ConfigError.
"""Options and settings merged into the plan of one run."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from auditor.config import (
    ALL,
    Settings,
    check_kinds,
    consumer_project_root,
    find_settings,
    left_out,
    load_config_file,
    no_kind_selected,
)
from auditor.errors import ConfigError
from auditor.kinds import Kind, Severity
from auditor.model import Ungated
from auditor.reporters import REPORTERS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.model import LeftOut


PROG = "drift-audit"
LOGGER = "drift_audit"
INTERRUPTED = 130  # 128 + SIGINT, as shells report it
DEFAULT_FORMAT = "text"
DEFAULT_FAIL_ON = "error"


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
    exclude_by: tuple[str, str | None] = ("command-line", None)  # who set `exclude`
    ungated: tuple[Ungated, ...] = ()  # gate-tests off, and who said so
    baseline_file_default: bool = False  # baseline_file is the project's conventional one
    next_baseline_file: Path | None = None  # what a run without --baseline-file reads


def settings_for(consumer: str, config: str | None = None) -> Settings:
    """`--config FILE`, else the nearest pyproject.toml with `[tool.drift-audit]` at or above
    the consumer folder. A consumer that is not a folder (a release from the index, an
    installed distribution, an archive) belongs to no project here: the current folder's
    settings are another project's, and govern it only when --config names them."""
    if config is not None:
        return load_config_file(Path(config))
    folder = Path(consumer).expanduser()
    return find_settings(folder) if folder.is_dir() else Settings()


def settings_not_used(consumer: str, config: str | None) -> Path | None:
    """The pyproject.toml whose `[tool.drift-audit]` the current folder would give, when
    settings_for() left it out because CONSUMER is not a folder (for a hint); else None."""
    if config is not None or Path(consumer).expanduser().is_dir():
        return None
    try:
        return find_settings(Path.cwd()).source
    except ConfigError:
        return None  # a broken table of another project says nothing of this audit


def settings_origin(settings: Settings) -> str | None:
    """Where the settings in force came from, for the one line on stderr that says so:
    `[tool.drift-audit] of pyproject.toml` (relative to the current folder when inside it),
    or the --config file; None when there are none."""
    source = settings.source
    if source is None:
        return None
    shown = shown_path(source)
    return f"[tool.drift-audit] of {shown}" if source.name == "pyproject.toml" else shown


def shown_path(path: Path) -> str:
    """A path as messages show it: relative to the current folder when inside it."""
    with contextlib.suppress(ValueError, OSError):
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    return str(path)


def make_plan(opts: Options, settings: Settings) -> Plan:
    """Merge the command line over the settings (the command line wins)."""
    against = opts.against or _within(settings.against, "against", settings)
    if not against:
        raise click.UsageError(
            "missing --against SPEC (or `against` in [tool.drift-audit] of pyproject.toml)"
            + _not_used_hint(opts)
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
    gate_tests = _first_set(opts.gate_tests, settings.gate_tests, default=True)
    gate_tests_by = _origin(opts.gate_tests is not None, opts, settings, project_root)
    # a --config file stands in for the project's own settings, the file beside them too
    conventional = None if opts.config else _conventional_baseline(opts.consumer, project_root)
    baseline_file = opts.baseline_file or settings.baseline_file
    default = baseline_file is None and conventional is not None and _exists(conventional)
    return Plan(
        against=against,
        baseline=opts.baseline or _within(settings.baseline, "baseline", settings),
        format=fmt,
        output=None if output in (None, "-") else output,
        fail_on=opts.fail_on or settings.fail_on or DEFAULT_FAIL_ON,
        exclude=opts.exclude or settings.exclude,
        baseline_file=str(conventional) if default else baseline_file,
        output_root=from_config,
        baseline_file_root=(
            conventional.parent
            if default and conventional is not None
            else from_config_baseline
            if settings.baseline_file
            else None
        ),
        select=None if select is None else _members(select),  # ALL: the kinds off by default too
        ignore=_members(ignore),
        severity=tuple((Kind.from_slug(k), Severity(v)) for k, v in settings.severity),
        project_root=project_root,
        left_out=_left_out(opts, settings, project_root),
        gate_tests=gate_tests,
        exclude_by=_origin(bool(opts.exclude), opts, settings, project_root),
        ungated=() if gate_tests else (Ungated("gate-tests", *gate_tests_by),),
        baseline_file_default=default,
        next_baseline_file=Path(settings.baseline_file) if settings.baseline_file else conventional,
    )


CONVENTIONAL_BASELINE = ".drift-baseline.json"


def _conventional_baseline(consumer: str, project_root: Path | None) -> Path | None:
    """`.drift-baseline.json` at a folder consumer's project root: the baseline file a run
    reads when none is named (as basedpyright reads its own), since it is the name every
    example writes. None for a consumer that is not a folder (it has no project here). Read
    as `baseline-file` is: it comes with the pull request, and must stay in the project."""
    root = project_root or consumer_project_root(consumer)
    return None if root is None else root / CONVENTIONAL_BASELINE


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()  # a link is read (and refused) as one


def _not_used_hint(opts: Options) -> str:
    found = settings_not_used(opts.consumer, opts.config)
    if found is None:
        return ""
    unused = shown_path(found)
    return (
        f"; the settings of {unused} govern that project only, not {opts.consumer}: "
        f"--config {unused} applies them"
    )


def _within(specs: tuple[str, ...], key: str, settings: Settings) -> tuple[str, ...]:
    """`against`/`baseline` from a settings file (untrusted: it comes with the pull request),
    each `file:` reference resolved against the file's folder, which it must not leave
    (links and `..` followed first): a provider read from anywhere else on the machine is
    named on the command line, or not at all."""
    if settings.root is None or not any("@" in spec for spec in specs):
        return specs
    from auditor.sources.specs import reference_within  # packaging: only for a reference

    root = settings.root.resolve()
    out = []
    for spec in specs:
        resolved, path = reference_within(spec, root)
        if path is not None and path != root and root not in path.parents:
            raise ConfigError(
                f"{key} in {_where(settings)}: {spec.strip()!r} reads {path}, outside {root}",
                hint=f"name a provider outside the project on the command line (--{key})",
            )
        out.append(resolved)
    return tuple(out)


def _where(settings: Settings) -> str:
    source = settings.source
    if source is not None and source.name == "pyproject.toml":
        return f"[tool.drift-audit] of {source}"
    return str(source)


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


def _origin(
    on_the_command_line: bool, opts: Options, settings: Settings, project_root: Path | None
) -> tuple[str, str | None]:
    """(source, file) of a setting in force, as reports name it: the command line's own
    option; else the settings' file, the command line's when --config named it."""
    if on_the_command_line:
        return "command-line", None
    return ("command-line" if opts.config else "config"), _config_file(settings, project_root)


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
