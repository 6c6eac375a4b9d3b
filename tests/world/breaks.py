"""The test-suite judge's rules: what two test runs' records say. Pure functions on literal
inputs (suites.py feeds them what suite_plugin.py wrote in the baseline and the target venv);
no I/O, nothing of drift-audit.

- `outcomes(records)`: each test's outcome (passed, failed, skipped, xfailed), its phases
  folded: a failure in any phase fails it.
- `pair(baseline, target)`: the tests that pass at the baseline and fail at the target, each
  with the failure that fails it there: its own, else the collection error of the file, folder
  or conftest that holds it (a test module that no longer imports is never collected), else
  the whole session's (a conftest pytest loads first).
- `Layout.role(filename)`: whose a traceback frame is: the consumer's (one of the files the
  touchpoint judge reads: the release's, by their path under the import root), the provider's
  (its import names' files in site-packages), the tests' (the sdist's files outside the
  package: `tests/`, a root conftest), neutral (the standard library, `<frozen importlib...>`)
  or another library's.
- `locate(frames, layout)`: a break's location: the last consumer frame before the first
  provider frame, with only neutral frames between them; without a provider frame, the last
  consumer frame, with only neutral frames after it (a call that does not bind, `from P import
  gone`, an attribute a value no longer has). No consumer frame there: the tests' own frame
  (kind "tests", not in the recall); another library in between or after: "elsewhere".
- `judge_pairs(pairs, layout)`: the breaks (AttributeError, TypeError, ImportError, NameError
  by the exception's classes), deduplicated by location.
- `statement_span(source, line)`: the lines of the innermost statement holding the line, so a
  finding at a multi-line call's first line matches a frame at another of its lines.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass, field
from typing import Any

BREAKING = ("AttributeError", "TypeError", "ImportError", "NameError")
PHASES = ("setup", "call", "teardown")
SESSION = ""  # the node of a failure no collector owns (the first conftest)


def outcomes(records: list[dict[str, Any]]) -> dict[str, str]:
    """node -> passed | failed | skipped | xfailed, from the `report` records."""
    phases: dict[str, dict[str, dict[str, Any]]] = {}
    for rec in records:
        if rec.get("event") == "report":
            phases.setdefault(rec["node"], {})[rec["when"]] = rec
    return {node: _fold(seen) for node, seen in phases.items()}


def _fold(seen: dict[str, dict[str, Any]]) -> str:
    if any(r["outcome"] == "failed" for r in seen.values()):
        return "failed"
    call = seen.get("call")
    if call is None or call["outcome"] == "skipped":
        xfail = any(r.get("xfail") for r in seen.values())
        return "xfailed" if xfail else "skipped"
    return "xfailed" if call.get("xfail") else "passed"


@dataclass(frozen=True)
class Failure:
    node: str
    when: str
    exc: str
    classes: tuple[str, ...]  # the exception's class and its bases
    message: str
    frames: tuple[tuple[str, int, str], ...]

    @property
    def breaking(self) -> str | None:
        """The first of BREAKING among the exception's classes, or None."""
        return next((name for name in BREAKING if name in self.classes), None)


def failures(records: list[dict[str, Any]]) -> dict[str, Failure]:
    """node -> its first failure (setup before call before teardown), from `error` records."""
    out: dict[str, Failure] = {}
    for rec in records:
        if rec.get("event") != "error":
            continue
        got = Failure(
            node=rec["node"],
            when=rec.get("when", ""),
            exc=rec.get("exc", ""),
            classes=tuple(rec.get("mro", ())),
            message=rec.get("message", ""),
            frames=tuple((str(f[0]), int(f[1]), str(f[2])) for f in rec.get("frames", [])),
        )
        kept = out.get(got.node)
        if kept is None or _rank(got.when) < _rank(kept.when):
            out[got.node] = got
    return out


def _rank(when: str) -> int:
    return PHASES.index(when) if when in PHASES else -1  # collection and conftest first


def _holds(collector: str, test: str) -> bool:
    if collector == SESSION:
        return True
    return test.startswith((collector + "::", collector + "/"))


def collector_failure(test: str, errors: dict[str, Failure], collected: set[str]) -> Failure | None:
    """The failure of the innermost failed collector that holds the test."""
    holders = [n for n in collected if _holds(n, test) and n in errors]
    return errors[max(holders, key=len)] if holders else None


@dataclass(frozen=True)
class Pair:
    test: str
    failure: Failure | None  # None: it failed at the target with no exception recorded


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What a run's records keep: each test's outcome, the failures (frames only for the
    exceptions that can be breaks), the collectors that failed, the run's start record."""
    errors = []
    for rec in records:
        if rec.get("event") == "error":
            breaking = set(BREAKING) & set(rec.get("mro", ()))
            errors.append(rec if breaking else {**rec, "frames": []})
    return {
        "tests": outcomes(records),
        "errors": errors,
        "collect": sorted({r["node"] for r in records if r.get("event") == "collect"}),
        "start": next((r for r in records if r.get("event") == "start"), {}),
    }


def pair(base: dict[str, Any], target: dict[str, Any]) -> tuple[list[Pair], dict[str, int]]:
    """The tests that pass at the baseline and fail at the target (two `summarize` results),
    and the counts of the baseline's passing tests by what became of them at the target."""
    before, after = base["tests"], target["tests"]
    errors = failures(target["errors"])
    collected = set(target["collect"]) | ({SESSION} if SESSION in errors else set())
    pairs, counts = [], {"passed_baseline": 0, "passed_both": 0, "failed_target": 0,
                         "skipped_target": 0, "not_run_target": 0}  # fmt: skip
    for test in sorted(t for t, o in before.items() if o == "passed"):
        counts["passed_baseline"] += 1
        now = after.get(test)
        if now == "passed":
            counts["passed_both"] += 1
        elif now == "failed":
            counts["failed_target"] += 1
            pairs.append(Pair(test, errors.get(test)))
        elif now is not None:
            counts["skipped_target"] += 1
        else:
            held = collector_failure(test, errors, collected)
            counts["failed_target" if held else "not_run_target"] += 1
            if held is not None:
                pairs.append(Pair(test, held))
    return pairs, counts


# --------------------------------------------------------------------------- frames


def _under(path: str, folder: str) -> str | None:
    """`path` relative to `folder` (posix), or None when it is not under it."""
    path, folder = posixpath.normpath(path), posixpath.normpath(folder)
    if folder and path.startswith(folder.rstrip("/") + "/"):
        return path[len(folder.rstrip("/")) + 1 :]
    return None


@dataclass(frozen=True)
class Layout:
    """Where a run's files are (absolute, posix): the venv's site-packages, the standard
    library, the run's copy of the sdist (`project`) and, when the tests run against the
    sdist's own copy of the package, its import root there (`checkout`)."""

    site: tuple[str, ...]
    stdlib: tuple[str, ...]
    project: str
    consumer_files: frozenset[str]
    provider_tops: frozenset[str]
    checkout: str | None = None

    def role(self, filename: str) -> tuple[str, str]:
        """(role, path): consumer | provider | tests | neutral | other."""
        if filename.startswith("<"):
            return "neutral", filename
        for site in self.site:
            rel = _under(filename, site)
            if rel is not None:
                return self._installed(rel), rel
        if self.checkout is not None:
            rel = _under(filename, self.checkout)
            if rel is not None and rel in self.consumer_files:
                return "consumer", rel
        rel = _under(filename, self.project)
        if rel is not None:
            return "tests", rel
        for lib in self.stdlib:
            rel = _under(filename, lib)
            if rel is not None and not {"site-packages", "dist-packages"} & set(rel.split("/")):
                return "neutral", rel
        return "other", filename

    def shorten(self, text: str) -> str:
        """A message with this run's folders named as what they are (`site-packages/...`)."""
        for site in self.site:
            text = text.replace(site.rstrip("/") + "/", "site-packages/")
        return text.replace(self.project.rstrip("/") + "/", "") if self.project else text

    def _installed(self, rel: str) -> str:
        top = rel.split("/", 1)[0]
        if top.removesuffix(".py") in self.provider_tops:
            return "provider"
        return "consumer" if rel in self.consumer_files else "other"


@dataclass(frozen=True)
class Located:
    kind: str  # consumer | tests | elsewhere
    path: str = ""
    line: int = 0
    detail: str = ""


def locate(frames: tuple[tuple[str, int, str], ...], layout: Layout) -> Located:
    """Where the traceback leaves the consumer for the provider (see the module's comment)."""
    roles = [layout.role(f[0]) for f in frames]
    first = next((i for i, (role, _) in enumerate(roles) if role == "provider"), None)
    end = len(frames) if first is None else first
    own = [i for i in range(end) if roles[i][0] in ("consumer", "tests")]
    if not own:
        return Located("elsewhere", detail="no frame of the consumer or its tests")
    mine = [i for i in own if roles[i][0] == "consumer"]
    last = mine[-1] if mine else own[-1]
    between = roles[last + 1 : end]
    others = [path for role, path in between if role == "other"]
    if others:
        side = "before the provider" if first is not None else "after the consumer"
        return Located("elsewhere", detail=f"another library {side}: {others[-1]}")
    kind, path = roles[last]
    return Located(kind, path, frames[last][1])


# --------------------------------------------------------------------------- breaks


@dataclass
class Break:
    kind: str  # consumer | tests
    path: str
    line: int
    exceptions: set[str] = field(default_factory=set)
    message: str = ""
    tests: list[str] = field(default_factory=list)

    def as_dict(self, span: tuple[int, int] | None = None, keep: int = 10) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "span": list(span or (self.line, self.line)),
            "exceptions": sorted(self.exceptions),
            "message": self.message,
            "tests": sorted(self.tests)[:keep],
            "test_count": len(self.tests),
        }


def judge_pairs(pairs: list[Pair], layout: Layout) -> dict[str, Any]:
    """Breaks (by location), breaks in the tests' own files, and the other pairs by why
    they are not breaks."""
    found: dict[tuple[str, str, int], Break] = {}
    other: dict[str, int] = {}
    for one in pairs:
        kind = one.failure.breaking if one.failure else None
        if one.failure is None or kind is None:
            label = one.failure.exc if one.failure else "no exception recorded"
            other[label or "failure"] = other.get(label or "failure", 0) + 1
            continue
        where = locate(one.failure.frames, layout)
        if where.kind == "elsewhere":
            label = f"{kind}: {where.detail}"
            other[label] = other.get(label, 0) + 1
            continue
        key = (where.kind, where.path, where.line)
        brk = found.setdefault(key, Break(where.kind, where.path, where.line))
        brk.exceptions.add(one.failure.exc)
        brk.message = brk.message or layout.shorten(one.failure.message)
        brk.tests.append(one.test)
    ordered = [found[k] for k in sorted(found)]
    return {
        "consumer": [b for b in ordered if b.kind == "consumer"],
        "tests": [b for b in ordered if b.kind == "tests"],
        "not_breaks": dict(sorted(other.items())),
    }


def statement_span(source: str | None, line: int) -> tuple[int, int]:
    """The first and last line of the innermost statement at `line` (a compound statement:
    its header, decorators included); (line, line) when the source does not parse."""
    try:
        tree = ast.parse(source or "")
    except (SyntaxError, ValueError):
        return line, line
    best = (line, line)
    size = None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.excepthandler)):
            continue
        first, last = _own_lines(node)
        if first <= line <= last and (size is None or last - first < size):
            best, size = (first, last), last - first
    return best


def _own_lines(node: ast.stmt | ast.excepthandler) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    body = getattr(node, "body", None)
    if isinstance(body, list) and body:
        return first, max(node.lineno, body[0].lineno - 1)
    return first, node.end_lineno or node.lineno


def same_file(finding: dict[str, Any], path: str) -> bool:
    """Whether a finding of the run names the file (by its path under the import root, or a
    path that ends in it, as the touchpoint judge locates it)."""
    for candidate in (finding.get("module_path"), finding.get("path")):
        if candidate and (candidate == path or candidate.endswith("/" + path)
                          or path.endswith("/" + candidate)):  # fmt: skip
            return True
    return False


def found_by(brk: dict[str, Any], findings: list[dict[str, Any]]) -> list[str]:
    """The new errors and warnings of the run on the break's file and statement."""
    first, last = brk["span"]
    return sorted(
        f"{f.get('kind')} {f.get('symbol')}"
        for f in findings
        if f.get("status") == "new"
        and f.get("severity") in ("error", "warning")
        and same_file(f, brk["path"])
        and (first <= int(f.get("line") or 0) <= last or f.get("line") == brk["line"])
    )
