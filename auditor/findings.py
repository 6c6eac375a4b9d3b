"""Findings: per-site verdicts against the baseline and each target -> sorted Findings.

What it owns: the differential rule (a finding is `new` only when the site binds against the
baseline and fails against a target; what fails against both is `preexisting`), which releases
each finding breaks in, guards (an import under `try/except ImportError` with a working
alternative is no break), de-duplication (a call through an import that is already reported
gone adds nothing), inline suppressions and the ones that suppress nothing (matched in
suppressions.py, which also names the kinds a comment names that are no kind), the baseline
file (recorded findings become `baselined`, as many of a fingerprint as it counts; recorded ones
that are gone are `fixed`), which findings are in test files (a file named like a test that
the consumer's library code imports is none: `Finding.production`), the release-by-finding
matrix of a drift timeline, and the order of the report.

What it takes: per provider, `SiteCheck`s (a Site and its Verdicts); the ConsumerScan, the
CallGraph, and the findings of a baseline file. What it gives: `Collected`: the `Finding`s,
sorted by path, line, column and kind, with their matrix rows, the fixed findings and the
unused suppressions. Several providers in one run are checked apart (each against its own
baseline and releases) and merged here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from auditor.bind import compare
from auditor.causes import cause_of
from auditor.kinds import Kind
from auditor.model import (
    Action,
    Finding,
    Location,
    Lookup,
    Recorded,
    Status,
    SymbolKind,
    Undecided,
    is_test_path,
    matrix_row,
)
from auditor.provider.paths import UNDECLARED, bare, owners_parts, through_parameter
from auditor.scan.imports import root_of
from auditor.suppressions import COMMENT, suppressed, unknown_note, unused_suppressions

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from auditor.bind import Problem, Verdict
    from auditor.graph import CallGraph
    from auditor.model import (
        ConsumerScan,
        Handled,
        Site,
        Unparsable,
        VersionGate,
    )

REMOVALS = (Kind.REMOVED_MODULE, Kind.REMOVED_SYMBOL)
# an import that fails, or cannot be checked: the uses of what it binds are part of its finding
IMPORT_FAILURES = (*REMOVALS, Kind.UNPARSABLE_PROVIDER)
FOLDED = (Action.CALL, Action.ATTRIBUTE, Action.SUBCLASS)  # uses an import's failure covers
CONTEXT_LINES = 2
MAX_SITE_LINES = 12
# Every text a finding carries is bounded, with a visible cut, so that no input (a 1 MB
# default, a minified line) can make a report huge: 100 findings stay well under a megabyte.
MAX_SIGNATURE_CHARS = 4000
MAX_TEXT_CHARS = 2000  # a suggestion, a symbol, a parameter or reason
MAX_LINE_CHARS = 2000  # one source line


def bounded(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note of how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} …[{len(text) - limit} more characters cut]"


def _bounded_or_none(text: str | None, limit: int) -> str | None:
    return None if text is None else bounded(text, limit)


@dataclass(frozen=True, slots=True)
class SiteCheck:
    """One site with its verdict against the baseline (if any) and against each target."""

    site: Site
    baseline: Verdict | None
    targets: tuple[tuple[str, Verdict], ...]  # (version, verdict), oldest first
    unchanged: bool = False  # undecided at the newest target, on the baseline's very basis


@dataclass(frozen=True, slots=True)
class ProviderChecks:
    """One provider's share of an audit: its name, its targets, the checks of its sites."""

    provider: str
    targets: tuple[str, ...]  # versions, oldest first: the provider's matrix columns
    checks: tuple[SiteCheck, ...]


@dataclass(frozen=True, slots=True)
class Collected:
    """What collect_findings() gives: findings in report order and what goes with them."""

    findings: tuple[Finding, ...]
    matrix: tuple[tuple[bool | None, ...], ...]  # one row per finding; see Report.matrix
    fixed: tuple[Finding, ...]
    unused_suppressions: tuple[tuple[str, int, tuple[str, ...]], ...]
    undecided: tuple[Undecided, ...] = ()


def collect_findings(
    scan: ConsumerScan,
    audits: Sequence[ProviderChecks],
    graph: CallGraph,
    *,
    recorded: Recorded | None = None,
) -> Collected:
    """Every finding of the audit, with status, chains and source context, in report order.

    Args:
        scan: the consumer scan every provider's sites come from.
        audits: one entry per provider, in the order they were asked for (the first one names
            unparsable consumer files).
        graph: the consumer's call graph, for `reached_from`.
        recorded: the findings of a baseline file, counted per fingerprint; as many new ones
            of a fingerprint as it records become `baselined`, and those no longer found are
            `fixed`.
    """
    owned: set[tuple[Finding, str]] = set()
    for audit in audits:
        context = _Context(audit.checks, scan.handlers, scan.gates)
        found = [(f, c.site) for c in audit.checks for f in _site_findings(c, context)]
        owned.update((_with_uses(f, site, context), audit.provider) for f, site in found)
    first = audits[0].provider if audits else ""
    owned.update((_unparsable(u, first), first) for u in scan.unparsable)
    decorated = _not_tests([(_decorate(f, scan, graph), owner) for f, owner in owned], graph)
    unused = unused_suppressions(scan.suppressions, [f for f, _ in decorated])
    decorated.extend((_unused_finding(entry, scan, first), first) for entry in unused)
    decorated.sort(key=_order)
    recorded = recorded or Recorded()
    decorated = _baselined(decorated, Counter(recorded.counts()))
    findings = tuple(f for f, _ in decorated)
    columns = [(a.provider, t) for a in audits for t in a.targets]
    return Collected(
        findings=findings,
        matrix=tuple(matrix_row(f, owner, columns) for f, owner in decorated),
        fixed=fixed_findings(recorded.findings, findings),
        unused_suppressions=unused,
        undecided=undecided_sites(audits, findings),
    )


UNDECIDED = (Lookup.UNKNOWN, Lookup.UNLISTED)


def undecided_sites(
    audits: Sequence[ProviderChecks], findings: Iterable[Finding]
) -> tuple[Undecided, ...]:
    """The sites with no finding that the newest target could not decide, once each (a
    place and what it names), sorted; each with the analysis's reason."""
    reported = {(f.location.path, f.location.line, f.location.column) for f in findings}
    found: dict[tuple[str, int, int, str], Undecided] = {}
    for audit in audits:
        for check in audit.checks:
            site, where = check.site, check.site.location
            if not check.targets or (where.path, where.line, where.column) in reported:
                continue
            if not counted(check):
                continue  # asked only for `probable`, or nothing the provider passes
            if check.unchanged:  # decided by difference: the baseline's very basis
                continue
            why = why_undecided(site, check.targets[-1][1])
            key = (where.path, where.line, where.column, site.target)
            if why is not None and key not in found:
                reason = bounded(why, MAX_TEXT_CHARS)
                found[key] = Undecided(
                    where, site.scope, site.target, audit.provider, reason, cause_of(why)
                )
    return tuple(found[k] for k in sorted(found))


def counted(check: SiteCheck) -> bool:
    """Whether a site is one of the consumer's references into the provider, as the
    undecided share counts them: not a question only the `probable` rule asks
    (scan/loose.py), nor a parameter of an override the provider declares nothing for, or
    of a method it does not have (scan/values.py: such a value is the consumer's, or
    unknown, as it was before the parameter was followed)."""
    target = check.site.target
    if owners_parts(target) is not None:
        return False
    if not through_parameter(target) or not check.targets:
        return True
    resolution = check.targets[-1][1].resolution
    if resolution.status is Lookup.MISSING_NAME and not check.targets[-1][1].problems:
        return False
    return not (resolution.detail or "").startswith(UNDECLARED)


def unchanged_sites(audits: Sequence[ProviderChecks]) -> int:
    """How many sites (a place and what it names) the newest target leaves undecided and the
    difference from the baseline decides (`SiteCheck.unchanged`, difference.py)."""
    return len(
        {
            (c.site.location.path, c.site.location.line, c.site.location.column, c.site.target)
            for audit in audits
            for c in audit.checks
            if c.unchanged
        }
    )


def why_undecided(site: Site, verdict: Verdict) -> str | None:
    """Why the verdict leaves the site undecided; None when it decides it."""
    resolution = verdict.resolution
    if resolution.status in UNDECIDED:
        return resolution.detail or "it cannot be resolved statically"
    symbol = resolution.symbol
    if symbol is None or site.call is None or symbol.signature is not None:
        return None
    if symbol.why_unknown:  # a callable whose signature is hidden, a name served at run time
        return symbol.why_unknown
    if symbol.kind in (SymbolKind.CLASS, SymbolKind.FUNCTION):
        return f"the signature of {symbol.path} is not known"
    return None


def _order(pair: tuple[Finding, str]) -> tuple[object, ...]:
    """Report order, made total: ties on location and kind go by provider, then the rest."""
    f, owner = pair
    rest = (f.status.value, f.broken_in, f.baseline_signature or "", f.target_signature or "")
    ends = (f.location.end_line, f.location.end_column, f.scope, f.suggestion or "")
    return (f.sort_key, owner, *rest, *ends, f.also_at, f.reached_from)


def fixed_findings(recorded: Iterable[Finding], findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """The recorded findings whose fingerprint no finding of this run has, once each, sorted."""
    present = {f.fingerprint for f in findings}
    gone: dict[str, Finding] = {}
    for finding in recorded:
        if finding.fingerprint not in present:
            gone.setdefault(finding.fingerprint, finding)
    return tuple(sorted(gone.values(), key=lambda f: f.sort_key))


def _unused_finding(
    entry: tuple[str, int, tuple[str, ...]], scan: ConsumerScan, provider: str
) -> Finding:
    """An `unused-suppression` finding at the comment (a kind off by default: kept only
    when selected, pipeline._chosen)."""
    path, line, kinds = entry
    lines = scan.lines.get(path, ())
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    match = COMMENT.search(text)
    column, end = (match.start() + 1, match.end() + 1) if match else (1, 1)
    comment = f"ignore[{', '.join(kinds)}]" if kinds else "ignore"
    return Finding(
        kind=Kind.UNUSED_SUPPRESSION,
        location=Location(path, line, column, line, end),
        scope=path.removesuffix(".py").removesuffix("/__init__").replace("/", "."),
        symbol=provider,
        parameter=comment,
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
        suggestion=_bounded_or_none(unknown_note(kinds), MAX_TEXT_CHARS),
        source=_context_lines(lines, Location(path, line, column, line, end)),
    )


# --------------------------------------------------------------------------- the timeline


class _Context:
    """Cross-site facts: failing imports per file, and verdicts of import alternatives."""

    def __init__(
        self,
        checks: Sequence[SiteCheck],
        handlers: Mapping[str, tuple[Handled, ...]],
        gates: Mapping[str, tuple[VersionGate, ...]],
    ) -> None:
        self.handlers = handlers
        self.gates = gates
        self.folded: dict[tuple[str, str], set[int]] = {}  # (path, import target) -> lines
        self.imports: dict[tuple[str, str], SiteCheck] = {}
        self.failing: dict[tuple[str, str], set[tuple[str, bool]]] = {}
        # (path, version) -> {(import target, module_only)} of imports that fail there
        for check in checks:
            if check.site.action is not Action.IMPORT:
                continue
            self.imports[(check.site.location.path, check.site.target)] = check
            for version, verdict in check.targets:
                problems = _import_problems(check, verdict)
                if any(p.kind in IMPORT_FAILURES for p in problems):
                    key = (check.site.location.path, version)
                    entry = (check.site.target, check.site.module_only)
                    self.failing.setdefault(key, set()).add(entry)

    def dead_at(self, site: Site, version: str) -> bool:
        """Whether a site's line does not run with this release: it is under a version test
        of the same provider (`if tornado.version_info >= (5, 0):`) decided against it."""
        line, root = site.location.line, bare(root_of(site.target))
        return any(
            gate.first_line <= line <= gate.last_line
            and root_of(gate.test.module) == root
            and gate.test.runs(version) is False
            for gate in self.gates.get(site.location.path, ())
        )

    def handled_at(self, site: Site) -> list[Handled]:
        """The try/except blocks around a site's line (innermost last, any order)."""
        line = site.location.line
        blocks = self.handlers.get(site.location.path, ())
        return [b for b in blocks if b.first_line <= line <= b.last_line]

    def covered_by_import(self, site: Site, version: str) -> bool:
        """A use of a name whose import in the same file is already reported gone in this
        release: part of that finding (the root cause), not a break of its own.

        `gone()`, or `ctx = gone.top; ctx.x`, after a failing `from m import gone`, and
        `a.old.f()` after a failing `import a.old` are covered; `m.gone()` through a working
        `import m` is a break of its own (it does not use the failing import's name).
        """
        via = site.via
        if via is None:
            return False
        covered = False  # every failing import that binds the name takes the use, in order
        for target, module_only in sorted(self.failing.get((site.location.path, version), ())):
            reaches = site.target == target or site.target.startswith((target + ".", target + "("))
            binds = target == via or via.startswith(target + ".")
            if reaches and (binds or (module_only and target.startswith(via + "."))):
                self.folded.setdefault((site.location.path, target), set()).add(site.location.line)
                covered = True
        return covered

    def alternative_works(self, site: Site, version: str) -> bool:
        for alternative in site.alternatives:
            check = self.imports.get((site.location.path, alternative))
            if check is None:
                return True  # an alternative outside the provider: assume it can import
            verdict = dict(check.targets).get(version)
            if verdict is not None and not _removal(verdict.problems):
                return True
        return False


def _with_uses(finding: Finding, site: Site, context: _Context) -> Finding:
    """A failing import's finding, with the lines of its file that use the name it binds
    (folded into it: the same root cause)."""
    if site.action is not Action.IMPORT or finding.kind not in IMPORT_FAILURES:
        return finding
    lines = context.folded.get((site.location.path, site.target), set())
    lines.discard(site.location.line)
    return replace(finding, also_at=tuple(sorted(lines))) if lines else finding


def _import_problems(check: SiteCheck, verdict: Verdict) -> tuple[Problem, ...]:
    """What an import's verdict says is wrong with it; a name only a sketch leaves out (a
    stub, a namespace package's folder: UNLISTED) is a failure only beside the baseline."""
    if verdict.resolution.status is Lookup.UNLISTED:
        return tuple(compare(check.site, check.baseline, verdict))
    return tuple(verdict.problems)


def _removal(problems: Iterable[Problem]) -> bool:
    return any(p.kind in REMOVALS for p in problems)


def _site_findings(check: SiteCheck, context: _Context) -> list[Finding]:
    broken: dict[Problem, list[str]] = {}
    for version, verdict in check.targets:
        for problem in compare(check.site, check.baseline, verdict):
            if _excused(check.site, problem, version, context):
                continue
            broken.setdefault(_as_known(problem, check.baseline), []).append(version)
    return [_finding(check, problem, tuple(versions)) for problem, versions in broken.items()]


def _as_known(problem: Problem, baseline: Verdict | None) -> Problem:
    """A removed name that was a module of the provider in the baseline is a removed
    module; a name bound to a module from elsewhere (`from pkg import json`, where pkg's
    `json` is the standard library's) stays a removed name."""
    was = baseline.resolution.symbol if baseline is not None else None
    if problem.kind is not Kind.REMOVED_SYMBOL or was is None or was.kind is not SymbolKind.MODULE:
        return problem
    asked = baseline.resolution.path if baseline is not None else ""
    if root_of(was.path) != root_of(asked):
        return problem
    return replace(problem, kind=Kind.REMOVED_MODULE)


def _excused(site: Site, problem: Problem, version: str, context: _Context) -> bool:
    if context.dead_at(site, version):
        return True  # `if tornado.version_info < (5, 0): ...` does not run with 5.0
    if problem.kind is Kind.UNPARSABLE_PROVIDER:  # nothing is raised, nothing is known
        return site.action in FOLDED and context.covered_by_import(site, version)
    raised = _raises(site, problem)
    if raised is None:
        return False  # warnings and infos: nothing is raised, nothing can catch it
    through_import = problem.kind in REMOVALS and site.action in FOLDED
    if through_import and context.covered_by_import(site, version):
        return True
    blocks = context.handled_at(site)
    if blocks:
        if not any(_catches(b.catches, raised) for b in blocks):
            return False  # `except ModuleNotFoundError` does not catch a missing name
        if all(_only_fails(b, raised) for b in blocks if _catches(b.catches, raised)):
            return False  # `except Exception: log(...)`: it still fails, quietly
        if problem.kind in REMOVALS and site.alternatives:
            return context.alternative_works(site, version)
        return True  # the consumer catches this very failure (or this is its fallback)
    if site.guarded and problem.kind in REMOVALS:
        # TYPE_CHECKING, version checks, stubs, import alternatives: the consumer expects
        # the name to be absent somewhere. (Calls there are still bound: they run.)
        return not site.alternatives or context.alternative_works(site, version)
    return False


# What each kind raises at run time, and the classes above it that also catch it.
EXCEPTION_PARENTS = {
    "ModuleNotFoundError": ("ImportError", "Exception", "BaseException"),
    "ImportError": ("Exception", "BaseException"),
    "AttributeError": ("Exception", "BaseException"),
    "TypeError": ("Exception", "BaseException"),
}


def _raises(site: Site, problem: Problem) -> str | None:
    if problem.kind is Kind.REMOVED_MODULE:
        return "ModuleNotFoundError"
    if problem.kind is Kind.REMOVED_SYMBOL:
        return "ImportError" if site.action is Action.IMPORT else "AttributeError"
    if problem.kind in (
        Kind.UNEXPECTED_KEYWORD,
        Kind.MISSING_ARGUMENT,
        Kind.TOO_MANY_POSITIONAL,
        Kind.OVERRIDE_MISMATCH,
    ):
        return "TypeError"
    return None


def _only_fails(block: Handled, raised: str) -> bool:
    """Whether the handler that catches `raised` in a try body (the first that matches, as
    Python picks it) only logs, re-raises or returns an error (scan/guards.only_fails)."""
    for names, fails, _ in block.handlers:
        if _catches(names, raised):
            return fails
    return False


def _catches(catches: frozenset[str], raised: str) -> bool:
    return raised in catches or any(p in catches for p in EXCEPTION_PARENTS[raised])


def _finding(check: SiteCheck, problem: Problem, versions: tuple[str, ...]) -> Finding:
    site = check.site
    last = dict(check.targets)[versions[-1]]
    before = check.baseline
    status = Status.NEW
    unread = problem.kind is Kind.UNPARSABLE_PROVIDER  # nothing known failed: never "as before"
    if before is not None and not unread and _same_problem(problem, compare(site, None, before)):
        status = Status.PREEXISTING
    return Finding(
        kind=problem.kind,
        location=_where(site, problem),
        scope=site.scope,
        symbol=bounded(_symbol(site, last, before), MAX_TEXT_CHARS),
        parameter=_bounded_or_none(problem.parameter, MAX_TEXT_CHARS),
        broken_in=versions,
        baseline_signature=_bounded_or_none(
            before.signature if before is not None else None, MAX_SIGNATURE_CHARS
        ),
        target_signature=_bounded_or_none(last.signature, MAX_SIGNATURE_CHARS),
        suggestion=_bounded_or_none(problem.suggestion, MAX_TEXT_CHARS),
        status=status,
        first_audited=check.targets[0][0] if check.targets else None,
        releases_audited=len(check.targets),
        level=problem.level,
        hint=problem.hint if status is Status.NEW else None,  # never "repair" what already failed
    )


def _where(site: Site, problem: Problem) -> Location:
    """Where a finding goes: the site, or, for a keyword the call passes only through a
    `**d` spread, where the consumer wrote that key into d (`d["size"] = 1`): the line to
    change (scan/spreads.py)."""
    written = site.call.written if site.call is not None else ()
    if problem.kind is Kind.UNEXPECTED_KEYWORD and problem.parameter is not None:
        for key, location in written:
            if key == problem.parameter:
                return location
    return site.location


def _same_problem(problem: Problem, others: Iterable[Problem]) -> bool:
    """Whether the baseline already has this problem (suggestions aside)."""
    return any((p.kind, p.parameter) == (problem.kind, problem.parameter) for p in others)


def _symbol(site: Site, target: Verdict, baseline: Verdict | None) -> str:
    """The provider's canonical path: where it is now, else (a name gone) the first link of
    the path as the consumer spells it that is gone, else where it was, else as named."""
    if target.symbol:
        return target.symbol
    if target.resolution.status is Lookup.UNREADABLE:  # `missing` is the module not parsed
        return baseline.symbol if baseline is not None and baseline.symbol else site.target
    if target.resolution.missing:
        return target.resolution.missing
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
        parameter=bounded(entry.reason, MAX_TEXT_CHARS),
        broken_in=(),
        baseline_signature=None,
        target_signature=None,
    )


def _baselined(
    decorated: list[tuple[Finding, str]], recorded: Counter[str]
) -> list[tuple[Finding, str]]:
    """The new findings the baseline file accepts, `baselined`: per fingerprint as many as
    it records, in report order; a further one of the same fingerprint (a second break of
    the same shape in the same function) stays new."""
    left = Counter(recorded)
    out = []
    for finding, owner in decorated:
        if finding.status is Status.NEW and left[finding.fingerprint] > 0:
            left[finding.fingerprint] -= 1
            finding = replace(finding, status=Status.BASELINED)
        out.append((finding, owner))
    return out


def _not_tests(decorated: list[tuple[Finding, str]], graph: CallGraph) -> list[tuple[Finding, str]]:
    """Findings in a file named like a test file that the consumer's library code imports
    are library findings (`production`): what production code runs is gated as such, and
    the graph is asked only when a finding is in such a file."""
    named = {f.location.path for f, _ in decorated if is_test_path(f.location.path)}
    if not named:
        return decorated
    imported = graph.imported_outside_tests(is_test_path) & named
    return [
        (replace(f, production=True) if f.location.path in imported else f, owner)
        for f, owner in decorated
    ]


def _decorate(finding: Finding, scan: ConsumerScan, graph: CallGraph) -> Finding:
    status = finding.status
    if suppressed(finding, scan.suppressions):
        status = Status.SUPPRESSED
    return replace(
        finding,
        status=status,
        reached_from=graph.reached_from(finding.scope),
        source=_context_lines(scan.lines.get(finding.location.path, ()), finding.location),
    )


def _context_lines(lines: Sequence[str], where: Location) -> tuple[tuple[int, str], ...]:
    """The site's lines (a call may span several: its keywords are what changed) and a few
    around them; very long sites are cut after MAX_SITE_LINES."""
    end = min(where.end_line, where.line + MAX_SITE_LINES)
    first = max(1, where.line - CONTEXT_LINES)
    last = min(len(lines), max(where.line, end) + CONTEXT_LINES)
    return tuple((n, bounded(lines[n - 1], MAX_LINE_CHARS)) for n in range(first, last + 1))
