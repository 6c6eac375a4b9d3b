"""audit(): runs the stages in order and returns a Report.

sources -> provider API -> consumer scan -> call graph -> binding -> findings. This module
only wires the stages together; each does one job and hands plain data to the next. The CLI
calls this function and picks a reporter; it is the library's main entry point too.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING

from auditor.bind import check_site
from auditor.errors import AuditError, BadSpecError
from auditor.findings import SiteCheck, collect_findings
from auditor.graph import build_graph
from auditor.model import Action, ConsumerInfo, ProviderInfo, Report, Stats
from auditor.provider import ProviderAPI
from auditor.scan import scan_consumer
from auditor.sources import infer_baseline, open_index, resolve_consumer

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from auditor.model import ConsumerScan
    from auditor.sources import Index, Release

logger = logging.getLogger("drift_audit")


def audit(
    consumer: str = ".",
    against: Sequence[str] = (),
    *,
    baseline: str | None = None,
    index_url: str | None = None,
    cache_dir: str | Path | None = None,
    offline: bool = False,
    exclude: Sequence[str] = (),
    pre: bool = False,
    baseline_file: str | Path | None = None,
) -> Report:
    """Audit CONSUMER against each provider release matched by `against`.

    Args:
        consumer: a folder, an installed distribution or import name, or `name==version`.
        against: PEP 508 specs for the provider (`vllm==0.17.0`, `acme @ file:///path`).
        baseline: the provider release the consumer is known to work with; inferred when None.
        index_url: the simple-API index; default from pip's configuration.
        cache_dir: where fetched sources are kept; default in the user cache folder.
        offline: never touch the network; fail when the cache is cold.
        exclude: glob patterns of consumer paths left out of the scan.
        pre: let a range spec match pre-releases.
        baseline_file: a previous JSON report; its findings become `baselined`.

    Raises:
        AuditError: the audit could not run (bad spec, unknown package or version, ...).
    """
    started = time.perf_counter()
    if not against:
        raise BadSpecError(
            "nothing to audit against", hint="pass --against SPEC, e.g. vllm==0.17.0"
        )
    index = open_index(index_url, cache_dir, offline)
    consumer_release = resolve_consumer(consumer, index)
    targets = _targets(index, against, pre)
    provider = targets[0].name
    before = _baseline(index, consumer_release, provider, baseline, pre)
    import_names = tuple(sorted({n for r in targets for n in r.import_names}))
    scan = scan_consumer(
        consumer_release.tree, consumer_release.import_names, import_names, exclude=exclude
    )
    graph = build_graph(scan)
    apis = [(str(r.version), ProviderAPI(r.tree, r.import_names, r.version)) for r in targets]
    base_api = ProviderAPI(before.tree, before.import_names, before.version) if before else None
    for _, api in [*apis, ("", base_api)]:
        if api is not None:
            api.prefetch(site.target for site in scan.sites)
    checks = [
        SiteCheck(
            site,
            check_site(site, base_api) if base_api is not None else None,
            tuple((version, check_site(site, api)) for version, api in apis),
        )
        for site in scan.sites
    ]
    baselined = _baselined_fingerprints(baseline_file)
    findings = collect_findings(scan, checks, graph, provider=provider, baselined=baselined)
    loaded = sum(api.modules_loaded for _, api in apis) + (
        base_api.modules_loaded if base_api else 0
    )
    stats = Stats(
        files_scanned=len(scan.files),
        call_sites=_call_sites(scan),
        provider_modules_loaded=loaded,
        bytes_fetched=index.bytes_fetched,
        seconds=round(time.perf_counter() - started, 3),
    )
    return Report(
        consumer=ConsumerInfo(
            consumer_release.name, consumer_release.version, consumer_release.origin
        ),
        provider=ProviderInfo(
            provider, before.version if before else None, tuple(v for v, _ in apis)
        ),
        findings=findings,
        stats=stats,
    )


def _targets(index: Index, against: Sequence[str], pre: bool) -> list[Release]:
    """Every release the specs match, one per version, oldest first."""
    releases: dict[str, Release] = {}
    for spec in against:
        for release in index.releases(spec, pre=pre):
            releases.setdefault(str(release.version), release)
    names = sorted({r.name for r in releases.values()})
    if len(names) > 1:
        raise AuditError(
            f"--against names several providers ({', '.join(names)}); audit one at a time",
            hint="run drift-audit once per provider",
        )
    return list(releases.values())


def _baseline(
    index: Index, consumer: Release, provider: str, spec: str | None, pre: bool
) -> Release | None:
    """The release the consumer is known to work with: given, else inferred, else none."""
    if spec is None:
        version = infer_baseline(consumer, provider, index)
        if version is None:
            logger.info("no baseline for %s: every finding is absolute", provider)
            return None
        logger.info("baseline %s==%s inferred from %s's metadata", provider, version, consumer.name)
        return index.release(provider, version)
    if re.match(r"^\d", spec.strip()):
        spec = f"{provider}=={spec.strip()}"
    releases = index.releases(spec, pre=pre)
    return releases[-1]


def _baselined_fingerprints(path: str | Path | None) -> frozenset[str]:
    if path is None:
        return frozenset()
    from auditor.reporters.json_report import load_report

    report = load_report(path)
    return frozenset(f.fingerprint for f in report.findings)


def _call_sites(scan: ConsumerScan) -> int:
    return sum(1 for s in scan.sites if s.action in (Action.CALL, Action.SUPER_CALL))
