"""audit(): runs the stages in order and returns a Report.

sources -> provider API -> consumer scan -> call graph -> binding -> findings. This module
only wires the stages together; each does one job and hands plain data to the next. The CLI
calls this function and picks a reporter; it is the library's main entry point too.

Several providers (`--against vllm==0.17 --against transformers==4.50`): the consumer is
scanned once for all of them; each provider is checked against its own baseline (given by a
`--baseline` naming it, else inferred) and its own releases; the findings are merged.

A drift timeline (a spec matching many releases) stays cheap: a release whose every provider
file the audit read (and every folder it probed) has the same content as in a release already
checked gets that release's verdicts without parsing anything; and a site is bound once per
distinct set of answers from the provider (`_VerdictMemo`). Which releases and baselines are
checked is releases.py's; what a release's check read of its tree, probes.py's.

A repeated audit stays cheap too: the consumer scan is kept in the cache under a key of
every file's text (scan/store.py: read back, nothing parsed), provider lookups come from the
memo (indexed by dependency digests), and Python's cyclic collector is paused for the run
(collector.py). Each has a DRIFT_AUDIT_NO_* switch; tests/functional/
test_optimisations.py checks that the findings are the same with and without each.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.bind import check_site
from auditor.collector import collect_in_pause, collector_paused
from auditor.config import (
    consumer_project_root,
    entry_points_from_pyproject,
    entry_points_from_txt,
)
from auditor.difference import Basis, basis, same_by_definition, unchanged
from auditor.errors import BadSpecError
from auditor.findings import (
    ProviderChecks,
    SiteCheck,
    collect_findings,
    counted,
    unchanged_sites,
    why_undecided,
)
from auditor.graph import build_graph
from auditor.kinds import Kind
from auditor.model import (
    Action,
    ConsumerInfo,
    Excluded,
    LeftOut,
    Provenance,
    ProviderInfo,
    Recorded,
    Report,
    Stats,
)
from auditor.probes import Answers, CheckedRelease, ProbedTree
from auditor.progress import Progress
from auditor.provider import Absent, MemoizedProvider, ResolutionMemo
from auditor.provider.paths import module_files, owners_parts
from auditor.releases import (
    absent_names,
    baseline_specs,
    select_baselines,
    select_targets,
    version_of,
    why_inferred,
)
from auditor.scan import ScanStore, scan_cached
from auditor.scan.source import excluded_paths
from auditor.sources import open_index, resolve_consumer
from auditor.suppressions import unused_warnings

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    from auditor.bind import Verdict
    from auditor.kinds import Severity
    from auditor.model import ConsumerScan, Finding, Resolution, Site, Ungated
    from auditor.sources import Index, Release, SourceTree

logger = logging.getLogger("drift_audit")
# With the collector paused (collector.py), a collection between two provider releases once
# this many modules were parsed since the last: a transformers 5.0 release is ~1,700 modules
# (~5,500 objects each; their collection took 4.8 s, ~2.8 ms a module, and gave back 2.2 GB);
# a torch check parses 174, a cold 36-release vLLM timeline ~900 in all, and those runs (a
# peak under 800 MiB) keep the collector's time.
COLLECT_AFTER_MODULES = 1000


def audit(
    consumer: str = ".",
    against: Sequence[str] = (),
    *,
    baseline: str | Sequence[str] | None = None,
    index_url: str | None = None,
    cache_dir: str | Path | None = None,
    offline: bool = False,
    exclude: Sequence[str] = (),
    pre: bool = False,
    baseline_file: str | Path | None = None,
    baseline_file_root: Path | None = None,
    project_root: Path | None = None,
    select: Sequence[Kind] | None = None,
    ignore: Sequence[Kind] = (),
    severity: Mapping[Kind, Severity] | None = None,
    progress: Progress | None = None,
    fixes: bool = False,
    provenance: Callable[[Provenance], None] | None = None,
    left_out: Sequence[LeftOut] | None = None,
    excluded_by: tuple[str, str | None] = ("api", None),
    ungated: Sequence[Ungated] = (),
) -> Report:
    """Audit CONSUMER against each provider release matched by `against`.

    Args:
        consumer: a folder, an installed distribution or import name, or `name==version`.
        against: PEP 508 specs for the providers (`vllm==0.17.0`, `acme @ file:///path`);
            specs naming different distributions audit each of them in the same run.
        baseline: the provider release(s) the consumer is known to work with, one per
            provider at most (a bare version when there is one provider); the others are
            inferred.
        index_url: the simple-API index; default from pip's configuration.
        cache_dir: where fetched sources are kept; default in the user cache folder.
        offline: never touch the network; fail when the cache is cold.
        exclude: glob patterns of consumer paths left out of the scan; the report names the
            files they leave out (`excluded`), as set by `excluded_by`: (source, file) as
            model.Excluded has them (the CLI: the project's config or the command line).
        pre: let a range spec match pre-releases.
        baseline_file: a previous JSON report; its findings become `baselined`, and those
            no longer found are reported as `fixed`.
        baseline_file_root: the baseline file's path came from an untrusted file (the
            consumer's pyproject.toml): it must stay inside this folder.
        project_root: the folder report paths are relative to (a folder consumer's
            project: where its pyproject.toml is); default: found from CONSUMER. Findings
            keep the import-root-relative path in `module_path`.
        select: the kinds reported (default: all); `ignore`: kinds left out.
        left_out: what the report says `select` and `ignore` left out, and where each was
            set (the CLI: the project's config or the command line); default: derived from
            them, as set by the caller.
        ungated: the settings that keep some new findings out of the exit status the caller
            gives (`gate-tests = false`), for the report to name them and mark those findings.
        severity: per-kind severity overrides (`[tool.drift-audit.severity]`).
        progress: updated as the run goes, for a display.
        fixes: attach a Fix to each finding whose repair is mechanical (fixes.py; imports
            libcst, so only when asked: --diff, --fix, and reports that carry fixes).
        provenance: called once the report is made, with what it rests on (the cache
            records and pages read, until when they hold, whether the run can be replayed).

    Raises:
        AuditError: the audit could not run (bad spec, unknown package or version, ...).
    """
    started = time.perf_counter()
    if not against:
        raise BadSpecError(
            "nothing to audit against", hint="pass --against SPEC, e.g. vllm==0.17.0"
        )
    progress = progress or Progress()
    index = open_index(index_url, cache_dir, offline)
    progress.read_bytes_from(lambda: index.bytes_fetched)
    try:
        recorded = _recorded_findings(baseline_file, baseline_file_root)
        root = project_root if project_root is not None else consumer_project_root(consumer)
        run = _Run(exclude, pre, recorded, root, progress, started, fixes, excluded_by)
        with collector_paused():
            report, fixed_inputs, folder = _audit(index, consumer, against, baseline, run)
    finally:
        index.close()  # background fetches and kept-alive connections end with the audit
    if provenance is not None:
        cache = index.cache
        provenance(
            Provenance(
                consulted=tuple(sorted(cache.consulted.items())),
                fresh_until=cache.fresh_until,
                unreplayable=cache.unreplayable or fixed_inputs,
                folder=folder,
                entries=tuple(
                    (rel, tuple(sorted(used.items())))
                    for rel, used in sorted(cache.entries_read.items())
                ),
            )
        )
    chosen = _chosen(report, select, ignore, severity or {})
    said = tuple(left_out) if left_out is not None else _left_out(select, ignore)
    return replace(chosen, left_out=said, ungated=tuple(ungated))


def _left_out(select: Sequence[Kind] | None, ignore: Sequence[Kind]) -> tuple[LeftOut, ...]:
    """What `select` and `ignore` leave out, as audit()'s caller set them."""
    out = []
    if select is not None and set(select) != set(Kind):
        out.append(LeftOut("select", "api", None, tuple(k for k in Kind if k not in select)))
    if ignore:
        out.append(LeftOut("ignore", "api", None, tuple(k for k in Kind if k in ignore)))
    return tuple(out)


@dataclass(frozen=True)
class _Run:
    """How this run was asked for, beyond what to audit against."""

    exclude: Sequence[str]
    pre: bool
    recorded: Recorded
    project_root: Path | None
    progress: Progress
    started: float
    fixes: bool = False
    excluded_by: tuple[str, str | None] = ("api", None)


@contextlib.contextmanager
def _stage(progress: Progress, name: str) -> Iterator[None]:
    """One stage: shown by a progress display, timed at debug level (--debug)."""
    progress.stage(name)
    began = time.perf_counter()
    try:
        yield
    finally:
        logger.debug("stage %s: %.1f ms", name, (time.perf_counter() - began) * 1000)


def _audit(
    index: Index,
    consumer: str,
    against: Sequence[str],
    baseline: str | Sequence[str] | None,
    run: _Run,
) -> tuple[Report, str, str | None]:
    """The stages, in order, against an open index; with the report, why its inputs may
    change under the same names ("" when every release is an archive from the index, known
    by its sha256, but a folder consumer), and the folder consumer's path."""
    progress = run.progress
    with _stage(progress, "resolving the consumer and the provider releases"):
        consumer_release = resolve_consumer(consumer, index)
        targets = select_targets(index, against, run.pre, consumer_release)
        baselines = select_baselines(
            index, consumer_release, list(targets), baseline_specs(baseline), run.pre
        )
    prefix = _path_prefix(consumer_release, run.project_root)
    checked = [*baselines.values(), *(r for rs in targets.values() for r in rs)]
    import_names = tuple(sorted({n for r in checked if r is not None for n in r.import_names}))
    with _stage(progress, "scanning the consumer"):
        memo_root = _memo_root(index)
        scan, complete = scan_cached(
            consumer_release.tree,
            consumer_release.import_names,
            import_names,
            exclude=_module_patterns(run.exclude, prefix),
            store=ScanStore(memo_root) if memo_root is not None else None,
            identity=_release_identity(consumer_release),
        )
    chains = memo_root / "chains" if memo_root is not None else None
    with _stage(progress, "building the call graph"):
        graph = build_graph(
            scan, consumer_entry_points(consumer_release), chains, memo_root, complete
        )
    work = _Work(memo_root=memo_root, progress=progress)
    work.total = sum(len(rs) + (baselines[name] is not None) for name, rs in targets.items())
    progress.releases(0, work.total)
    _prefetch_all(checked, scan)
    around = (targets, consumer_release)
    with _stage(progress, "checking"):
        audits = [
            _check_provider(name, releases, baselines[name], scan.sites, work, around)
            for name, releases in targets.items()
        ]
    work.save_memos()
    logger.info(
        "%d release(s) parsed, %d reused whole; %d binding(s) reused; lookups memoized %d/%d",
        len(work.checked), work.reused_releases, work.verdicts.reused,
        work.memo_hits(), work.memo_hits() + work.memo_misses(),
    )  # fmt: skip
    with _stage(progress, "collecting the findings"):
        collected = collect_findings(scan, audits, graph, recorded=run.recorded)
        graph.save()
    unused = tuple(
        (prefix + path, line, kinds) for path, line, kinds in collected.unused_suppressions
    )
    _warn_unused(unused)
    stats = Stats(
        files_scanned=len(scan.files),
        call_sites=_call_sites(scan),
        provider_modules_loaded=work.modules_loaded,
        provider_modules_cached=work.modules_cached(),
        provider_modules_earlier=work.modules_cached_earlier(),
        undecided=len(collected.undecided),
        unchanged=unchanged_sites(audits),
        sites=sum(1 for a in audits for c in a.checks if counted(c)),
        bytes_fetched=index.bytes_fetched,
        requests=getattr(index, "requests_made", 0),
        seconds=round(time.perf_counter() - run.started, 3),
    )
    providers = tuple(
        ProviderInfo(
            name,
            version_of(baselines[name]),
            tuple(str(r.version) for r in releases),
            why_inferred(baselines[name]),
            len(checked.checks),
        )
        for (name, releases), checked in zip(targets.items(), audits, strict=True)
    )
    findings = tuple(_in_project(f, prefix) for f in collected.findings)
    if run.fixes and any(f.hint is not None for f in findings):
        with _stage(progress, "proposing fixes"):
            findings = _with_fixes(findings, consumer_release.tree, memo_root)
    folder = consumer_release.origin.startswith(("folder ", "installed (editable)"))
    releases = [consumer_release, *(r for rs in targets.values() for r in rs)]
    releases += [r for r in baselines.values() if r is not None]
    # a folder consumer's files are checked by the replay itself (replay.folder_state)
    known = [r for r in releases if not (r is consumer_release and folder_path(r) is not None)]
    mutable = next((r for r in known if _release_identity(r) is None), None)
    why = "" if mutable is None else f"{mutable.name} is read from {mutable.origin}"
    return (
        Report(
            consumer=ConsumerInfo(
                consumer_release.name,
                consumer_release.version,
                consumer_release.origin,
                consumer_release.extra.get("root") if folder else None,
                consumer_release.extra.get("confine") if folder else None,
            ),
            provider=providers[0],
            findings=findings,
            stats=stats,
            providers=providers,
            matrix=collected.matrix,
            fixed=collected.fixed,
            unused_suppressions=unused,
            undecided=tuple(
                replace(u, location=replace(u.location, path=prefix + u.location.path))
                for u in collected.undecided
            ),
            excluded=_excluded(consumer_release, run, prefix),
        ),
        why,
        folder_path(consumer_release),
    )


# --------------------------------------------------------------------------- paths and kinds


def folder_path(release: Release) -> str | None:
    """The folder a consumer read in place comes from (`folder /abs`); None otherwise."""
    origin = release.origin
    return origin.removeprefix("folder ") if origin.startswith("folder ") else None


def _release_identity(release: Release) -> str | None:
    """What names a consumer tree that cannot change: a release from the index, by its
    archive's sha256 (its members are checked against it, or against the RECORD it
    holds); None for a folder or an installed distribution."""
    sha256 = release.extra.get("sha256")
    if release.origin != "index" or not sha256:
        return None
    where = release.extra.get("index", "")
    return f"{where} {release.name} {release.version} {release.extra.get('filename', '')} {sha256}"


def _path_prefix(release: Release, project_root: Path | None) -> str:
    """`src/` when the consumer's import root is `src/` under the project root; "" when they
    are the same folder or unrelated."""
    root = release.extra.get("root")
    if root is None or project_root is None:
        return ""
    try:
        rel = Path(root).resolve().relative_to(project_root.resolve())
    except ValueError:
        return ""
    return "" if rel == Path() else f"{rel.as_posix()}/"


def _excluded(release: Release, run: _Run, prefix: str) -> tuple[Excluded, ...]:
    """What `exclude` kept out of the scan, and where it was set, for the report to name."""
    if not run.exclude:
        return ()
    walked = list(release.tree.walk())
    unlisted = [folder for folder, _ in getattr(release.tree, "unreadable", ())]
    paths = excluded_paths(walked, unlisted, _module_patterns(run.exclude, prefix))
    if not paths:
        return ()
    source, file = run.excluded_by
    return (Excluded(source, file, tuple(run.exclude), tuple(prefix + p for p in paths)),)


def _module_patterns(patterns: Sequence[str], prefix: str) -> tuple[str, ...]:
    """Exclude globs for the scan, which sees import-root-relative paths: a pattern relative
    to the project root (`src/acme/legacy/**`) loses the prefix; each also matches as
    written (`**/tests/**`, and configurations written before paths were project-relative)."""
    out = list(patterns)
    for raw in patterns:
        pattern = raw.strip().removeprefix("./")
        if prefix and pattern.startswith(prefix):
            out.append(pattern[len(prefix) :])
    return tuple(dict.fromkeys(out))


def _with_fixes(
    findings: tuple[Finding, ...], tree: SourceTree, memo_root: Path | None
) -> tuple[Finding, ...]:
    """Each finding with its Fix: kept proposals read back (fixkeep.py), the others made by
    fixtext.py from the text, or for what is not a plain case fixes.py, which imports
    libcst."""
    from auditor.fixkeep import with_fixes

    def read(module_path: str) -> str | None:
        try:
            return tree.read_text(module_path)
        except (OSError, UnicodeDecodeError):
            return None

    def propose(
        asked: Sequence[Finding], reader: Callable[[str], str | None]
    ) -> tuple[Finding, ...]:
        from auditor import fixtext

        return fixtext.propose(asked, reader, slow)

    def slow(asked: Sequence[Finding], reader: Callable[[str], str | None]) -> tuple[Finding, ...]:
        from auditor import fixes  # libcst: only for what is not a plain case

        return fixes.propose(asked, reader)

    return with_fixes(findings, read, memo_root, propose)


def _in_project(finding: Finding, prefix: str) -> Finding:
    """The finding with its path relative to the project root, the import-root-relative one
    kept in `module_path` (and so in its fingerprint)."""
    path = finding.location.path
    return replace(
        finding, location=replace(finding.location, path=prefix + path), module_path=path
    )


def _chosen(
    report: Report,
    select: Sequence[Kind] | None,
    ignore: Sequence[Kind],
    severity: Mapping[Kind, Severity],
) -> Report:
    """Only the selected kinds (the matrix rows with them), at their configured severity."""
    chosen = select if select is not None else [k for k in Kind if k.default]
    wanted = frozenset(chosen) - frozenset(ignore)
    if len(wanted) == len(Kind) and not severity:
        return report
    leveled = tuple(replace(f, level=severity.get(f.kind, f.level)) for f in report.findings)
    keep = [i for i, f in enumerate(leveled) if f.kind in wanted]
    return replace(report, findings=leveled).narrowed(keep)


# --------------------------------------------------------------------------- checking


def _check_provider(
    name: str,
    releases: list[Release],
    before: Release | None,
    sites: Sequence[Site],
    work: _Work,
    around: tuple[Mapping[str, list[Release]], Release],
) -> ProviderChecks:
    """One provider's sites against its baseline and each of its releases: a top-level
    name one of them ships is the provider's in all (removed where it is not shipped, unless
    the consumer or the release requires a distribution like it), but one only its
    baseline shipped that another provider's targets (`around`: every provider's, and the
    consumer) ship has moved there."""
    targets, consumer = around
    every = [*releases, *([before] if before else [])]
    others = {n: p for p, rs in targets.items() if p != name for r in rs for n in r.import_names}
    shipped = {n for r in releases for n in r.import_names}
    names = frozenset(n for r in every for n in r.import_names if n in shipped or n not in others)
    owned = [s for s in sites if s.target.split(".", 1)[0] in names]

    def check(release: Release) -> _Checked:
        return _verdicts(release, owned, work, absent_names(release, every, others, consumer))

    base = check(before) if before is not None else None
    per_release = [(str(r.version), check(r)) for r in releases]
    newest = per_release[-1][1] if per_release else None
    same = _unchanged(base, newest, before, releases[-1] if releases else None)
    checks = tuple(
        SiteCheck(
            site,
            base.verdicts[i] if base is not None else None,
            tuple((version, done.verdicts[i]) for version, done in per_release),
            same(i),
        )
        for i, site in enumerate(owned)
    )
    return ProviderChecks(name, tuple(version for version, _ in per_release), checks)


def _prefetch_all(releases: Iterable[Release | None], scan: ConsumerScan) -> None:
    """Start fetching every release's modules at once: lazy trees download concurrently."""
    targets = {s.target for s in scan.sites}  # a big consumer: ~80,000 sites, ~5% distinct
    paths: dict[tuple[str, ...], list[str]] = {}  # the same for each release of a provider
    for release in releases:
        prefetch = getattr(release.tree, "prefetch", None) if release is not None else None
        if release is not None and prefetch is not None:
            names = release.import_names
            if names not in paths:
                owned = [t for t in targets if t.split(".")[0] in names]
                paths[names] = sorted({path for target in owned for path in module_files(target)})
            prefetch(paths[names])


def _unchanged(
    base: _Checked | None, newest: _Checked | None, before: Release | None, last: Release | None
) -> Callable[[int], bool]:
    """Whether site i, undecided at the newest target, rests on what the baseline's verdict
    rests on: the same files, or files that differ only outside what it consulted."""
    if base is None or newest is None or before is None or last is None:
        return lambda i: False
    own = frozenset(before.import_names) | frozenset(last.import_names)

    def same(i: int) -> bool:
        old, new = base.bases[i], newest.bases[i]
        if old is None or new is None:
            return False
        readers = (before.tree.read_text, last.tree.read_text)
        return unchanged(old, new) or same_by_definition(old, new, readers, own)

    return same


@dataclass(frozen=True)
class _Checked:
    """One release's verdicts on the sites, and what each undecided one rests on (None for
    a decided site, or one its files do not settle: difference.py)."""

    verdicts: tuple[Verdict, ...]
    bases: tuple[Basis | None, ...]


def _verdicts(
    release: Release, sites: Sequence[Site], work: _Work, absent: Mapping[str, Absent]
) -> _Checked:
    """Each site's verdict against one release; reused when the release reads the same."""
    work.progress.stage(f"checking {release.name} {release.version}")
    work.collect_if_due()
    loaded = work.modules_loaded
    try:
        return _release_verdicts(release, sites, work, absent)
    finally:
        work.checked_one(release)
        work.uncollected += work.modules_loaded - loaded


def _release_verdicts(
    release: Release, sites: Sequence[Site], work: _Work, absent: Mapping[str, Absent]
) -> _Checked:
    alike = [e for e in work.checked if e.sites == tuple(sites) and e.absent == dict(absent)]
    answers = Answers(
        release.tree, [e.probes for e in alike if e.import_names == release.import_names]
    )
    for earlier in alike:
        if earlier.same_as(release, answers):
            logger.info(
                "%s %s: the provider files the audit reads are those of %s; verdicts reused",
                release.name, release.version, earlier.version,
            )  # fmt: skip
            work.reused_releases += 1
            return _Checked(earlier.verdicts, earlier.bases)
    tree = ProbedTree(release.tree)
    memo = work.memo(release.name)
    api = MemoizedProvider(tree, release.import_names, release.version, memo, absent)
    verdicts, bases = [], []
    for site in sites:
        verdict, queries = work.verdicts.check(site, api)
        verdicts.append(verdict)
        undecided = why_undecided(site, verdict) is not None
        bases.append(basis(queries, api.deps_of) if undecided else None)
    work.modules_loaded += api.modules_loaded
    checked = CheckedRelease(
        str(release.version), release.import_names, tuple(sites), tree.probes(), tuple(verdicts)
    )
    work.checked.append(replace(checked, absent=dict(absent), bases=tuple(bases)))
    return _Checked(tuple(verdicts), tuple(bases))


class _VerdictMemo:
    """check_site() once per site and distinct answers from the provider, across releases.

    check_site() is pure given what its resolver answers: when a release answers every
    lookup a site made against an earlier release the same way, the verdict is the same.
    """

    def __init__(self) -> None:
        self._seen: dict[Site, list[tuple[_Asked, Verdict]]] = {}
        self.reused = 0

    def check(self, site: Site, api: MemoizedProvider) -> tuple[Verdict, tuple[_Query, ...]]:
        """The site's verdict against this release, and the lookups it rests on."""
        entries = self._seen.setdefault(site, [])
        for (queries, moves), verdict in entries:
            same = all(  # `is` first: the memo hands the same answer object to each release
                (got := api.resolve(d, module_only=m, from_import=f)) is r or got == r
                for (d, m, f, r) in queries
            )
            if same and all(api.moved(d) == answer for d, answer in moves):
                self.reused += 1
                return verdict, queries
        recorder = _RecordingResolver(api)
        verdict = check_site(site, recorder)
        asked = tuple(recorder.queries)
        entries.append(((asked, tuple(recorder.moves)), verdict))
        return verdict, asked


_Query = tuple[str, bool, bool, "Resolution"]  # dotted, module_only, from_import, answer
_Asked = tuple[tuple[_Query, ...], tuple[tuple[str, str | None], ...]]  # lookups, moved()


class _RecordingResolver:
    """A Resolver that remembers what it was asked and what it answered, in order."""

    def __init__(self, api: MemoizedProvider) -> None:
        self.api = api
        self.queries: list[_Query] = []
        self.moves: list[tuple[str, str | None]] = []

    def moved(self, dotted: str) -> str | None:
        """Where a definition of that name lives now (for suggestions and move-import fixes)."""
        found = self.api.moved(dotted)
        self.moves.append((dotted, found))
        return found

    def resolve(
        self, dotted: str, *, module_only: bool = False, from_import: bool = False
    ) -> Resolution:
        resolution = self.api.resolve(dotted, module_only=module_only, from_import=from_import)
        self.queries.append((dotted, module_only, from_import, resolution))
        return resolution


@dataclass
class _Work:
    """Work shared by every release of a run: provider modules parsed, memos, counters."""

    modules_loaded: int = 0
    reused_releases: int = 0
    verdicts: _VerdictMemo = field(default_factory=_VerdictMemo)
    checked: list[CheckedRelease] = field(default_factory=list)
    memo_root: Path | None = None
    memos: dict[str, ResolutionMemo] = field(default_factory=dict)
    progress: Progress = field(default_factory=Progress)
    done: int = 0  # releases checked, for the progress display
    total: int = 0
    uncollected: int = 0  # provider modules parsed since the last collection

    def checked_one(self, release: Release) -> None:
        self.done += 1
        self.progress.releases(self.done, self.total)

    def collect_if_due(self) -> None:
        """Before a release is checked: with the collector paused, the griffe modules of
        the releases checked before are garbage in cycles (nothing of them outlives their
        verdicts), kept until the exit. When those releases parsed COLLECT_AFTER_MODULES
        modules or more, one collection frees them first, so that two big releases are not
        in memory at once; never after the last release (the exit drops its garbage)."""
        if self.uncollected < COLLECT_AFTER_MODULES:
            return
        started = time.perf_counter()
        freed = collect_in_pause()
        logger.debug(
            "the %d provider modules parsed before collected: %d objects freed in %.0f ms",
            self.uncollected, freed, (time.perf_counter() - started) * 1000,
        )  # fmt: skip
        self.uncollected = 0

    def modules_cached(self) -> int:
        """Provider modules the memo answered for, so nothing had to parse them."""
        return sum(m.modules_answered for m in self.memos.values())

    def modules_cached_earlier(self) -> int:
        """Of those, the modules answered by what earlier runs memoized."""
        return sum(m.modules_answered_earlier for m in self.memos.values())

    def memo(self, provider: str) -> ResolutionMemo:
        if provider not in self.memos:
            self.memos[provider] = ResolutionMemo.for_cache(self.memo_root, provider)
        return self.memos[provider]

    def save_memos(self) -> None:
        for memo in self.memos.values():
            memo.save()

    def memo_hits(self) -> int:
        return sum(m.hits for m in self.memos.values())

    def memo_misses(self) -> int:
        return sum(m.misses for m in self.memos.values())


def _memo_root(index: Index) -> Path | None:
    """Where lookups are memoized: the cache, unless DRIFT_AUDIT_NO_MEMO is set."""
    if os.environ.get("DRIFT_AUDIT_NO_MEMO"):
        return None
    root = getattr(getattr(index, "cache", None), "root", None)
    return Path(root) if root is not None else None


# --------------------------------------------------------------------------- consumer side


def consumer_entry_points(consumer: Release) -> tuple[str, ...]:
    """Object references of the consumer's declared entry points, as far as its tree shows.

    pyproject.toml next to the packages (a flat layout) and a wheel's
    `<name>-<version>.dist-info/entry_points.txt`, when the tree holds them.
    """
    refs: set[str] = set()
    pyproject = _safe_read(consumer.tree, "pyproject.toml")
    if pyproject is not None:
        refs.update(entry_points_from_pyproject(pyproject))
    for stem in _dist_info_stems(consumer):
        text = _safe_read(consumer.tree, f"{stem}.dist-info/entry_points.txt")
        if text is not None:
            refs.update(entry_points_from_txt(text))
    return tuple(sorted(refs))


def _dist_info_stems(consumer: Release) -> list[str]:
    if consumer.version is None:
        return []
    names = {consumer.name.replace("-", "_"), consumer.name.replace("-", "_").lower()}
    return sorted(f"{n}-{consumer.version}" for n in names)


def _safe_read(tree: SourceTree, path: str) -> str | None:
    try:
        return tree.read_text(path)
    except (OSError, UnicodeDecodeError):
        return None


def _recorded_findings(path: str | Path | None, root: Path | None) -> Recorded:
    if path is None:
        return Recorded()
    from auditor.reporters import baseline_file

    return baseline_file.load(path, root=root)


def _warn_unused(unused: Iterable[tuple[str, int, tuple[str, ...]]]) -> None:
    for line in unused_warnings(unused):  # a kind that is no kind is named unknown
        logger.warning("%s", line)


def _call_sites(scan: ConsumerScan) -> int:
    """The consumer's calls into the provider (not the `probable` rule's questions)."""
    calls = (Action.CALL, Action.SUPER_CALL)
    return sum(1 for s in scan.sites if s.action in calls and owners_parts(s.target) is None)
