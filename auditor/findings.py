"""Findings: per-site verdicts against the baseline and each target -> sorted Findings.

What it owns: the differential rule (a finding is `new` only when the site binds against the
baseline and fails against a target; what fails against both is `preexisting`), which releases
each finding breaks in, guards (an import under `try/except ImportError` with a working
alternative is no break), de-duplication (a call through an import that is already reported
gone adds nothing), inline suppressions, the baseline file, and the order of the report.

What it takes: `SiteCheck`s (a Site and its Verdicts), the ConsumerScan, the CallGraph. What it
gives: a tuple of `Finding`s, sorted by path, line, column and kind.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from auditor.kinds import Kind
from auditor.model import Action, Finding, Location, Status, SymbolKind

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from auditor.bind import Problem, Verdict
    from auditor.graph import CallGraph
    from auditor.model import ConsumerScan, Site, Unparsable

REMOVALS = (Kind.REMOVED_MODULE, Kind.REMOVED_SYMBOL)
CONTEXT_LINES = 2


@dataclass(frozen=True, slots=True)
class SiteCheck:
    """One site with its verdict against the baseline (if any) and against each target."""

    site: Site
    baseline: Verdict | None
    targets: tuple[tuple[str, Verdict], ...]  # (version, verdict), oldest first


def collect_findings(
    scan: ConsumerScan,
    checks: Sequence[SiteCheck],
    graph: CallGraph,
    *,
    provider: str,
    baselined: frozenset[str] = frozenset(),
) -> tuple[Finding, ...]:
    """Every finding of the audit, with status, chains and source context, in report order."""
    context = _Context(checks)
    findings = [f for check in checks for f in _site_findings(check, context)]
    findings += [_unparsable(u, provider) for u in scan.unparsable]
    findings = [_decorate(f, scan, graph, baselined) for f in findings]
    return tuple(sorted(set(findings), key=lambda f: f.sort_key))


class _Context:
    """Cross-site facts: failing imports per file, and verdicts of import alternatives."""

    def __init__(self, checks: Sequence[SiteCheck]) -> None:
        self.imports: dict[tuple[str, str], SiteCheck] = {}
        self.failing: dict[tuple[str, str], set[tuple[str, bool]]] = {}
        # (path, version) -> {(import target, module_only)} of imports that fail there
        for check in checks:
            if check.site.action is not Action.IMPORT:
                continue
            self.imports[(check.site.location.path, check.site.target)] = check
            for version, verdict in check.targets:
                if _removal(verdict.problems):
                    key = (check.site.location.path, version)
                    entry = (check.site.target, check.site.module_only)
                    self.failing.setdefault(key, set()).add(entry)

    def covered_by_import(self, site: Site, version: str) -> bool:
        """A call or attribute through an import already reported gone in this release.

        `gone()` after a failing `from m import gone` is covered; `m.gone()` through a working
        `import m` is a break of its own; `a.old.f()` after a failing `import a.old` is covered.
        """
        via = site.via
        if via is None:
            return False
        for target, module_only in self.failing.get((site.location.path, version), set()):
            reaches = site.target == target or site.target.startswith(target + ".")
            binds = target == via or (module_only and target.startswith(via + "."))
            if reaches and binds:
                return True
        return False

    def alternative_works(self, site: Site, version: str) -> bool:
        for alternative in site.alternatives:
            check = self.imports.get((site.location.path, alternative))
            if check is None:
                return True  # an alternative outside the provider: assume it can import
            verdict = dict(check.targets).get(version)
            if verdict is not None and not _removal(verdict.problems):
                return True
        return False


def _removal(problems: Iterable[Problem]) -> bool:
    return any(p.kind in REMOVALS for p in problems)


def _site_findings(check: SiteCheck, context: _Context) -> list[Finding]:
    broken: dict[Problem, list[str]] = {}
    for version, verdict in check.targets:
        for problem in verdict.problems:
            if _excused(check.site, problem, version, context):
                continue
            broken.setdefault(_as_known(problem, check.baseline), []).append(version)
    return [_finding(check, problem, tuple(versions)) for problem, versions in broken.items()]


def _as_known(problem: Problem, baseline: Verdict | None) -> Problem:
    """A removed name that was a module in the baseline is a removed module."""
    was = baseline.resolution.symbol if baseline is not None else None
    if problem.kind is Kind.REMOVED_SYMBOL and was is not None and was.kind is SymbolKind.MODULE:
        return replace(problem, kind=Kind.REMOVED_MODULE)
    return problem


def _excused(site: Site, problem: Problem, version: str, context: _Context) -> bool:
    if problem.kind not in REMOVALS:
        return False
    if site.action in (Action.CALL, Action.ATTRIBUTE) and context.covered_by_import(site, version):
        return True
    if site.guarded:
        # try/except ImportError with no alternative, TYPE_CHECKING, version checks: the
        # consumer already copes with the name being absent.
        return not site.alternatives or context.alternative_works(site, version)
    return False


def _finding(check: SiteCheck, problem: Problem, versions: tuple[str, ...]) -> Finding:
    site = check.site
    last = dict(check.targets)[versions[-1]]
    before = check.baseline
    status = Status.NEW
    if before is not None and problem in before.problems:
        status = Status.PREEXISTING
    return Finding(
        kind=problem.kind,
        location=site.location,
        scope=site.scope,
        symbol=_symbol(site, last, before),
        parameter=problem.parameter,
        broken_in=versions,
        baseline_signature=before.signature if before is not None else None,
        target_signature=last.signature,
        status=status,
    )


def _symbol(site: Site, target: Verdict, baseline: Verdict | None) -> str:
    """The provider's canonical path: where it is now, else where it was, else as named."""
    if target.symbol:
        return target.symbol
    if baseline is not None and baseline.symbol:
        return baseline.symbol
    return site.target


def _unparsable(entry: Unparsable, provider: str) -> Finding:
    module = entry.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    location = Location(entry.path, entry.line, entry.column, entry.line, entry.column)
    return Finding(
        kind=Kind.UNPARSABLE,
        location=location,
        scope=module,
        symbol=provider,
        parameter=entry.reason,
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
    )


def _decorate(
    finding: Finding, scan: ConsumerScan, graph: CallGraph, baselined: frozenset[str]
) -> Finding:
    status = finding.status
    if _suppressed(finding, scan.suppressions):
        status = Status.SUPPRESSED
    elif status is Status.NEW and finding.fingerprint in baselined:
        status = Status.BASELINED
    return replace(
        finding,
        status=status,
        reached_from=graph.reached_from(finding.scope),
        source=_context_lines(scan.lines.get(finding.location.path, ()), finding.location.line),
    )


def _suppressed(finding: Finding, suppressions: Mapping[str, Mapping[int, frozenset[str]]]) -> bool:
    kinds = suppressions.get(finding.location.path, {}).get(finding.location.line)
    if kinds is None:
        return False
    return not kinds or finding.kind.slug in kinds


def _context_lines(lines: Sequence[str], line: int) -> tuple[tuple[int, str], ...]:
    first = max(1, line - CONTEXT_LINES)
    last = min(len(lines), line + CONTEXT_LINES)
    return tuple((n, lines[n - 1]) for n in range(first, last + 1))
