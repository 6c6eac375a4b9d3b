"""The real-world corpus: published releases, real breaks and real working pairs (README.md here).

One `network` test per case folder. Each runs the audit the way the CLI would
(`consumer==X --against provider==Y --baseline provider==Z`), fetching both sides from the
package index into a cache shared by the session and kept between runs, then:

- a breaking case: every `[[expect]]` must be reported as a *new* finding (kind, symbol,
  parameter, path suffix). Recall is measured, not forced: an expectation marked
  `missed = "why"` is a real break the tool does not see today; the case is then an
  `xfail(strict=True)` that raises only `MissedBreak`, so it flips to a failure the day the tool
  finds it (then drop the `missed` line). A regression on an expectation that is not marked
  missed is a plain failure, never hidden by the xfail.
- every case: a *new* error-severity finding that no `[[expect]]` accounts for fails the test: on
  a working pair it is a false alarm; on a breaking case it is a finding nobody verified.

The cache lives in $DRIFT_AUDIT_REALWORLD_CACHE, default ~/.cache/drift-audit-realworld; with a
warm cache the whole corpus runs in seconds.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from auditor.kinds import Severity
from auditor.model import Status

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from auditor.model import Finding, Report

HERE = Path(__file__).parent
CASE_KEYS = frozenset(
    {"consumer", "target", "baseline", "evidence", "expect", "verify", "false_alarm"}
)
EXPECT_KEYS = frozenset({"kind", "symbol", "parameter", "path", "missed", "optional", "why"})


class MissedBreak(AssertionError):
    """A verified real break the tool does not report (yet): a failure an xfail accepts."""


class KnownFalseAlarm(AssertionError):
    """A documented false alarm the tool still raises: a failure an xfail accepts."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        raise ValueError(f"{where}: expected a string or a list of strings, got {value!r}")
    return tuple(items)


@dataclass(frozen=True)
class Expect:
    """One finding: any of `kinds`, any of `symbols` (fnmatch patterns), the parameter, a path
    suffix. `missed`: a real break not reported today. `optional`: a real consequence of a break
    listed beside it (a use of the removed name), fine either way. `why`: for a false alarm."""

    kinds: tuple[str, ...]
    symbols: tuple[str, ...]
    parameter: str | None
    path: str
    missed: str | None = None
    optional: bool = False
    why: str | None = None

    def matches(self, f: Finding) -> bool:
        return (
            f.status is Status.NEW
            and f.kind.slug in self.kinds
            and any(fnmatchcase(f.symbol, s) for s in self.symbols)
            and (f.parameter or None) == self.parameter
            and f.location.path.endswith(self.path)
        )

    def __str__(self) -> str:
        param = f" ({self.parameter})" if self.parameter else ""
        return f"{'|'.join(self.kinds)} {'|'.join(self.symbols)}{param} in {self.path}"


@dataclass(frozen=True)
class RealCase:
    name: str
    consumer: str
    target: str
    baseline: str
    expects: tuple[Expect, ...] = field(default=())
    false_alarms: tuple[Expect, ...] = field(default=())

    @property
    def breaking(self) -> bool:
        return bool(self.expects)

    @property
    def missed(self) -> tuple[Expect, ...]:
        return tuple(e for e in self.expects if e.missed)


def load(folder: Path) -> RealCase:
    data = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    unknown = set(data) - CASE_KEYS
    if unknown:
        raise ValueError(f"{folder.name}/case.toml: unknown keys {sorted(unknown)}")
    for key in ("consumer", "target", "baseline", "evidence"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{folder.name}/case.toml: `{key}` is required")
    if not (folder / "evidence.md").is_file():
        raise ValueError(f"{folder.name}: evidence.md is missing (run verify_evidence.py)")
    expects = _expects(folder.name, "expect", data.get("expect", []))
    false_alarms = _expects(folder.name, "false_alarm", data.get("false_alarm", []))
    if any(not e.why for e in false_alarms):
        raise ValueError(f"{folder.name}/case.toml: every [[false_alarm]] needs `why`")
    return RealCase(
        folder.name, data["consumer"], data["target"], data["baseline"], expects, false_alarms
    )


def _expects(name: str, key: str, items: list[dict[str, Any]]) -> tuple[Expect, ...]:
    out = []
    for i, item in enumerate(items):
        where = f"{name}/case.toml {key}[{i}]"
        if set(item) - EXPECT_KEYS:
            raise ValueError(f"{where}: unknown keys {sorted(set(item) - EXPECT_KEYS)}")
        out.append(
            Expect(
                kinds=_strings(item["kind"], where),
                symbols=_strings(item["symbol"], where),
                parameter=item.get("parameter"),
                path=item["path"],
                missed=item.get("missed"),
                optional=bool(item.get("optional", False)),
                why=item.get("why"),
            )
        )
    return tuple(out)


CASES = [load(p) for p in sorted(HERE.iterdir()) if (p / "case.toml").is_file()]


def _param(case: RealCase) -> Any:
    marks = [pytest.mark.network]
    reasons = [f"missed: {e.path}: {e.missed}" for e in case.missed]
    reasons += [f"FALSE ALARM: {e.path}: {e.why}" for e in case.false_alarms]
    if reasons:
        raises = (MissedBreak, KnownFalseAlarm)
        marks.append(pytest.mark.xfail(strict=True, raises=raises, reason="; ".join(reasons)))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.fixture(scope="session")
def realworld_cache() -> Path:
    """Fetched sources, kept between sessions so a repeated run downloads nothing."""
    default = Path.home() / ".cache" / "drift-audit-realworld"
    path = Path(os.environ.get("DRIFT_AUDIT_REALWORLD_CACHE", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _describe(f: Finding) -> str:
    param = f" ({f.parameter})" if f.parameter else ""
    where = f"{f.location.path}:{f.location.line}"
    return f"{f.kind.slug} {f.symbol}{param} at {where} [{f.status.value}]"


@dataclass
class Outcome:
    problems: list[str] = field(default_factory=list)  # plain failures
    missed: list[str] = field(default_factory=list)  # marked missed, still missed
    flipped: list[str] = field(default_factory=list)  # marked missed, now reported
    false_alarms: list[str] = field(default_factory=list)  # documented, still raised
    fixed: list[str] = field(default_factory=list)  # documented false alarms now gone


def compare(case: RealCase, report: Report) -> Outcome:
    """Match one report's new errors against the case's expectations and false alarms."""
    out = Outcome()
    # A consumer file this Python cannot parse (gunicorn 19.7's `async` workers, written for
    # Python 3.4) is an `unparsable` error, but no provider break: not matched here.
    unclaimed = [
        f
        for f in report.findings
        if f.status is Status.NEW and f.severity is Severity.ERROR and f.kind.slug != "unparsable"
    ]
    for expect in (e for e in case.expects if not e.optional):
        hit = next((f for f in unclaimed if expect.matches(f)), None)
        if hit is not None:
            unclaimed.remove(hit)
            if expect.missed:
                out.flipped.append(f"{expect} (now reported: {_describe(hit)})")
        elif expect.missed:
            out.missed.append(f"{expect}: {expect.missed}")
        else:
            out.problems.append(f"not reported: {expect}")
    optional = [e for e in case.expects if e.optional]
    unclaimed = [f for f in unclaimed if not any(e.matches(f) for e in optional)]
    for alarm in case.false_alarms:
        hits = [f for f in unclaimed if alarm.matches(f)]
        if hits:
            out.false_alarms += [f"{_describe(f)}: {alarm.why}" for f in hits]
        else:
            out.fixed.append(str(alarm))
        unclaimed = [f for f in unclaimed if f not in hits]
    label = "false alarm" if not case.breaking else "unverified finding"
    out.problems += [f"{label}: {_describe(f)}" for f in unclaimed]
    return out


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_real_world_case(case: RealCase, realworld_cache: Path) -> None:
    from auditor.pipeline import audit

    report = audit(case.consumer, [case.target], baseline=case.baseline, cache_dir=realworld_cache)
    assert report.provider.baseline == case.baseline.split("==")[1]
    out = compare(case, report)
    problems = list(out.problems)
    if out.flipped:
        problems.append("reported although marked missed (drop `missed` in case.toml):")
        problems += [f"  {line}" for line in out.flipped]
    if out.fixed:
        problems.append("documented false alarm no longer raised (drop it from case.toml):")
        problems += [f"  {line}" for line in out.fixed]
    assert not problems, f"{case.name}:\n" + "\n".join(problems)
    if out.missed:
        raise MissedBreak(f"{case.name}: still missed:\n" + "\n".join(out.missed))
    if out.false_alarms:
        raise KnownFalseAlarm(f"{case.name}: false alarms:\n" + "\n".join(out.false_alarms))


def test_the_corpus_has_enough_real_cases() -> None:
    breaking = [c for c in CASES if c.breaking]
    working = [c for c in CASES if not c.breaking]
    families = {c.target.split("==")[0] for c in CASES}
    assert len(breaking) >= 60, "the corpus needs at least 60 real breaks"
    assert len(working) >= 25, "the corpus needs at least 25 real working pairs"
    assert len(families) >= 20, "the corpus needs at least 20 provider families"
