# Maintainers: `drift-audit cache info|clear`.
#
# Owns: the `cache` group and its two commands: where the cache is, its size and what it
#       holds per release (names and versions read from the cache are untrusted: escaped),
#       and clearing it (sources/cachedir.py refuses a folder that is not drift-audit's).
# Takes: --cache-dir. Gives: lines on stdout; exit 2 when the folder is refused.
"""The cache commands."""

from __future__ import annotations

import sys

import click

from auditor.cli.terminal import say_error
from auditor.errors import AuditError, ExitCode
from auditor.escape import terminal


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
        say_error(exc.message, exc.hint)
        sys.exit(ExitCode.ERROR)
    shown, owner = terminal(str(root)), cleared.owned.owner
    if owner in (Owner.MISSING, Owner.EMPTY):
        state = "does not exist" if owner is Owner.MISSING else "is empty"
        click.echo(f"nothing to clear: {shown} {state}")
    else:
        click.echo(f"cleared {shown} ({_mib(cleared.freed)} freed)")


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"
