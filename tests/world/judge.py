"""Stage 2 of the world harness: the interpreter judges the ecosystem run.

For each upgrade with `judge = "full"` whose ecosystem report exists (run.py), two scratch
venvs (venvs.py: the manifest's Python, the provider at the baseline and at the target,
installed by pip) answer, through probe.py in a subprocess with a timeout and without network
where `unshare -n` works:

- every new error the run reported (verdicts.py: confirmed, refuted, undecidable; the kinds
  drift-audit has that running Python cannot judge are listed as not-scored), and
- every touchpoint of every consumer (touchpoints.py, which never imports drift-audit): the
  breaks, each matched against the run's new errors on the same file and line.

Consumers are read from their released wheel or sdist (consumers.py), never installed or
imported. Answers are cached per venv and probe version. Writes `upgrades/<id>/judged.json`.

    python -m tests.world.judge [--manifest FILE] [--only ID ...] [--limit N]
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.world import undecided, verdicts
from tests.world.common import (
    manifest_of,
    parser,
    read_json,
    say,
    upgrade_dir,
    work_dir,
    write_json,
)
from tests.world.consumers import ConsumerError, consumer_sources
from tests.world.manifest import pin
from tests.world.touchpoints import scan_source
from tests.world.venvs import Venv, VenvError, isolation, provider_venv

if TYPE_CHECKING:
    from tests.world.consumers import Sources
    from tests.world.manifest import Upgrade
    from tests.world.touchpoints import FileScan

PROBE = Path(__file__).resolve().parent / "probe.py"
QUERY_SECONDS = 30  # one query, inside the probe (signal.alarm)
BATCH_SECONDS = 120  # a batch's base allowance, plus QUERY_SECONDS / 10 per query
UNCACHED = ("timeout", "probe", "crash")


def probe_digest() -> str:
    return hashlib.sha256(PROBE.read_bytes()).hexdigest()[:12]


class Prober:
    """Answers queries in one venv: a cache, then the probe in batches."""

    def __init__(
        self, venv: Venv, roots: tuple[str, ...], work: Path, seconds: int = QUERY_SECONDS
    ) -> None:
        self.venv = venv
        self.roots = roots
        self.seconds = seconds
        self.home = work / "home"
        self.cache_path = venv.path / f"answers-{probe_digest()}.json"
        self.cache: dict[str, dict[str, Any]] = {}
        if self.cache_path.is_file():
            self.cache = json.loads(self.cache_path.read_text(encoding="utf-8"))
        self.prefix = isolation()

    def _env(self, tmp: str) -> dict[str, str]:
        self.home.mkdir(parents=True, exist_ok=True)
        return {
            "PATH": f"{self.venv.path / 'bin'}:/usr/bin:/bin",
            "HOME": str(self.home),
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": str(self.home / "matplotlib"),
            "PYTHONHASHSEED": "0",
        }

    def _batch(self, queries: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], str]:
        with tempfile.TemporaryDirectory(prefix="world-probe-") as tmp:
            qfile, afile = Path(tmp) / "queries.json", Path(tmp) / "answers.jsonl"
            qfile.write_text(json.dumps(queries), encoding="utf-8")
            cmd = [*self.prefix, str(self.venv.python), "-I", str(PROBE), str(qfile),
                   str(afile), ",".join(self.roots), str(self.seconds)]  # fmt: skip
            limit = BATCH_SECONDS + self.seconds * len(queries) / 10
            failure = ""
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                                      cwd=tmp, env=self._env(tmp), check=False)  # fmt: skip
                if done.returncode != 0:
                    failure = f"the probe exited {done.returncode}: {done.stderr[-300:]}"
            except subprocess.TimeoutExpired:
                failure = f"the probe ran out of time ({limit:.0f} s)"
            answers = {}
            if afile.is_file():
                for line in afile.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        answer = json.loads(line)
                        answers[answer.pop("key")] = answer
        return answers, failure

    def answer(self, queries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        unique = {q["key"]: q for q in queries}
        todo = [unique[k] for k in sorted(unique) if k not in self.cache]
        answers = {k: self.cache[k] for k in unique if k in self.cache}
        while todo:
            got, failure = self._batch(todo)
            answers.update(got)
            for key, value in got.items():
                if value.get("step") not in UNCACHED:
                    self.cache[key] = value
            rest = [q for q in todo if q["key"] not in got]
            if rest:  # the first unanswered query crashed or hung the probe: it alone pays
                text = failure or "the probe stopped without answering"
                answers[rest[0]["key"]] = {"status": "undecidable", "step": "crash",
                                           "detail": text}  # fmt: skip
                rest = rest[1:]
            todo = rest
        self.cache_path.write_text(json.dumps(self.cache, sort_keys=True), encoding="utf-8")
        return answers


# --------------------------------------------------------------------------- one consumer


def _scans(sources: Sources, roots: tuple[str, ...]) -> dict[str, FileScan]:
    return {path: scan_source(sources.read(path) or "", path, roots) for path in sources.files}


def _finding_file(finding: dict[str, Any], sources: Sources) -> str | None:
    for candidate in (finding.get("module_path"), finding.get("path")):
        if candidate:
            found = sources.locate(candidate)
            if found is not None:
                return found
    return None


def _errors(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        f
        for f in row.get("findings", [])
        if f.get("status") == "new" and f.get("severity") == "error"
    ]


class ConsumerJudge:
    """One consumer: its sources, its touchpoints, its findings' plans."""

    def __init__(self, row: dict[str, Any], roots: tuple[str, ...], sources: Sources | str) -> None:
        """`sources`: the release's sources, or why they could not be had."""
        self.row = row
        self.sources: Sources | None = None if isinstance(sources, str) else sources
        self.error: str | None = sources if isinstance(sources, str) else None
        self.scans: dict[str, FileScan] = {}
        self.plans: list[tuple[dict[str, Any], verdicts.Plan, str | None]] = []
        if self.sources is None:
            return
        self.scans = _scans(self.sources, roots)
        for finding in _errors(row):
            path = _finding_file(finding, self.sources)
            scan = self.scans.get(path) if path else None
            source = self.sources.read(path) if path else None
            self.plans.append((finding, verdicts.plan_finding(finding, scan, source), path))

    def queries(self) -> list[dict[str, Any]]:
        out = [plan.query for _, plan, _ in self.plans if plan.query is not None]
        for scan in self.scans.values():
            for tp in scan.touchpoints:
                out += verdicts.touchpoint_queries(tp)
        return out

    def judge(self, answers: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
        findings = [self._finding(f, plan, path, answers) for f, plan, path in self.plans]
        if self.sources is None:
            findings = [_unjudged(f, f"sources: {self.error}") for f in _errors(self.row)]
        breaks, counts = [], {"total": 0}
        index, undecided_touchpoints = self._undecided_index(), 0
        for scan in self.scans.values():
            for tp in scan.touchpoints:
                judged = verdicts.decide_touchpoint(tp, answers)
                counts["total"] += 1
                counts[judged.status] = counts.get(judged.status, 0) + 1
                here = undecided.sites_at(tp, index) if index is not None else []
                undecided_touchpoints += 1 if here else 0
                if judged.status == "break":
                    causes = None if index is None else undecided.causes(here)
                    breaks.append({**self._break(tp, judged), "undecided": causes})
        return {
            "spec": self.row["spec"],
            "outcome": self.row.get("outcome"),
            "error": self.row.get("error"),
            "sources": None if self.sources is None else {
                "kind": self.sources.kind,
                "archive": self.sources.archive,
                "files": len(self.sources.files),
                "unparsable": sorted(p for p, s in self.scans.items() if s.error),
            },
            "sources_error": self.error,
            "findings": findings,
            "touchpoints": counts,
            "undecided": None if index is None else {
                "touchpoints": undecided_touchpoints,
                "sites": len(self.row.get("undecided_sites") or []),
                "located": sum(len(v) for v in index.values()),
            },
            "breaks": sorted(breaks, key=_break_order),
        }  # fmt: skip

    def _undecided_index(self) -> dict[tuple[str, int], list[dict[str, Any]]] | None:
        """The tool's undecided sites by (file, line); None when the report does not say."""
        if not undecided.measured(self.row):
            return None
        sources = self.sources
        locate = sources.locate if sources is not None else (lambda _: None)
        return undecided.site_index(self.row["undecided_sites"], locate)

    def _finding(
        self, finding: dict[str, Any], plan: verdicts.Plan, path: str | None,
        answers: dict[str, dict[str, dict[str, Any]]],
    ) -> dict[str, Any]:  # fmt: skip
        pair = answers.get(plan.query["key"], {}) if plan.query else {}
        base, target = pair.get("baseline", {}), pair.get("target", {})
        verdict = verdicts.decide_finding(finding, plan, base, target)
        query = {k: v for k, v in (plan.query or {}).items() if k != "key"}
        return {
            **_finding_fields(finding),
            "file": path,
            "verdict": verdict.verdict,
            "reason": verdict.reason,
            "spelled": plan.spelled,
            "query": query or None,
            "touchpoint": plan.touchpoint.text if plan.touchpoint else None,
            "guards": [g.as_dict() for g in plan.guards],
            "baseline": verdicts.summary(base),
            "target": verdicts.summary(target),
            "snippet": _snippet(query, target or base),
        }

    def _break(self, tp: Any, judged: verdicts.Judged) -> dict[str, Any]:
        errors = [f for f in _errors(self.row) if self._same_file(f, tp.path)]
        found = verdicts.found_by(tp, judged.category, errors)
        query = {k: v for k, v in judged.query.items() if k != "key"}
        everything = [f for f in self.row.get("findings", []) if self._same_file(f, tp.path)]
        lines = (tp.line, tp.stmt_line)
        on_line = sorted(
            f"{f.get('status')} {f.get('kind')} {f.get('symbol')}"
            for f in everything
            if f.get("line") in lines
        )
        return {
            **tp.as_dict(),
            "category": judged.category,
            "reason": judged.reason,
            "guarded": judged.guard is not None,
            "guard": judged.guard.as_dict() if judged.guard else None,
            "found": bool(found),
            "found_by": found,
            "on_line": on_line,
            "query": query,
            "baseline": verdicts.summary(judged.baseline),
            "target": verdicts.summary(judged.target),
            "snippet": _snippet(query, judged.target),
        }  # fmt: skip

    def _same_file(self, finding: dict[str, Any], path: str) -> bool:
        return self.sources is not None and _finding_file(finding, self.sources) == path


def _break_order(brk: dict[str, Any]) -> tuple[str, int, int, str]:
    return (brk["path"], brk["line"], brk["column"], brk["symbol"])


def fetch(row: dict[str, Any], work: Path, pip: Path) -> Sources | str:
    """The consumer release's sources (consumers.py), or why they could not be had."""
    name, version = row.get("name"), row.get("version")
    if not name or not version:
        name, version = pin(row["spec"])
    try:
        return consumer_sources(work, pip, name, version)
    except (ConsumerError, OSError, subprocess.SubprocessError) as exc:
        return str(exc)


def _snippet(query: dict[str, Any], answer: dict[str, Any]) -> str | None:
    try:
        return verdicts.snippet(query, answer) if query else None
    except (KeyError, ValueError):
        return None


def _finding_fields(finding: dict[str, Any]) -> dict[str, Any]:
    keep = ("fingerprint", "kind", "severity", "status", "message", "path", "module_path",
            "line", "column", "symbol", "parameter", "suggestion")  # fmt: skip
    return {k: finding.get(k) for k in keep}


def _unjudged(finding: dict[str, Any], reason: str, verdict: str = "undecidable") -> dict[str, Any]:
    if finding.get("kind") not in verdicts.SCORED and verdict == "undecidable":
        verdict, reason = "not-scored", f"{finding.get('kind')} is not judged by running Python"
    return {**_finding_fields(finding), "verdict": verdict, "reason": reason}


# --------------------------------------------------------------------------- one upgrade


def answer_pairs(
    probers: dict[str, Prober], queries: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    answers = {side: prober.answer(queries) for side, prober in probers.items()}
    return {q["key"]: {side: answers[side].get(q["key"], {}) for side in probers} for q in queries}


def _unjudged_upgrade(report: dict[str, Any], reason: str, verdict: str) -> dict[str, Any]:
    return {
        "consumers": [
            {
                "spec": row["spec"],
                "outcome": row.get("outcome"),
                "error": row.get("error"),
                "findings": [_unjudged(f, reason, verdict) for f in _errors(row)],
                "breaks": [],
                "touchpoints": {"total": 0},
            }
            for row in report.get("consumers", [])
        ]
    }  # fmt: skip


def judge_upgrade(upgrade: Upgrade, python: str, work: Path) -> dict[str, Any] | None:
    folder = upgrade_dir(work, upgrade.id)
    if not (folder / "ecosystem.json").is_file():
        say(f"judge: {upgrade.id}: no ecosystem report (run.py has not run, or failed)")
        return None
    report = read_json(folder / "ecosystem.json")
    head = {
        "upgrade": upgrade.id,
        "family": upgrade.family,
        "provider": upgrade.provider,
        "baseline": upgrade.baseline,
        "target": upgrade.target,
        "judge": upgrade.judge,
        "judge_note": upgrade.judge_note,
        "python": python,
    }
    if not upgrade.judged:
        body = _unjudged_upgrade(report, upgrade.judge_note, "not-judged")
        write_json(folder / "judged.json", {**head, **body})
        say(f"judge: {upgrade.id}: static-only ({upgrade.judge_note})")
        return {**head, **body}
    try:
        venvs = {
            side: provider_venv(work, python, upgrade.provider, version, upgrade.import_names)
            for side, version in (("baseline", upgrade.baseline), ("target", upgrade.target))
        }
    except VenvError as exc:
        body = _unjudged_upgrade(report, f"venv: {exc}", "undecidable")
        write_json(folder / "judged.json", {**head, "venv_error": str(exc), **body})
        say(f"judge: {upgrade.id}: {exc}")
        return None
    probers = {side: Prober(v, upgrade.import_names, work) for side, v in venvs.items()}
    rows = report.get("consumers", [])
    consumers = []
    for index, row in enumerate(rows, 1):
        one = ConsumerJudge(row, upgrade.import_names, fetch(row, work, venvs["baseline"].python))
        result = one.judge(answer_pairs(probers, one.queries()))
        consumers.append(result)
        say(
            f"judge: {upgrade.id}: [{index}/{len(rows)}] {row['spec']}: "
            f"{len(result['findings'])} new error(s), {result['touchpoints']['total']} "
            f"touchpoints, {len(result['breaks'])} break(s)"
            + (f" (sources: {one.error})" if one.error else "")
        )
    isolation = probers["target"].prefix
    body = {
        "network": "isolated (unshare -n)" if isolation else "not isolated (no unshare -n here)",
        "venvs": {
            side: {
                "requirement": v.requirement,
                "constraints": v.constraints.split(),
                "freeze": v.freeze.split(),
            }
            for side, v in venvs.items()
        },
        "consumers": consumers,
    }
    write_json(folder / "judged.json", {**head, **body})
    return {**head, **body}


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__ or "").parse_args(argv)
    manifest = manifest_of(args)
    work = work_dir()
    done = [judge_upgrade(u, manifest.python, work) for u in manifest.select(args.only)]
    return 0 if all(d is not None for d in done) else 1


if __name__ == "__main__":
    sys.exit(main())
