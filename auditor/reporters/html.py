# Maintainers: the self-contained HTML report a reviewer reads before approving an upgrade.
#
# Owns: turning a Report into a page model (plain frozen data: header facts, counts, the
# release-by-finding matrix, and per finding its source lines with the site marked and its
# two signatures diffed parameter by parameter, and its proposed fix as before/after lines),
# and rendering that model with the jinja2
# template in templates/ (autoescape on; CSS and script inlined from templates/report.css and
# templates/report.js; a Content-Security-Policy with their hashes, so the page loads nothing
# and runs nothing else). jinja2 is imported here and nowhere else, lazily, so the CLI starts
# fast. What the settings narrowed (kinds and files left out, findings let past the gate) is
# a note in the summary, and a finding let past the gate says so beside its status.
# Like every reporter it never filters or sorts the findings: filtering, search and
# grouping happen in the reader's browser. The output is deterministic (no clock, no random
# ids); only `stats.seconds`, which is in the report, varies between identical runs.
"""HTML reporter: one self-contained page with filters, search and signature diffs."""

from __future__ import annotations

import base64
import difflib
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from auditor import kinddocs
from auditor.escape import visible, visible_lines
from auditor.kinds import Kind, Severity
from auditor.model import Status
from auditor.reporters.common import (
    count_by_kind,
    modules_phrase,
    not_checked_note,
    provider_line,
    tally,
    tool_version,
    ungated_note,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    import jinja2
    from markupsafe import Markup

    from auditor.model import Edit, Finding, Location, Report, Ungated

NAME = "html"
LAZY_FINDINGS = 200  # above this, cards start collapsed and their details load when opened
PAGE_SIZE = 100  # a large report shows this many cards, then "Show more"
TOP_SYMBOLS = 20  # rows of the "top symbols" table
TOP_SYMBOLS_FROM = 20  # the table is shown for reports of at least this many findings

TEMPLATE = "report.html.j2"
BODY = "finding_body.html.j2"
STYLE = "report.css"
SCRIPT = "report.js"

_OPEN = "([{"
_CLOSE = ")]}"


# --------------------------------------------------------------------------- signatures


@dataclass(frozen=True, slots=True)
class ParsedSignature:
    """`(a, b: int = 2, *, c) -> R` split into its parameter texts and return annotation."""

    params: tuple[str, ...]
    returns: str | None


@dataclass(frozen=True, slots=True)
class SigRow:
    """One row of the side-by-side signatures: a baseline and a target parameter text.

    `change` is `same`, `changed`, `added` (target only), `removed` (baseline only) or
    `return` (the return annotation row, `changed_return` tells if it differs).
    """

    before: str | None
    after: str | None
    change: str
    focus: bool = False


def _outside_strings(text: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) for every character outside strings."""
    depth, quote, i = 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        else:
            yield i, ch, depth
            if ch in _OPEN:
                depth += 1
            elif ch in _CLOSE:
                depth -= 1
        i += 1


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside brackets and string literals; parts are stripped, empties kept out."""
    parts: list[str] = []
    start = 0
    for i, ch, depth in _outside_strings(text):
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _closing_paren(text: str) -> int | None:
    """Index of the `)` that closes the `(` at text[0], else None."""
    for i, ch, depth in _outside_strings(text):
        if ch in _CLOSE and depth == 1:
            return i
    return None


def safe_parse_signature(text: str | None) -> ParsedSignature | None:
    """Parse a signature string as `Signature.__str__` writes it; None when it does not fit."""
    if text is None:
        return None
    text = text.strip()
    close = _closing_paren(text) if text.startswith("(") else None
    if close is None:
        return None
    rest = text[close + 1 :].strip()
    if rest and not rest.startswith("->"):
        return None
    returns = (rest[2:].strip() or None) if rest else None
    return ParsedSignature(tuple(split_top_level(text[1:close])), returns)


def param_name(param: str) -> str:
    """`**kw: Any` -> `kw`; `b: int = 2` -> `b`; the markers `*` and `/` stay as they are."""
    if param in ("*", "/"):
        return param
    head = re.split(r"[:=]", param, maxsplit=1)[0]
    return head.strip().lstrip("*").strip()


def normalize(text: str) -> str:
    """Spelling-insensitive form for comparing: no spaces, `Optional[X]` read as `X|None`."""
    out = re.sub(r"\s+", "", text)
    while (start := out.find("Optional[")) != -1:
        inner_start = start + len("Optional[")
        depth, end = 1, inner_start
        while end < len(out) and depth:
            depth += {"[": 1, "]": -1}.get(out[end], 0)
            end += 1
        if depth:
            break
        out = f"{out[:start]}{out[inner_start : end - 1]}|None{out[end:]}"
    return out


def diff_signatures(before: str | None, after: str | None, focus: str | None) -> list[SigRow]:
    """Side-by-side rows of two signatures: parameters aligned by name, changes marked.

    Returns [] when neither signature parses; a lone signature gives rows on one side only.
    """
    old, new = safe_parse_signature(before), safe_parse_signature(after)
    if old is None and new is None:
        return []
    left = old.params if old else ()
    right = new.params if new else ()
    rows = _param_rows(left, right, one_sided=old is None or new is None)
    rows = [_focused(row, focus) for row in rows]
    old_ret = old.returns if old else None
    new_ret = new.returns if new else None
    if old_ret or new_ret:
        same = old is None or new is None or normalize(old_ret or "") == normalize(new_ret or "")
        rows.append(SigRow(old_ret, new_ret, "return" if same else "changed-return"))
    return rows


def _param_rows(left: Sequence[str], right: Sequence[str], *, one_sided: bool) -> list[SigRow]:
    if one_sided:
        return [SigRow(p, None, "same") for p in left] + [SigRow(None, p, "same") for p in right]
    names_l = [param_name(p) for p in left]
    names_r = [param_name(p) for p in right]
    matcher = difflib.SequenceMatcher(None, names_l, names_r, autojunk=False)
    rows: list[SigRow] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for a, b in zip(left[i1:i2], right[j1:j2], strict=True):
                rows.append(SigRow(a, b, "same" if normalize(a) == normalize(b) else "changed"))
            continue
        removed, added = left[i1:i2], right[j1:j2]
        rows += [SigRow(p, None, "removed") for p in removed]
        rows += [SigRow(None, p, "added") for p in added]
    return rows


def _focused(row: SigRow, focus: str | None) -> SigRow:
    names = {param_name(t) for t in (row.before, row.after) if t is not None}
    if focus is None or focus not in names:
        return row
    return SigRow(row.before, row.after, row.change, focus=True)


# --------------------------------------------------------------------------- source lines


@dataclass(frozen=True, slots=True)
class SourceLine:
    """A consumer line; on the site's lines `mark` is the highlighted part of `text`."""

    number: int
    before: str
    mark: str
    after: str
    hit: bool


def source_lines(finding: Finding) -> list[SourceLine]:
    """The finding's context lines; the site's lines are hits, its first line's span marked.

    The span runs from the site's column to its end column, or to the end of the line when
    the site spans several lines (as the text reporter's caret does).
    """
    loc = finding.location
    return [_source_line(number, text, loc) for number, text in finding.source]


def _source_line(number: int, text: str, loc: Location) -> SourceLine:
    hit = loc.line <= number <= max(loc.line, loc.end_line)
    if number != loc.line:
        return SourceLine(number, text, "", "", hit=hit)
    start = min(max(loc.column - 1, 0), len(text))
    end = loc.end_column - 1 if loc.end_line == loc.line else len(text)
    end = min(max(end, start), len(text))
    return SourceLine(number, text[:start], text[start:end], text[end:], hit=True)


# --------------------------------------------------------------------------- fix previews


@dataclass(frozen=True, slots=True)
class DiffLine:
    """A line of a fix's preview: kept (` `), removed (`-`) or added (`+`), and its number
    in the file before (kept, removed) or after the fix (added)."""

    sign: str
    number: int
    text: str

    @property
    def css(self) -> str:
        return {" ": "keep", "-": "del", "+": "add"}[self.sign]


@dataclass(frozen=True, slots=True)
class FixView:
    """One edit of a proposed fix: where, and its before/after lines (none when the lines it
    replaces are not at hand: then `text`, the edit's new text, is shown alone)."""

    where: str
    lines: tuple[DiffLine, ...]
    text: str


CUT_MARK = " …["  # findings.bounded() ends a line it cut so: a cut line is no line to diff


def fix_views(finding: Finding) -> list[FixView]:
    """The finding's fix as before/after previews, one per edit."""
    if finding.fix is None:
        return []
    same_file = all(e.path == finding.location.path for e in finding.fix.edits)
    source = dict(finding.source) if same_file else {}
    return [
        FixView(f"{e.path}:{e.line}", tuple(_diff_lines(e, source)), e.text)
        for e in finding.fix.edits
    ]


def _diff_lines(edit: Edit, source: Mapping[int, str]) -> list[DiffLine]:
    """The lines the edit replaces and the lines it makes, with the text around the edited
    span on its first and last line kept (so the new lines sit where the old ones did);
    lines the same on both sides are kept once. [] when a line is not at hand (the
    finding's code frame holds its own file's lines) or was cut."""
    first, last = edit.line, edit.end_line
    numbers = range(first, last + 1)
    if any(n not in source or CUT_MARK in source[n] for n in numbers):
        return []
    before = [source[n].rstrip("\r\n") for n in numbers]
    head, tail = before[0][: edit.column - 1], before[-1][edit.end_column - 1 :]
    after = f"{head}{edit.text}{tail}".split("\n")
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [DiffLine(" ", first + i, before[i]) for i in range(i1, i2)]
            continue
        out += [DiffLine("-", first + i, before[i]) for i in range(i1, i2)]
        out += [DiffLine("+", first + j, after[j]) for j in range(j1, j2)]
    return out


# --------------------------------------------------------------------------- call chains


@dataclass(frozen=True, slots=True)
class ChainStep:
    """One step of a call chain: the full dotted path, and what to show after the previous."""

    full: str
    shown: str


def chain_steps(chain: Sequence[str]) -> list[ChainStep]:
    """`a.b`, `a.b.C`, `a.b.C.f` shows as `a.b`, `.C`, `.f`: each step relative to the last."""
    steps: list[ChainStep] = []
    previous = ""
    for name in chain:
        relative = previous and name.startswith(previous + ".")
        steps.append(ChainStep(name, name[len(previous) :] if relative else name))
        previous = name
    return steps


# --------------------------------------------------------------------------- the page model


@dataclass(frozen=True, slots=True)
class FindingView:
    """What the template shows for one finding."""

    anchor: str
    index: int  # 0-based, in report order: a lazy body's place in the page's body list
    finding: Finding
    docs: str
    target_label: str
    signature_rows: tuple[SigRow, ...]
    lines: tuple[SourceLine, ...]
    chains: tuple[tuple[ChainStep, ...], ...]
    broken: tuple[bool, ...]  # per report target: broken there?
    ungated: str | None = None  # the setting that lets it past the gate (gate-tests off)
    fixes: tuple[FixView, ...] = ()  # the proposed fix's edits, as before/after previews

    @property
    def parameter_label(self) -> str:
        return "reason" if self.finding.kind is Kind.UNPARSABLE else "parameter"


@dataclass(frozen=True, slots=True)
class Facet:
    """One filter value and how many findings have it."""

    value: str
    count: int


@dataclass(frozen=True, slots=True)
class Group:
    key: str
    views: tuple[FindingView, ...]


def finding_view(
    index: int, finding: Finding, targets: Sequence[str], ungated: Ungated | None = None
) -> FindingView:
    label = finding.broken_in[-1] if finding.broken_in else (targets[-1] if targets else "")
    return FindingView(
        anchor=f"finding-{index}",
        index=index - 1,
        finding=finding,
        docs=f"#kind-{finding.kind.slug}",
        target_label=label,
        signature_rows=tuple(
            diff_signatures(finding.baseline_signature, finding.target_signature, finding.parameter)
        ),
        lines=tuple(source_lines(finding)),
        chains=tuple(tuple(chain_steps(chain)) for chain in finding.reached_from),
        broken=tuple(t in finding.broken_in for t in targets),
        ungated=ungated.by if ungated is not None else None,
        fixes=tuple(fix_views(finding)),
    )


def facets(values: Sequence[str], order: Sequence[str] | None = None) -> list[Facet]:
    """Each distinct value with its count; in `order` when given, else first seen."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    keys = [v for v in order if v in counts] if order is not None else list(counts)
    return [Facet(k, counts[k]) for k in keys]


SEVERITY_RANK = {severity: rank for rank, severity in enumerate(Severity)}  # error first


def groups_by_symbol(views: Sequence[FindingView]) -> list[Group]:
    """The default grouping, for a reader without script: by symbol, the groups holding an
    error first, then those with a warning, then info; symbols sorted within each; in a
    group, its errors, warnings, then info, each in report order (report.js does the same)."""
    by: dict[str, list[FindingView]] = {}
    for view in views:
        by.setdefault(view.finding.symbol, []).append(view)
    groups = [
        Group(key, tuple(sorted(by[key], key=lambda v: SEVERITY_RANK[v.finding.severity])))
        for key in by
    ]
    return sorted(groups, key=lambda g: (SEVERITY_RANK[g.views[0].finding.severity], g.key))


@dataclass(frozen=True, slots=True)
class SymbolRow:
    """A row of the "top symbols" table: a provider symbol and what its findings are."""

    symbol: str
    findings: int
    new: int
    errors: int
    warnings: int
    files: int


def top_symbols(findings: Sequence[Finding], limit: int = TOP_SYMBOLS) -> list[SymbolRow]:
    """The symbols with the most new errors, then the most errors, then the most findings."""
    by: dict[str, list[Finding]] = {}
    for f in findings:
        by.setdefault(f.symbol, []).append(f)
    rows = [
        SymbolRow(
            symbol,
            len(fs),
            sum(f.status is Status.NEW for f in fs),
            sum(f.severity is Severity.ERROR for f in fs),
            sum(f.severity is Severity.WARNING for f in fs),
            len({f.location.path for f in fs}),
        )
        for symbol, fs in by.items()
    ]
    new_errors = {
        s: sum(f.status is Status.NEW and f.severity is Severity.ERROR for f in fs)
        for s, fs in by.items()
    }
    rows.sort(key=lambda r: (-new_errors[r.symbol], -r.errors, -r.findings, r.symbol))
    return rows[:limit]


def modules_note(report: Report) -> str:
    """How the provider was read, for the header: parsed here, answered from the cache's
    lookup memo (a warm run parses nothing), or nothing at all (a replayed report)."""
    stats = report.stats
    parsed, cached = stats.provider_modules_loaded, stats.provider_modules_cached
    if stats.replayed:
        return "nothing parsed (replayed from an earlier run)"
    if not parsed and not cached:
        return "no provider module read"
    return modules_phrase(report)


def page(report: Report) -> dict[str, object]:
    """Everything the template needs, as plain values."""
    targets = report.provider.targets
    views = [
        finding_view(i, f, targets, report.let_pass_by(f))
        for i, f in enumerate(report.findings, start=1)
    ]
    findings = report.findings
    return {
        "title": f"drift-audit: {provider_line(report)}",
        "report": report,
        "left_out_note": not_checked_note(report),
        "ungated_note": ungated_note(report),
        "tool_version": tool_version(),
        "tally": tally(findings, report.hidden),
        "modules_note": modules_note(report),
        "by_kind": count_by_kind(findings),
        "statuses": list(Status),
        "severity_counts": facets(
            [f.severity.value for f in findings], [s.value for s in Severity]
        ),
        "kind_facets": facets([f.kind.slug for f in findings], [k.slug for k in Kind]),
        "severity_facets": facets(
            [f.severity.value for f in findings], [s.value for s in Severity]
        ),
        "status_facets": facets([f.status.value for f in findings], [s.value for s in Status]),
        "file_facets": facets(
            [f.location.path for f in findings], sorted({f.location.path for f in findings})
        ),
        "views": views,
        "groups": groups_by_symbol(views),
        "lazy": len(views) > LAZY_FINDINGS,
        "page_size": PAGE_SIZE,
        "top_symbols": top_symbols(findings) if len(findings) >= TOP_SYMBOLS_FROM else [],
        "by_symbol_total": len({f.symbol for f in findings}),
        "show_matrix": len(targets) > 1 and bool(findings),
        "kind_docs": [
            (kind.slug, kinddocs.plain(kind))
            for kind in Kind
            if any(f.kind is kind for f in findings)
        ],
    }


# --------------------------------------------------------------------------- rendering


@dataclass(frozen=True, slots=True)
class Assets:
    style: str
    script: str

    @property
    def policy(self) -> str:
        """A CSP that lets only these exact inline style and script blocks run; no fetches."""
        return (
            "default-src 'none'; "
            f"style-src '{_sha256(self.style)}'; script-src '{_sha256(self.script)}'; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        )


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


@lru_cache(maxsize=1)
def assets() -> Assets:
    """The inline CSS and script, read from the package data."""
    folder = resources.files("auditor.reporters").joinpath("templates")
    style = folder.joinpath(STYLE).read_text(encoding="utf-8")
    script = folder.joinpath(SCRIPT).read_text(encoding="utf-8")
    for name, text in ((STYLE, style), (SCRIPT, script)):
        if "</" in text or "<!--" in text:  # would end the inline block early
            raise ValueError(f"templates/{name} must not contain '</' or '<!--'")
    return Assets(style, script)


class Lines(str):
    """Text the template shows on several lines (in a <pre>): the `lines` filter marks it."""

    __slots__ = ()


def _lines(value: object) -> Lines:
    return Lines(value)


def _visible(value: object) -> object:
    """Every value the template prints, before autoescape: controls and bidi overrides made
    visible, so the page shows what the bytes are: escape.visible for one-line values,
    escape.visible_lines (line feeds kept) for those marked `| lines`. Our own markup (the
    inlined CSS and script, Markup) passes as it is."""
    from markupsafe import Markup

    if isinstance(value, Lines):
        return visible_lines(value)
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value)
    return value


def _status_label(value: str) -> str:
    """A status value as the page shows it (Status.label); any other value as it is."""
    return Status(value).label if value in STATUS_VALUES else value


STATUS_VALUES = frozenset(s.value for s in Status)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The jinja2 environment: package templates, autoescape on, undefined names an error."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("auditor.reporters", "templates"),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["lines"] = _lines
    env.filters["breakable"] = breakable
    env.filters["status_label"] = _status_label
    return env


_BREAKS = re.compile(r"[./:]|(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])")  # where a name may wrap


def breakable(value: object) -> Markup:
    """A dotted name or path that may wrap after a `.`, `/` or `:`, or an `_` inside a word
    (`kv_cache`, not `__init__`), but never inside a word (a phone's narrow column breaks
    `acme.core.run` as `acme.core.` / `run`, not as `acme.co` / `re.run`): made visible and
    escaped as every value is, then <wbr> after each such character (escaping writes
    entities of `&`, `#`, digits and letters only: none of them has one)."""
    from markupsafe import Markup, escape

    shown = str(escape(_visible(str(value))))
    return Markup(_BREAKS.sub(r"\g<0><wbr>", shown))


def render_page(template_name: str, **context: object) -> str:
    """Another page of the package's templates (the ecosystem run's) rendered through the
    same environment, style and Content-Security-Policy as the audit report."""
    from markupsafe import Markup

    static = assets()
    html = (
        environment()
        .get_template(template_name)
        .render(
            **context,
            style=Markup(static.style),
            policy=static.policy,
            tool_version=tool_version(),
        )
    )
    return html if html.endswith("\n") else html + "\n"


def frame_lines(source: Sequence[Sequence[object]], location: Location) -> list[SourceLine]:
    """A code frame's lines from a JSON finding's `source` ([line, text] pairs)."""
    return [
        _source_line(int(str(number)), str(text), location)
        for number, text in source
        if isinstance(number, int)
    ]


def render(report: Report, *, color: bool = False) -> str:
    """The whole report as one self-contained HTML page, ending with a newline."""
    from markupsafe import Markup

    static = assets()
    template = environment().get_template(TEMPLATE)
    model = page(report)
    html = template.render(
        **model,
        bodies=lazy_bodies(report, model["views"]) if model["lazy"] else None,  # type: ignore[arg-type]
        style=Markup(static.style),  # our own package file, checked in assets()
        script=Markup(static.script),
        policy=static.policy,
    )
    return html if html.endswith("\n") else html + "\n"


def lazy_bodies(report: Report, views: Sequence[FindingView]) -> Markup:
    """A large report's card details: each body rendered by the same template (so escaped
    the same way) and listed, in report order, as a JSON array of HTML strings for a
    `<script type="application/json">` block the page reads when a card opens. Every `<`
    is written as \\u003c, so nothing inside can end the block or open a comment (script
    text knows no entities: `&` and `>` need nothing)."""
    import json

    from markupsafe import Markup

    body = environment().get_template(BODY)
    texts = [
        body.render(view=v, provider=report.provider, consumer=report.consumer).strip()
        for v in views
    ]
    data = json.dumps(texts, ensure_ascii=False, separators=(",", ":"))
    return Markup(data.replace("<", "\\u003c"))
