"""Shared test helpers: small source trees on disk, and the fixture corpus in tests/cases/.

A case folder holds two versions of a tiny provider package `acme` (provider/0.1, provider/0.2)
and a consumer package `widget` whose comments mark the lines that must be flagged; the
layout and the marker syntax are described in tests/cases/README.md. Here a case is loaded
into a `DriftCase`, which runs the audit the way the CLI would (`DriftCase.audit`) and checks
the report against the markers, both ways (`DriftCase.compare`).

Fixtures: `drift_case` (every case, one test each, ids = folder names), `all_drift_cases`,
`make_tree`, `update_golden` (the `--update-golden` option), `report_validator` (the compiled
docs/report.schema.json), `ecosystem_validator` (docs/ecosystem.schema.json, which refers to
the audit's schema for each consumer's findings). And one that is always on: for the whole
session every JSON report rendered in this process (json_report.render, so `--format json`,
`--write-baseline` and the in-process CLI runs too) is validated against that schema; a
document that does not fit fails the test that rendered it.
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import jsonschema
import pytest

from auditor.kinds import Kind
from auditor.model import Status
from auditor.reporters import json_report

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

    from auditor.model import Finding, Report

CASES_DIR = Path(__file__).parent / "cases"
REPORT_SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"
ECOSYSTEM_SCHEMA = REPORT_SCHEMA.with_name("ecosystem.schema.json")
PROVIDER = "acme"
CONSUMER = "widget"
BASELINE_VERSION = "0.1"
TARGET_VERSION = "0.2"
CASE_KEYS = frozenset({"baseline", "expect"})

_EXPECT = re.compile(
    r"#\s*expect(?P<pre>-preexisting)?\s*:\s*(?P<kinds>[a-z][a-z-]*(?:\s*,\s*[a-z][a-z-]*)*)"
)
_ANY_EXPECT = re.compile(r"#\s*expect")
_NEAR_MISS = re.compile(r"#\s*near-miss\b")
_LAYOUT_TOKENS = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
)


class CaseError(Exception):
    """A case folder is malformed: a bad marker, a bad case.toml key, a missing folder."""


class Expected(NamedTuple):
    """One finding, reduced to what markers can say: where, which kind, which status."""

    path: str
    line: int
    kind: str
    status: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} [{self.status}]"


# --------------------------------------------------------------------------- trees


def make_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write `files` ({"pkg/mod.py": source}) under `root`; return `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --------------------------------------------------------------------------- markers


@dataclass(frozen=True)
class SourceMarks:
    """What one consumer file says about itself."""

    expected: tuple[Expected, ...]
    near_misses: int
    has_code: bool  # anything besides a docstring


def _code_lines(tokens: Iterable[tokenize.TokenInfo]) -> set[int]:
    lines: set[int] = set()
    for tok in tokens:
        if tok.type not in _LAYOUT_TOKENS:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def parse_marks(path: Path, rel: str) -> SourceMarks:
    """Read the `# expect...` and `# near-miss` comments of one consumer file."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    code = _code_lines(tokens)
    expected: list[Expected] = []
    near = 0
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        line = tok.start[0]
        found = [_marker(m, rel, line) for m in _EXPECT.finditer(tok.string)]
        is_near = bool(_NEAR_MISS.search(tok.string))
        if (found or is_near) and line not in code:
            raise CaseError(f"{rel}:{line}: a marker must sit on a line of code: {tok.string}")
        if found and is_near:
            raise CaseError(f"{rel}:{line}: a line cannot be both expected and a near miss")
        if _ANY_EXPECT.search(tok.string) and not found:
            raise CaseError(f"{rel}:{line}: cannot read the marker in {tok.string!r}")
        for items in found:
            expected.extend(items)
        near += is_near
    body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
    return SourceMarks(tuple(expected), near, bool(body))


def _marker(match: re.Match[str], rel: str, line: int) -> list[Expected]:
    status = Status.PREEXISTING if match["pre"] else Status.NEW
    kinds = [k.strip() for k in match["kinds"].split(",")]
    for kind in kinds:
        _check_kind(kind, f"{rel}:{line}")
    return [Expected(rel, line, kind, status.value) for kind in kinds]


def _check_kind(slug: str, where: str) -> None:
    try:
        Kind.from_slug(slug)
    except ValueError:
        raise CaseError(f"{where}: unknown kind {slug!r} in a marker") from None


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class DriftCase:
    """One folder of tests/cases/, with its markers read."""

    name: str
    root: Path
    baseline: bool  # case.toml `baseline = false` audits with no baseline (absolute mode)
    expected: tuple[Expected, ...]  # markers, plus case.toml `expect`
    marks: Mapping[str, SourceMarks]  # consumer path -> its markers, for parsable files
    unparsable: tuple[str, ...]  # consumer paths that do not parse

    @property
    def consumer(self) -> Path:
        return self.root / "consumer" / CONSUMER

    def provider(self, version: str) -> Path:
        return self.root / "provider" / version

    def spec(self, version: str) -> str:
        """A direct reference to one provider folder, e.g. `acme @ file:///.../0.2`."""
        return f"{PROVIDER} @ {self.provider(version).as_uri()}"

    def audit(self, cache_dir: Path) -> Report:
        """Run the audit on this case: consumer vs 0.2, baseline 0.1 unless turned off."""
        from auditor.pipeline import audit

        return audit(
            consumer=str(self.consumer),
            against=[self.spec(TARGET_VERSION)],
            baseline=self.spec(BASELINE_VERSION) if self.baseline else None,
            cache_dir=cache_dir,
            offline=True,
        )

    def compare(self, report: Report) -> list[str]:
        """Every difference between the report and the markers, as readable lines."""
        actual: dict[Expected, list[Finding]] = {}
        for f in report.findings:
            actual.setdefault(_reduce(f), []).append(f)
        got = Counter({key: len(found) for key, found in actual.items()})
        want = Counter(self.expected)
        problems: list[str] = []
        missing = sorted((want - got).elements())
        if missing:
            problems.append("missing (marked, not reported):")
            problems += [f"  {e}\n      {self.source_line(e.path, e.line)}" for e in missing]
        extra = sorted((got - want).items())
        if extra:
            problems.append("unexpected (reported, not marked):")
            problems += [self._describe(key, n, actual[key]) for key, n in extra]
        fields = [p for f in report.findings for p in self._check_fields(f)]
        if fields:
            problems.append("wrong fields:")
            problems += [f"  {p}" for p in fields]
        if problems:
            problems.insert(0, f"case {self.name!r}: the findings do not match the markers")
        return problems

    def source_line(self, path: str, line: int) -> str:
        try:
            text = (self.root / "consumer" / path).read_text(encoding="utf-8")
            return text.splitlines()[line - 1].strip()
        except (OSError, IndexError):
            return "<no such line>"

    def _describe(self, key: Expected, count: int, findings: list[Finding]) -> str:
        lines = [f"  {key}" + (f" (x{count})" if count > 1 else "")]
        lines += [f"      {self.source_line(key.path, key.line)}"]
        lines += [f"      -> {f.symbol}: {_safe_message(f)}" for f in findings]
        return "\n".join(lines)

    def _check_fields(self, f: Finding) -> list[str]:
        if f.kind is Kind.UNPARSABLE:  # about a consumer file, not a provider symbol or release
            return []
        where = _reduce(f)
        out: list[str] = []
        if f.symbol != PROVIDER and not f.symbol.startswith(PROVIDER + "."):
            out.append(f"{where}: symbol {f.symbol!r} is not an {PROVIDER} path")
        if f.status is Status.NEW and tuple(f.broken_in) != (TARGET_VERSION,):
            out.append(f"{where}: broken_in is {f.broken_in!r}, expected ({TARGET_VERSION!r},)")
        return out


def _reduce(f: Finding) -> Expected:
    return Expected(f.location.path, f.location.line, f.kind.slug, f.status.value)


def _safe_message(f: Finding) -> str:
    try:
        return f.message
    except Exception as exc:  # the message template is not under test here
        return f"<message failed: {exc!r}>"


def load_case(root: Path) -> DriftCase:
    """Read one case folder: case.toml, then the markers of every consumer file."""
    settings = _read_settings(root)
    consumer_root = root / "consumer"
    if not (consumer_root / CONSUMER / "__init__.py").is_file():
        raise CaseError(f"{root.name}: consumer/{CONSUMER}/__init__.py is missing")
    marks: dict[str, SourceMarks] = {}
    unparsable: list[str] = []
    for path in sorted(consumer_root.rglob("*.py")):
        rel = path.relative_to(consumer_root).as_posix()
        try:
            marks[rel] = parse_marks(path, rel)
        except SyntaxError:
            unparsable.append(rel)
        except CaseError as exc:
            raise CaseError(f"{root.name}: {exc}") from None
    expected = [e for m in marks.values() for e in m.expected]
    expected += _listed_expectations(root.name, settings.get("expect", []))
    return DriftCase(
        name=root.name,
        root=root,
        baseline=settings.get("baseline", True),
        expected=tuple(expected),
        marks=marks,
        unparsable=tuple(unparsable),
    )


def _read_settings(root: Path) -> dict[str, Any]:
    path = root / "case.toml"
    if not path.is_file():
        return {}
    settings = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(settings) - CASE_KEYS
    if unknown:
        raise CaseError(f"{root.name}/case.toml: unknown keys {sorted(unknown)}")
    if not isinstance(settings.get("baseline", True), bool):
        raise CaseError(f"{root.name}/case.toml: `baseline` must be true or false")
    return settings


def _listed_expectations(name: str, items: object) -> list[Expected]:
    """case.toml `expect = [[path, line, kind, status], ...]`, for lines markers cannot mark."""
    statuses = {s.value for s in Status}
    out: list[Expected] = []
    for item in items if isinstance(items, list) else [items]:
        ok = isinstance(item, list) and len(item) == 4
        ok = ok and isinstance(item[0], str) and isinstance(item[1], int)
        ok = ok and isinstance(item[2], str) and item[3] in statuses
        if not ok:
            raise CaseError(f"{name}/case.toml: bad `expect` entry {item!r}")
        _check_kind(item[2], f"{name}/case.toml")
        out.append(Expected(*item))
    return out


def case_folders() -> list[Path]:
    return sorted(
        p for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


_LOADED: list[DriftCase] = []


def all_cases() -> list[DriftCase]:
    """Every case, loaded once per session."""
    if not _LOADED:
        _LOADED.extend(load_case(p) for p in case_folders())
    return _LOADED


# --------------------------------------------------------------------------- pytest wiring


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files in tests/golden/ instead of comparing with them",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "drift_case" in metafunc.fixturenames:
        cases = all_cases()
        metafunc.parametrize("drift_case", cases, ids=[c.name for c in cases])


@pytest.fixture(scope="session")
def all_drift_cases() -> list[DriftCase]:
    return all_cases()


@pytest.fixture(name="make_tree")
def make_tree_fixture() -> Callable[[Path, Mapping[str, str]], Path]:
    """`make_tree(tmp_path, {"pkg/mod.py": code})` in a test."""
    return make_tree


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def report_validator() -> jsonschema.Draft202012Validator:
    """docs/report.schema.json, checked as a schema and compiled once per session."""
    schema = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="session")
def ecosystem_validator(
    report_validator: jsonschema.Draft202012Validator,
) -> jsonschema.Draft202012Validator:
    """docs/ecosystem.schema.json, checked as a schema; the audit's schema registered under its
    `$id`, which the ecosystem schema names for each consumer's findings."""
    from referencing import Registry, Resource

    schema = json.loads(ECOSYSTEM_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    audit = report_validator.schema
    registry: Registry[Any] = Registry().with_resource(audit["$id"], Resource.from_contents(audit))
    return jsonschema.Draft202012Validator(schema, registry=registry)


@pytest.fixture(scope="session", autouse=True)
def _json_reports_follow_the_schema(
    report_validator: jsonschema.Draft202012Validator,
) -> Iterator[None]:
    """Wrap json_report.render for the session: each document it returns must validate."""
    original = json_report.render

    def render(report: Report, *, color: bool = False) -> str:
        text = original(report, color=color)
        errors = sorted(report_validator.iter_errors(json.loads(text)), key=lambda e: e.json_path)
        if errors:
            shown = "\n".join(f"  {e.json_path}: {e.message[:300]}" for e in errors[:5])
            raise AssertionError(f"the JSON report does not fit {REPORT_SCHEMA.name}:\n{shown}")
        return text

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_report, "render", render)
        yield
