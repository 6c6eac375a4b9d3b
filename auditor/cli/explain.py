# Maintainers: `--explain KIND` and `--list-kinds`, the catalogue on the command line.
#
# Owns: the two eager options' callbacks (each prints and exits before anything else runs)
#       and the aligned table of every kind. The documentation itself is kinddocs.py's.
# Takes: a slug. Gives: text on stdout and exit 0, or an error and a hint and exit 2.
"""`--explain` and `--list-kinds`."""

from __future__ import annotations

import click

from auditor.cli.terminal import say_error
from auditor.config import unknown_kind_hint
from auditor.errors import ExitCode
from auditor.kinds import Kind


def list_kinds(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(kinds_table(), nl=False)
    ctx.exit(ExitCode.CLEAN)


def explain_kind(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """`--explain KIND`: the kind's documentation, shipped with the package (like `ruff rule`)."""
    if value is None or ctx.resilient_parsing:
        return
    from auditor import kinddocs

    kind = kinddocs.find(value)
    if kind is None:
        say_error(f"unknown kind {value!r}", unknown_kind_hint(value))
        ctx.exit(ExitCode.ERROR)
    click.echo(kinddocs.plain(kind), nl=False)
    ctx.exit(ExitCode.CLEAN)


def kinds_table() -> str:
    """`--list-kinds`: slug, severity and summary of every kind, aligned."""
    kinds = list(Kind)
    slug_width = max(len(k.slug) for k in kinds)
    sev_width = max(len(k.severity.value) for k in kinds)
    return "".join(
        f"{k.slug:<{slug_width}}  {k.severity.value:<{sev_width}}  {k.summary}\n" for k in kinds
    )
