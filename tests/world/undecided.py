"""The tool's undecided sites beside the judge's touchpoints (issue 36, item 7).

Every consumer row of the ecosystem JSON report carries `call_sites` (the audit's
stats.call_sites) and `undecided_sites`: the sites the audit could not decide, each
{"path", "line", "column", "target", "reason", "cause"}, `cause` a short stable slug of the
reason ("unresolved-base", "namespace-writer", "decorated", ...). A row without them (a report
of a tool that does not write them yet) is **not measured**: it counts in no share, never as 0%.

A touchpoint is **undecided** when its file and line (its own line or its statement's first
line, as a finding is matched to it) carry an undecided site. The judge writes, per consumer,
how many of its touchpoints are undecided, and on every break the causes of the undecided
sites on its lines; score.py sums them per upgrade, family and overall.

score.py's counts per upgrade (added to its own, summed per family and overall by it):
audits measured, their call sites and undecided sites, the judged consumers measured, their
touchpoints, the undecided ones, and the unguarded breaks among those (found or missed).

Pure functions over the judge's data: no I/O, nothing of drift-audit imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from tests.world.manifest import Upgrade
    from tests.world.touchpoints import Touchpoint

UNKNOWN_CAUSE = "unclassified"  # a site whose `cause` is missing or empty


def measured(row: dict[str, Any]) -> bool:
    """Whether the report row says what was undecided (both fields, of the right types)."""
    return isinstance(row.get("call_sites"), int) and isinstance(row.get("undecided_sites"), list)


def cause_of(site: dict[str, Any]) -> str:
    cause = site.get("cause")
    return cause if isinstance(cause, str) and cause else UNKNOWN_CAUSE


def site_index(
    sites: Iterable[dict[str, Any]], locate: Callable[[str], str | None]
) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """The undecided sites by (file, line), the file as the judge reads it (`locate` maps the
    report's path to a path under the release's import root, or None when it has none)."""
    index: dict[tuple[str, int], list[dict[str, Any]]] = {}
    located: dict[str, str | None] = {}
    for site in sites:
        path, line = site.get("path"), site.get("line")
        if isinstance(path, str) and path not in located:
            located[path] = locate(path)
        found = located.get(path) if isinstance(path, str) else None
        if found is not None and isinstance(line, int):
            index.setdefault((found, line), []).append(site)
    return index


def sites_at(
    tp: Touchpoint, index: dict[tuple[str, int], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The undecided sites on the touchpoint's line or its statement's first line."""
    lines = dict.fromkeys((tp.line, tp.stmt_line))
    return [site for line in lines for site in index.get((tp.path, line), [])]


def causes(sites: Iterable[dict[str, Any]]) -> list[str]:
    return sorted({cause_of(s) for s in sites})


# --------------------------------------------------------------------------- counting (score.py)

UNDECIDED_KEYS = (
    "undecided_audits",  # audits whose report row says what was undecided (undecided.measured)
    "call_sites",  # their call sites (stats.call_sites)
    "undecided_sites",  # their undecided sites
    "undecided_consumers",  # judged consumers with the tool's undecided sites beside them
    "measured_touchpoints",  # their touchpoints
    "undecided_touchpoints",  # those on whose file and line the tool has an undecided site
    "undecided_breaks",  # unguarded breaks among them
    "undecided_misses",  # of which the run reported no matching new error
)


def empty_counts() -> dict[str, int]:
    return dict.fromkeys(UNDECIDED_KEYS, 0)


def count(
    upgrade: Upgrade, counts: dict[str, Any], judged: dict[str, Any], report: dict[str, Any]
) -> list[dict[str, Any]]:
    """Add the upgrade's undecided counts to `counts`; its undecided sites by consumer and
    cause. Rows and judged consumers that do not say are left out (not measured), never 0."""
    where = {"upgrade": upgrade.id, "family": upgrade.family}
    causes_seen = []
    for row in report.get("consumers", []):
        if measured(row):
            counts["undecided_audits"] += 1
            counts["call_sites"] += row["call_sites"]
            counts["undecided_sites"] += len(row["undecided_sites"])
            tally: dict[str, int] = {}
            for cause in map(cause_of, row["undecided_sites"]):
                tally[cause] = tally.get(cause, 0) + 1
            causes_seen += [
                {**where, "consumer": row["spec"], "cause": cause, "sites": n}
                for cause, n in sorted(tally.items())
            ]
    for consumer in judged.get("consumers", []):
        if isinstance(consumer.get("undecided"), dict):
            _count_judged_undecided(counts, consumer)
    return causes_seen


def _count_judged_undecided(counts: dict[str, Any], consumer: dict[str, Any]) -> None:
    counts["undecided_consumers"] += 1
    counts["measured_touchpoints"] += consumer.get("touchpoints", {}).get("total", 0)
    counts["undecided_touchpoints"] += consumer["undecided"].get("touchpoints", 0)
    for brk in consumer.get("breaks", []):
        if brk.get("undecided") and not brk["guarded"]:
            counts["undecided_breaks"] += 1
            counts["undecided_misses"] += 0 if brk["found"] else 1


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def rates(counts: dict[str, Any]) -> dict[str, Any]:
    """The two shares, None when nothing was measured (or there was nothing to share)."""
    counts["undecided_site_share"] = (
        _share(counts["undecided_sites"], counts["call_sites"])
        if counts["undecided_audits"]
        else None
    )
    counts["undecided_touchpoint_share"] = (
        _share(counts["undecided_touchpoints"], counts["measured_touchpoints"])
        if counts["undecided_consumers"]
        else None
    )
    return counts


def by_cause(rows: list[dict[str, Any]], overall: dict[str, Any]) -> list[dict[str, Any]]:
    """Undecided sites by cause, over every measured audit: the count, its share of the
    undecided sites and of the call sites; most sites first."""
    tally: dict[str, int] = {}
    for row in rows:
        tally[row["cause"]] = tally.get(row["cause"], 0) + row["sites"]
    return [
        {"cause": cause, "sites": n, "of_undecided": _share(n, overall["undecided_sites"]),
         "of_call_sites": _share(n, overall["call_sites"])}
        for cause, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
    ]  # fmt: skip


def cause_order(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["upgrade"], row["consumer"], row["cause"])
