# Maintainers: helpers shared by the reporter modules, and nothing else.
#
# Owns: the tool's name and version as reports print them, the per-status /
# per-severity tallies that the text and markdown reporters both summarise, and the
# sentences every format shows for what the settings narrowed: the kinds left out
# (`left_out_note`), the files excluded (`excluded_note`; both: `not_checked_note`) and the
# findings let past the gate (`ungated_note`, `UNGATED_MARK`). Takes a Report, gives plain
# values. No formatting decisions live here: each reporter keeps its own shape.
"""Shared, format-neutral helpers for the reporters."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.kinds import Kind
from auditor.model import Status

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.model import Excluded, Finding, Report, Ungated

TOOL_NAME = "drift-audit"
UNKNOWN_VERSION = "0+unknown"


def tool_version() -> str:
    """drift-audit's version: `auditor.__version__`, the one place it is written (the
    distribution's metadata is made from it, pyproject.toml's `dynamic`), read without
    importlib.metadata (~15 ms to import, on a replay's path)."""
    # read, not imported: `import auditor` here would add an edge from reporters up to
    # the package's lazy pipeline import, which the layers contract forbids
    package = sys.modules.get("auditor")
    return str(getattr(package, "__version__", UNKNOWN_VERSION))


@dataclass(frozen=True, slots=True)
class Tally:
    """How many findings a report holds, by status and, for new ones, by severity."""

    new_error: int = 0
    new_warning: int = 0
    new_info: int = 0
    preexisting: int = 0
    baselined: int = 0
    suppressed: int = 0

    @property
    def new(self) -> int:
        return self.new_error + self.new_warning + self.new_info


def tally(findings: Iterable[Finding], hidden: Iterable[Finding] = ()) -> Tally:
    """Count findings by status, splitting the new ones by severity; `hidden`: findings a
    reader's view leaves out of the listing (Report.hidden), counted all the same."""
    counts = dict.fromkeys(Tally.__dataclass_fields__, 0)
    for finding in [*findings, *hidden]:
        if finding.status is Status.NEW:
            counts[f"new_{finding.severity.value}"] += 1
        else:
            counts[finding.status.value] += 1
    return Tally(**counts)


def count_by_kind(findings: Iterable[Finding]) -> dict[Kind, dict[Status, int]]:
    """Per kind present (catalogue order), how many findings have each status."""
    table: dict[Kind, dict[Status, int]] = {}
    for finding in findings:
        row = table.setdefault(finding.kind, dict.fromkeys(Status, 0))
        row[finding.status] += 1
    order = list(Kind)
    return dict(sorted(table.items(), key=lambda item: order.index(item[0])))


def plural(count: int, word: str, plural_word: str | None = None) -> str:
    """`1 file`, `2 files`; `plural_word` for irregular forms."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {plural_word or word + 's'}"


def left_out_note(report: Report) -> str | None:
    """What the settings kept out of the report, and where they said so, in one sentence
    (`12 of 13 kinds left out by select in [tool.drift-audit] of pyproject.toml: every kind
    but unparsable`); None when every kind is reported. Every format shows it: a gate that a
    pull request's own settings narrowed must not read as a clean pass."""
    if not report.left_out:
        return None
    return "; ".join(
        f"{len(entry.kinds)} of {len(Kind)} kinds left out by {entry.by}: {_kinds(entry.kinds)}"
        for entry in report.left_out
    )


MAX_NAMED_PATHS = 5  # excluded files a one-line note names; JSON and SARIF list them all


def excluded_note(report: Report) -> str | None:
    """What `exclude` kept out of the scan, and where it was set, in one sentence (`1 file
    left out of the scan by exclude in [tool.drift-audit] of pyproject.toml: widget/core.py`);
    None when nothing was."""
    if not report.excluded:
        return None
    return "; ".join(excluded_sentence(entry) for entry in report.excluded)


def excluded_sentence(entry: Excluded, *, every_path: bool = False) -> str:
    """What one `exclude` left out: the first MAX_NAMED_PATHS paths, or `every_path`."""
    named = ", ".join(entry.paths) if every_path else _named(entry.paths)
    return f"{_files(entry.paths)} left out of the scan by {entry.by}: {named}"


def _files(paths: tuple[str, ...]) -> str:
    """`3 files`, `2 files and 1 unreadable folder` (a folder's entry ends in `/`)."""
    folders = sum(1 for p in paths if p.endswith("/"))
    files = plural(len(paths) - folders, "file")
    return f"{files} and {plural(folders, 'unreadable folder')}" if folders else files


def _named(paths: tuple[str, ...]) -> str:
    shown = ", ".join(paths[:MAX_NAMED_PATHS])
    more = len(paths) - MAX_NAMED_PATHS
    return f"{shown} and {more} more" if more > 0 else shown


def not_checked_note(report: Report) -> str | None:
    """Everything the settings kept from being checked, in one sentence: the kinds left out
    (`left_out_note`) and the files excluded (`excluded_note`); None when nothing was."""
    notes = [n for n in (left_out_note(report), excluded_note(report)) if n is not None]
    return "; ".join(notes) if notes else None


def ungated_note(report: Report) -> str | None:
    """The settings that keep new findings out of the gate, and where they were set (`1 new
    finding in test files left out of the gate by gate-tests = false in [tool.drift-audit] of
    pyproject.toml`), said whenever one is in force, even when it let nothing pass; None
    when none is."""
    if not report.ungated:
        return None
    return "; ".join(ungated_sentence(entry, report) for entry in report.ungated)


def ungated_sentence(entry: Ungated, report: Report) -> str:
    """What one setting lets past the gate in this report, and where it was set."""
    passed = sum(1 for f in report.findings if entry.lets_pass(f))
    return f"{plural(passed, 'new finding')} in test files left out of the gate by {entry.by}"


UNGATED_MARK = "not gated: test file"  # what a finding the settings let pass is marked with


def _kinds(kinds: tuple[Kind, ...]) -> str:
    """The slugs; `every kind`, or `every kind but ...` when that is shorter."""
    if len(kinds) == len(Kind):
        return "every kind"
    if 2 * len(kinds) > len(Kind):
        return "every kind but " + ", ".join(k.slug for k in Kind if k not in kinds)
    return ", ".join(k.slug for k in kinds)


def provider_line(report: Report) -> str:
    """`speculators 0.3.0 against vllm 0.16.0, 0.17.0 (baseline 0.11.0)`."""
    consumer = report.consumer
    provider = report.provider
    who = f"{consumer.name} {consumer.version}" if consumer.version else consumer.name
    targets = ", ".join(provider.targets) or "(no release)"
    base = f"baseline {provider.baseline}" if provider.baseline else "no baseline"
    return f"{who} against {provider.name} {targets} ({base})"


def modules_phrase(report: Report) -> str:
    """How the provider was read: `12 provider modules parsed, 80 answered from earlier
    runs, 5 reused within this run` (parsed here; answered by what earlier runs memoized in
    the cache; answered by lookups made earlier in this run: another release's answer, or
    the same lookup again). "" when no provider module was read."""
    stats = report.stats
    earlier = min(stats.provider_modules_earlier, stats.provider_modules_cached)
    counts = (
        (stats.provider_modules_loaded, "parsed"),
        (earlier, "answered from earlier runs"),
        (stats.provider_modules_cached - earlier, "reused within this run"),
    )
    shown = [(count, what) for count, what in counts if count]
    if not shown:
        return ""
    (first, what), rest = shown[0], shown[1:]
    words = [f"{plural(first, 'provider module')} {what}", *(f"{c} {w}" for c, w in rest)]
    return ", ".join(words)
