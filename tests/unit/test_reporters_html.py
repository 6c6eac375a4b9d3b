"""The HTML reporter on literal Reports: escaping, determinism, completeness, the page model."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from auditor.kinds import Kind
from auditor.model import ConsumerInfo, Finding, Location, ProviderInfo, Report, Stats, Status
from auditor.reporters import REPORTERS, html

EVIL = "<script>alert('x')</script>"
PATH = "widget/gen.py"


def make_finding(kind: Kind, line: int, **overrides: Any) -> Finding:
    fields: dict[str, Any] = {
        "kind": kind,
        "location": Location(PATH, line, 5, line, 12),
        "scope": "widget.gen.build",
        "symbol": "acme.Scheduler",
        "parameter": None,
        "broken_in": ("0.17.0",),
        "baseline_signature": None,
        "target_signature": None,
    }
    fields.update(overrides)
    return Finding(**fields)


KEYWORD = make_finding(
    Kind.UNEXPECTED_KEYWORD,
    3,
    location=Location(PATH, 3, 9, 3, 23),
    symbol="acme.kv.get_config",
    parameter="kv_cache_specs",
    broken_in=("0.16.0", "0.17.0"),
    baseline_signature="(vllm_config, groups: list[int], kv_cache_specs: dict[str, X], mem: int)",
    target_signature="(vllm_config, groups: list[int], mem: int)",
    reached_from=(("widget.cli", "widget.cli.main", "widget.gen.build"),),
    suggestion=f"drop it; see {EVIL}",
    source=(
        (2, "    cfg = get_config("),
        (3, "        kv_cache_specs=specs,  # " + EVIL),
        (4, "    )"),
    ),
)
MISSING = make_finding(
    Kind.MISSING_ARGUMENT,
    10,
    location=Location(PATH, 10, 10, 12, 6),
    parameter="block_size",
    baseline_signature="(config, *, log: Optional[bool] = None) -> None",
    target_signature="(config, block_size: int, *, log: bool | None = None) -> None",
    source=((10, "\tsched = Scheduler("), (11, "\t\tconfig,"), (12, "\t)")),
)
SCRIPTED = make_finding(
    Kind.REMOVED_SYMBOL,
    20,
    location=Location("widget/<odd> & 'name'.py", 20, 1, 20, 5),
    symbol=f"acme.{EVIL}",
    status=Status.PREEXISTING,
    broken_in=("0.16.0", "0.17.0"),
)
TWIN_A = make_finding(Kind.DEPRECATED, 30, status=Status.SUPPRESSED)
TWIN_B = make_finding(Kind.DEPRECATED, 31, status=Status.SUPPRESSED)  # same fingerprint
INFO = make_finding(
    Kind.CHANGED_DEFAULT, 40, parameter="dtype", broken_in=("0.17.0",), status=Status.BASELINED
)

REPORT = Report(
    consumer=ConsumerInfo("widget", "1.0", 'folder /src/"widget" & co'),
    provider=ProviderInfo("acme", "0.11.0", ("0.16.0", "0.17.0")),
    findings=(KEYWORD, MISSING, SCRIPTED, TWIN_A, TWIN_B, INFO),
    stats=Stats(files_scanned=3, call_sites=7, provider_modules_loaded=2, seconds=0.25),
)
ONE_TARGET = Report(
    consumer=ConsumerInfo("widget", None, "folder /src/widget"),
    provider=ProviderInfo("acme", None, ("0.2",)),
    findings=(make_finding(Kind.REMOVED_MODULE, 1, broken_in=("0.2",)),),
)
EMPTY = Report(
    consumer=ConsumerInfo("widget", None, "folder /src/widget"),
    provider=ProviderInfo("acme", None, ("0.2",)),
    findings=(),
)


class Tags(HTMLParser):
    """Collects start tags with their attributes, and the text of <script> and <style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.blocks: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.blocks[self._in] = self.blocks.get(self._in, "") + data

    def with_attr(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for _, attrs in self.tags if name in attrs]


def parse(report: Report) -> Tags:
    tags = Tags()
    tags.feed(html.render(report))
    return tags


# --------------------------------------------------------------------------- the page


def test_html_is_registered_and_ignores_colour() -> None:
    assert REPORTERS["html"] is html.render
    assert html.render(REPORT, color=True) == html.render(REPORT, color=False)


def test_html_output_is_deterministic_and_ends_with_a_newline() -> None:
    first = html.render(REPORT)
    assert first == html.render(REPORT)
    assert first.startswith("<!DOCTYPE html>")
    assert first.endswith("</html>\n")


def test_script_in_code_messages_and_paths_is_escaped() -> None:
    out = html.render(REPORT)
    assert EVIL not in out
    assert "alert(" not in parse(REPORT).blocks["script"]
    assert out.count("<script") == 1  # the page's own script, nothing injected
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in out
    assert 'data-path="widget/&lt;odd&gt; &amp; &#39;name&#39;.py"' in out
    assert "(folder /src/&#34;widget&#34; &amp; co)" in out


def test_every_finding_is_one_card_with_its_facts_as_data_attributes() -> None:
    cards = [attrs for tag, attrs in parse(REPORT).tags if tag == "article"]
    assert sorted(c["data-fingerprint"] or "" for c in cards) == sorted(
        f.fingerprint for f in REPORT.findings
    )
    assert len({c["id"] for c in cards}) == len(REPORT.findings)  # twins get their own ids
    first = next(c for c in cards if c["data-fingerprint"] == KEYWORD.fingerprint)
    assert first["data-kind"] == "unexpected-keyword"
    assert first["data-severity"] == "error"
    assert first["data-status"] == "new"
    assert first["data-path"] == PATH
    assert first["data-symbol"] == "acme.kv.get_config"


def test_cards_are_grouped_by_symbol_in_sorted_order_without_script() -> None:
    keys = [
        attrs["data-key"]
        for tag, attrs in parse(REPORT).tags
        if tag == "section" and attrs.get("class") == "group"
    ]
    assert keys == sorted({f.symbol for f in REPORT.findings})


def test_the_page_loads_nothing_and_allows_only_its_own_inline_blocks() -> None:
    tags = parse(REPORT)
    policy = next(
        a["content"] for t, a in tags.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    for block in ("style", "script"):
        digest = hashlib.sha256(tags.blocks[block].encode()).digest()
        assert f"'sha256-{base64.b64encode(digest).decode()}'" in policy
    assert "default-src 'none'" in policy
    assert tags.with_attr("src") == []
    assert [a["href"] for t, a in tags.tags if t == "link"] == ["data:,"]
    assert not re.search(r"@import|url\(", tags.blocks["style"])


def test_header_names_consumer_provider_baseline_targets_and_counts() -> None:
    out = html.render(REPORT)
    assert (
        "<title>drift-audit: widget 1.0 against acme 0.16.0, 0.17.0 (baseline 0.11.0)</title>"
        in out
    )
    assert "<dt>Baseline</dt><dd>0.11.0</dd>" in out
    assert "<dt>Targets</dt><dd>0.16.0, 0.17.0</dd>" in out
    assert '<li class="tile sev-error"><strong>2</strong> new errors</li>' in out
    assert "<strong>1</strong> preexisting" in out
    assert "<strong>2</strong> suppressed" in out
    row = re.search(r"<tr><th scope=\"row\"><code>deprecated</code>.*?</tr>", out)
    assert row is not None
    counts = re.findall(r'<td class="num[^"]*"[^>]*>(\d+)</td>', row.group())
    assert counts == ["0", "0", "0", "2", "2"]


def test_release_matrix_marks_each_target_per_finding() -> None:
    out = html.render(REPORT)
    rows = re.findall(r'<tr data-row-for="(finding-\d+)">(.*?)</tr>', out)
    assert [r[0] for r in rows] == [f"finding-{i}" for i in range(1, 7)]
    cells = {anchor: re.findall(r'<td class="rel (broken|ok)"', body) for anchor, body in rows}
    assert cells["finding-1"] == ["broken", "broken"]  # KEYWORD: 0.16.0 and 0.17.0
    assert cells["finding-2"] == ["ok", "broken"]  # MISSING: 0.17.0 only
    assert "Releases and findings" not in html.render(ONE_TARGET)


def test_source_lines_mark_the_site() -> None:
    out = html.render(REPORT)
    assert (
        '<span class="line hit" data-line="3">        <mark>kv_cache_specs</mark>=specs,  # ' in out
    )
    assert '<span class="line" data-line="2">    cfg = get_config(</span>' in out
    # a call spanning lines: every line of it is a hit; the first is marked to its end
    assert '<span class="line hit" data-line="10">\tsched = <mark>Scheduler(</mark></span>' in out
    assert '<span class="line hit" data-line="11">\t\tconfig,</span>' in out


def test_signatures_side_by_side_with_the_parameter_highlighted() -> None:
    out = html.render(REPORT)
    removed = re.search(r'<tr class="sig-removed focus">(.*?)</tr>', out)
    assert removed is not None
    assert "<code>kv_cache_specs: dict[str, X]</code>" in removed.group(1)
    added = re.search(r'<tr class="sig-added focus">(.*?)</tr>', out)
    assert added is not None
    assert "<code>block_size: int</code>" in added.group(1)
    assert '<th scope="col">baseline 0.11.0</th><th scope="col">target 0.17.0</th>' in out


def test_empty_report_says_no_drift_and_has_no_controls() -> None:
    out = html.render(EMPTY)
    assert "No drift found" in out
    assert 'id="controls"' not in out
    assert "Releases and findings" not in out


def test_assets_never_close_their_inline_block() -> None:
    static = html.assets()
    assert "</" not in static.script
    assert "</" not in static.style


# --------------------------------------------------------------------------- the model


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("a, b", ["a", "b"]),
        (
            "a: dict[str, int] = {'x': (1, 2)}, *, c",
            ["a: dict[str, int] = {'x': (1, 2)}", "*", "c"],
        ),
        ("s: str = ',', t = \"a,b\"", ["s: str = ','", 't = "a,b"']),
        ("", []),
    ],
)
def test_split_top_level_ignores_commas_in_brackets_and_strings(
    text: str, parts: list[str]
) -> None:
    assert html.split_top_level(text) == parts


def test_parse_signature_reads_params_and_return() -> None:
    parsed = html.safe_parse_signature("(a, b: int = 2, *, c) -> dict[str, int]")
    assert parsed == html.ParsedSignature(("a", "b: int = 2", "*", "c"), "dict[str, int]")
    assert html.safe_parse_signature("()") == html.ParsedSignature((), None)
    assert html.safe_parse_signature("not a signature") is None
    assert html.safe_parse_signature("(a, b") is None
    assert html.safe_parse_signature(None) is None


@pytest.mark.parametrize(
    ("param", "name"),
    [
        ("**kw: Any", "kw"),
        ("*args", "args"),
        ("b: int = 2", "b"),
        ("c=3", "c"),
        ("*", "*"),
        ("/", "/"),
    ],
)
def test_param_name(param: str, name: str) -> None:
    assert html.param_name(param) == name


def test_diff_marks_removed_added_changed_and_focus() -> None:
    rows = html.diff_signatures(
        "(a, b: int = 1, gone, c: Optional[list[int]]) -> X",
        "(a, b: int = 2, new, c: list[int] | None) -> Y",
        "new",
    )
    assert [(r.before, r.after, r.change, r.focus) for r in rows] == [
        ("a", "a", "same", False),
        ("b: int = 1", "b: int = 2", "changed", False),
        ("gone", None, "removed", False),
        (None, "new", "added", True),
        ("c: Optional[list[int]]", "c: list[int] | None", "same", False),
        ("X", "Y", "changed-return", False),
    ]


def test_diff_of_one_known_signature_lists_it_alone() -> None:
    rows = html.diff_signatures(None, "(a, b)", "b")
    assert [(r.before, r.after, r.change, r.focus) for r in rows] == [
        (None, "a", "same", False),
        (None, "b", "same", True),
    ]
    assert html.diff_signatures(None, None, None) == []
    assert html.diff_signatures("<unknown>", "<unknown>", None) == []


def test_unparsable_signatures_are_shown_raw() -> None:
    odd = make_finding(
        Kind.UNEXPECTED_KEYWORD, 1, baseline_signature="<built-in>", target_signature="<?>"
    )
    report = Report(REPORT.consumer, REPORT.provider, (odd,))
    out = html.render(report)
    assert "baseline: &lt;built-in&gt;\ntarget:   &lt;?&gt;</pre>" in out


def test_chain_steps_show_each_step_relative_to_the_last() -> None:
    steps = html.chain_steps(["pkg.mod", "pkg.mod.Cls", "pkg.mod.Cls.run", "other.f"])
    assert [s.shown for s in steps] == ["pkg.mod", ".Cls", ".run", "other.f"]
    assert steps[2].full == "pkg.mod.Cls.run"
