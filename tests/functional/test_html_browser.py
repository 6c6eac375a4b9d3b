"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright.

The page is built from fixture cases audited with `auditor.pipeline.audit` (each case: the
consumer against `acme @ file://.../provider/0.2`, baseline 0.1), rendered as JSON and as
HTML, and opened from a file:// URL. The test checks what a reviewer relies on: no console
errors and no fetches, exactly the JSON report's findings (by fingerprint), filters, search,
grouping, the `/` shortcut, print and dark styles; it saves a screenshot in its tmp folder.

Playwright's own browser download does not work here, so the system `chromium` is launched.
Without chromium or the playwright package the tests skip locally and say why; in CI
(CI=true) they fail instead, so CI really runs them (.ci/run installs chromium).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from auditor.reporters import html, json_report

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from conftest import DriftCase

    from auditor.model import Report

CASES = ("differential", "missing-argument", "unparsable")  # kinds, statuses, files, info
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing_browser() -> str | None:
    """Why the browser test cannot run here, or None."""
    reasons = []
    if shutil.which("chromium") is None:
        reasons.append("no `chromium` on PATH (Debian: apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reasons.append("the playwright package is not installed (pip install -e '.[test]')")
    return "; ".join(reasons) or None


MISSING = missing_browser()
pytestmark = pytest.mark.skipif(
    MISSING is not None and not IN_CI, reason=f"browser test skipped: {MISSING}"
)


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium (a persistent context on a temp profile) for the module."""
    if MISSING is not None:  # only reached in CI: there a missing browser is a failure
        pytest.fail(f"CI must run the browser test, but: {MISSING}", pytrace=False)
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=shutil.which("chromium"),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
            color_scheme="light",
        )
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.fixture(scope="module")
def report(all_drift_cases: list[DriftCase], tmp_path_factory: pytest.TempPathFactory) -> Report:
    """The findings of a few fixture cases, in report order, as one report."""
    cache = tmp_path_factory.mktemp("cache")
    by_name = {case.name: case for case in all_drift_cases}
    reports = [by_name[name].audit(cache_dir=cache) for name in CASES]
    findings = sorted((f for r in reports for f in r.findings), key=lambda f: f.sort_key)
    return replace(reports[0], findings=tuple(findings))


@pytest.fixture(scope="module")
def page_file(report: Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("html")
    (folder / "report.json").write_text(json_report.render(report), encoding="utf-8")
    path = folder / "report.html"
    path.write_text(html.render(report), encoding="utf-8")
    return path


class Loaded:
    """A page opened on the report, with what it logged and fetched."""

    def __init__(self, ctx: Any, url: str) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = ctx.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("request", lambda req: self.requests.append(req.url))
        self.page.goto(url)
        self.page.wait_for_selector("#controls:not([hidden])")

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"console {message.type}: {message.text}")

    def visible(self) -> list[str]:
        """Fingerprints of the finding cards on screen, in page order."""
        return list(
            self.page.eval_on_selector_all(
                "article.finding",
                "cards => cards.filter(c => c.offsetParent !== null)"
                ".map(c => c.dataset.fingerprint)",
            )
        )

    def shown_count(self) -> int:
        return int(self.page.inner_text("#shown-count"))

    def facet(self, dim: str, value: str) -> int:
        return int(self.page.inner_text(f'[data-count="{dim}"][data-value="{value}"]'))

    def group_titles(self) -> list[str]:
        return list(
            self.page.eval_on_selector_all(
                "#findings .group:not(.empty-group) .group-title code",
                "els => els.map(e => e.textContent)",
            )
        )


@pytest.fixture(scope="module")
def opened(context: Any, page_file: Path) -> Iterator[Loaded]:
    """The page, opened once for the module (a load costs more than every check after it)."""
    page = Loaded(context, page_file.as_uri())
    yield page
    page.page.close()


@pytest.fixture
def loaded(opened: Loaded) -> Iterator[Loaded]:
    """The page as a reader finds it; after the test, no console error may have appeared."""
    page = opened.page
    page.emulate_media(media="screen", color_scheme="light")
    page.evaluate(
        """() => {
            document.getElementById("reset-filters").click();
            document.getElementById("expand-all").click();
            document.activeElement.blur();
        }"""
    )
    yield opened
    assert opened.errors == []


def _json(page_file: Path) -> list[dict[str, Any]]:
    data = json.loads((page_file.parent / "report.json").read_text(encoding="utf-8"))
    findings: list[dict[str, Any]] = data["findings"]
    return findings


def _fingerprints(findings: list[dict[str, Any]], **where: str) -> list[str]:
    return sorted(f["fingerprint"] for f in findings if all(f[k] == v for k, v in where.items()))


def test_page_loads_without_errors_or_fetches_and_shows_every_json_finding(
    loaded: Loaded, page_file: Path, tmp_path: Path
) -> None:
    findings = _json(page_file)
    assert len(findings) >= 10
    assert sorted(loaded.visible()) == _fingerprints(findings)
    assert loaded.shown_count() == len(findings)
    assert loaded.errors == []
    assert {url.split(":", 1)[0] for url in loaded.requests} <= {"file", "data"}
    assert loaded.page.title().startswith("drift-audit: widget against acme 0.2")
    shot = tmp_path / "report.png"
    loaded.page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


CARD_FACTS = """cards => Object.fromEntries(cards.map(c => [c.dataset.fingerprint, {
    text: c.innerText,
    hits: Array.from(c.querySelectorAll(".line.hit"), l => +l.dataset.line),
    marked: Array.from(c.querySelectorAll(".line mark"), m => m.textContent),
    headers: Array.from(c.querySelectorAll(".sig thead th"), th => th.textContent),
    focus: c.querySelectorAll(".sig tr.focus").length,
}]))"""


def test_each_card_shows_code_signatures_chain_and_first_release(
    loaded: Loaded, page_file: Path
) -> None:
    facts = loaded.page.eval_on_selector_all("article.finding", CARD_FACTS)
    for finding in _json(page_file):
        card = facts[finding["fingerprint"]]
        assert finding["message"] in card["text"]
        assert f"{finding['path']}:{finding['line']}:{finding['column']}" in card["text"]
        if finding["source"]:
            assert card["hits"][0] == finding["line"], finding["message"]
            span = (finding["end_line"], finding["end_column"]) > (
                finding["line"],
                finding["column"],
            )
            assert bool(card["marked"]) == span, finding["message"]
        if finding["baseline_signature"] and finding["target_signature"]:
            assert card["headers"] == ["baseline 0.1", "target 0.2"]
        if finding["status"] == "new" and finding["kind"] != "unparsable":
            assert card["focus"] == 1, finding["message"]
        if finding["first_broken"]:
            assert "first broken in" in card["text"].lower()
            assert f"acme {finding['first_broken']}" in card["text"]
        if finding["status"] == "preexisting":
            assert "already broken in the baseline 0.1" in card["text"]
        elif finding["first_broken"]:
            assert f"broken in acme {finding['first_broken']}" in card["text"]
        for chain in finding["reached_from"]:
            assert chain[0] in card["text"]


def test_kind_and_status_filters_change_the_visible_set_and_the_counts(
    loaded: Loaded, page_file: Path
) -> None:
    findings = _json(page_file)
    page = loaded.page
    page.uncheck('input[name="status"][value="preexisting"]')
    assert sorted(loaded.visible()) == _fingerprints(findings, status="new")
    assert loaded.shown_count() == len(_fingerprints(findings, status="new"))
    new_keyword = _fingerprints(findings, status="new", kind="unexpected-keyword")
    assert loaded.facet("kind", "unexpected-keyword") == len(new_keyword)
    assert loaded.facet("status", "preexisting") == len(
        _fingerprints(findings, status="preexisting")
    )  # a facet counts under the other filters, not its own
    page.uncheck('input[name="kind"][value="missing-argument"]')
    expected = sorted(
        f["fingerprint"]
        for f in findings
        if f["status"] == "new" and f["kind"] != "missing-argument"
    )
    assert sorted(loaded.visible()) == expected
    assert "widget/broken.py" in page.inner_text("#findings")  # unparsable: an error now
    page.uncheck('input[name="kind"][value="unparsable"]')
    assert "widget/broken.py" not in page.inner_text("#findings")
    page.click("#reset-filters")
    assert loaded.shown_count() == len(findings)
    assert loaded.errors == []


def test_file_filter_and_search_narrow_the_findings(loaded: Loaded, page_file: Path) -> None:
    findings = _json(page_file)
    page = loaded.page
    page.select_option("#filter-file", "widget/engine.py")
    assert sorted(loaded.visible()) == _fingerprints(findings, path="widget/engine.py")
    assert loaded.facet("kind", "too-many-positional") == 0
    page.select_option("#filter-file", "")
    target = findings[3]
    page.fill("#search", f"{target['path']}:{target['line']}:{target['column']}")
    assert loaded.visible() == [target["fingerprint"]]
    assert loaded.shown_count() == 1
    page.fill("#search", "no such text anywhere")
    assert loaded.visible() == []
    assert page.is_visible("#empty")
    page.press("#search", "Escape")
    assert loaded.shown_count() == len(findings)


def test_grouping_switches_between_symbols_and_files(loaded: Loaded, page_file: Path) -> None:
    findings = _json(page_file)
    assert loaded.group_titles() == sorted({f["symbol"] for f in findings})
    loaded.page.check('input[name="group"][value="file"]')
    assert loaded.group_titles() == sorted({f["path"] for f in findings})
    counts = loaded.page.eval_on_selector_all(
        "#findings .group",
        "gs => gs.map(g => [g.dataset.key, +g.querySelector('.group-count')"
        ".textContent, g.querySelectorAll('article').length])",
    )
    for key, shown, cards in counts:
        assert shown == cards == sum(f["path"] == key for f in findings)
    assert sorted(loaded.visible()) == _fingerprints(findings)
    loaded.page.check('input[name="group"][value="symbol"]')
    assert loaded.group_titles() == sorted({f["symbol"] for f in findings})


def test_keyboard_slash_focuses_search_and_cards_collapse(loaded: Loaded) -> None:
    page = loaded.page
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("queue")
    page.keyboard.press("Escape")
    assert page.input_value("#search") == ""
    toggle = page.locator("article.finding .toggle").first
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert page.locator("article.finding .finding-body").first.is_hidden()
    page.click("#expand-all")
    assert toggle.get_attribute("aria-expanded") == "true"


def test_print_shows_everything_and_hides_controls(loaded: Loaded) -> None:
    page = loaded.page
    page.uncheck('input[name="status"][value="new"]')
    page.click("#collapse-all")
    page.emulate_media(media="print")
    assert page.is_hidden("#controls")
    hidden = page.eval_on_selector_all(
        "article.finding, article.finding .finding-body",
        "els => els.filter(e => e.offsetParent === null).length",
    )
    assert hidden == 0
    page.emulate_media(media="screen")


def test_dark_mode_follows_the_system(loaded: Loaded) -> None:
    page = loaded.page
    background = "getComputedStyle(document.documentElement).backgroundColor"
    light = page.evaluate(background)
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate(background)
    assert light == "rgb(255, 255, 255)"
    assert dark != light


RANKS = {"error": 0, "warning": 1, "info": 2}
GROUP_RANKS = """gs => gs.map(g => Array.from(g.querySelectorAll("article.finding"),
    c => c.dataset.severity))"""


def _ranks_in_order(loaded: Loaded) -> None:
    groups = loaded.page.eval_on_selector_all("#findings .group", GROUP_RANKS)
    firsts = [RANKS[g[0]] for g in groups]
    assert firsts == sorted(firsts), groups  # groups holding an error first, then warnings
    for group in groups:
        ranks = [RANKS[s] for s in group]
        assert ranks == sorted(ranks), group  # in a group: errors, warnings, then info


def test_errors_come_first_then_warnings_then_info(context: Any, tmp_path: Path) -> None:
    from bigreport import big_report

    mixed = big_report(60, files=6, symbols=12)  # every severity, symbols sorted apart
    assert {f.severity.value for f in mixed.findings} == set(RANKS)
    page_file = tmp_path / "mixed.html"
    page_file.write_text(html.render(mixed), encoding="utf-8")
    loaded = Loaded(context, page_file.as_uri())
    _ranks_in_order(loaded)
    loaded.page.check('input[name="group"][value="file"]')
    _ranks_in_order(loaded)
    loaded.page.check('input[name="group"][value="symbol"]')
    first = loaded.page.locator("#findings article.finding").first
    assert first.get_attribute("data-severity") == "error"
    assert loaded.errors == []
    loaded.page.close()


NO_OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"
WORDS_SPLIT = r"""(selector) => {
    // words (letters and digits) of the code in these elements drawn over two lines, though
    // they fit on one: a name may wrap after a dot, a slash, a colon or an underscore only
    const split = [];
    for (const code of document.querySelectorAll(selector)) {
        const width = code.parentElement.clientWidth;
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            for (const m of text.data.matchAll(/[A-Za-z0-9-]+/g)) {
                const range = document.createRange();
                range.setStart(text, m.index);
                range.setEnd(text, m.index + m[0].length);
                const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
                const whole = rects.reduce((sum, r) => sum + r.width, 0);
                if (rects.length > 1 && whole < width - 8) split.push(m[0]);
            }
        }
    }
    return split;
}"""
HIDDEN_COLUMNS = r"""() => Array.from(document.querySelectorAll("table"))
    .filter(t => t.getBoundingClientRect().right > window.innerWidth + 1
                 || t.scrollWidth > t.parentElement.clientWidth + 1)
    .map(t => t.id || t.className)"""
SPLIT_IDENTIFIERS = r"""() => {
    // identifiers of the signature cells drawn over two lines although they fit on one
    const split = [];
    for (const code of document.querySelectorAll(".sig td code")) {
        const text = code.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) continue;
        const width = code.closest("td").clientWidth;
        for (const m of text.data.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
            const range = document.createRange();
            range.setStart(text, m.index);
            range.setEnd(text, m.index + m[0].length);
            const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
            const whole = rects.reduce((sum, r) => sum + r.width, 0);
            if (rects.length > 1 && whole < width - 24) split.push(m[0]);
        }
    }
    return split;
}"""


LONG_PATH = "speculators/data_generation/vllm_hidden_states_generator.py"


def test_no_horizontal_overflow_on_a_phone(context: Any, tmp_path: Path) -> None:
    from bigreport import big_report

    wide = big_report(40, files=4, symbols=8)  # 30-parameter signatures, long code lines
    first = wide.findings[0]
    from auditor.model import Edit, Fix

    loc = replace(first.location, path=LONG_PATH)
    edit = Edit(LONG_PATH, loc.line, loc.column, loc.end_line, loc.end_column, "run(new=2)")
    moved = replace(first, location=loc, fix=Fix(False, "rename the keyword", (edit,)))
    page_file = tmp_path / "wide.html"
    page_file.write_text(html.render(replace(wide, findings=(moved, *wide.findings[1:]))))
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page_file.as_uri())
    page.wait_for_selector("#controls:not([hidden])")
    assert page.evaluate(NO_OVERFLOW) <= 0
    select = page.eval_on_selector("#filter-file", "s => s.getBoundingClientRect().right")
    assert select <= 390
    assert page.evaluate(SPLIT_IDENTIFIERS) == []
    # issue 35, item 8: every table's columns on screen, no kind or name split inside a word
    assert page.evaluate(HIDDEN_COLUMNS) == []
    assert page.evaluate(WORDS_SPLIT, "table th[scope=row] code") == []
    page.screenshot(path=str(tmp_path / "report-390.png"), full_page=True)
    page.close()


def test_fix_preview_is_before_and_after_and_kind_docs_keep_their_lines(
    context: Any, report: Report, tmp_path: Path
) -> None:
    from auditor.model import Edit, Fix

    first = report.findings[0]
    loc = first.location
    text = "run(\n    1,\n    new=2,\n)"
    edit = Edit(loc.path, loc.line, loc.column, loc.end_line, loc.end_column, text)
    fixed = replace(first, fix=Fix(True, "rename the keyword", (edit,)))
    page_file = tmp_path / "fix.html"
    page_file.write_text(html.render(replace(report, findings=(fixed, *report.findings[1:]))))
    page = context.new_page()
    page.goto(page_file.as_uri())
    added = page.eval_on_selector_all(
        "pre.fix-diff .d-add", "spans => spans.map(s => s.lastChild.textContent)"
    )
    removed = page.eval_on_selector_all(
        "pre.fix-diff .d-del", "spans => spans.map(s => s.lastChild.textContent)"
    )
    starts = page.eval_on_selector_all(  # where each line's code text starts on screen
        "pre.fix-diff > code > span",
        "spans => spans.map(s => { const r = document.createRange();"
        " r.selectNodeContents(s.lastChild); return r.getClientRects()[0].left; })",
    )
    page.click(".kind-doc summary")
    doc = page.inner_text(".kind-doc pre")
    body = page.inner_text("body")
    page.close()
    source = dict(first.source)
    old = [source[n] for n in range(loc.line, loc.end_line + 1)]
    before, after = old[0][: loc.column - 1], old[-1][loc.end_column - 1 :]
    assert removed == old  # the lines the fix replaces, as they are
    assert added == f"{before}{text}{after}".split("\n")  # the new ones, indented as the old
    assert len(set(starts)) == 1  # after the sign and number, every line in one column
    assert "\\x0a" not in body and "\\x0a" not in page_file.read_text()
    assert len(doc.splitlines()) > 3


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bigreport import big_report

    path = tmp_path_factory.mktemp("big") / "big.html"
    path.write_text(html.render(big_report(600, files=300, symbols=40)), encoding="utf-8")
    return path


def test_a_large_report_starts_collapsed_and_pages_its_cards(context: Any, big_page: Path) -> None:
    page = Loaded(context, big_page.as_uri())
    p = page.page
    assert p.locator("#findings article.finding").count() == 600
    assert len(page.visible()) == html.PAGE_SIZE
    assert page.shown_count() == 600
    assert p.locator(".finding-body[data-lazy]").count() == 600  # nothing rendered yet
    assert "100 of 600" in p.inner_text("#more")
    p.click("#show-more")
    assert len(page.visible()) == 2 * html.PAGE_SIZE
    p.locator("article.finding:visible .toggle").first.click()
    card = p.locator("article.finding:visible").first
    assert card.locator(".line.hit").count() == 1  # its code and signatures, once opened
    assert card.locator(".sig tbody tr").count() > 30
    p.fill("#search", "module_042.py value_7")  # value_7: only in the lazy body's code
    assert page.shown_count() == 1
    assert len(page.visible()) == 1
    p.click("#reset-filters")
    assert page.errors == []
    p.close()


def test_a_large_report_ranks_its_top_symbols_first(context: Any, big_page: Path) -> None:
    page = Loaded(context, big_page.as_uri())
    p = page.page
    order = p.evaluate(
        "() => [document.getElementById('top-symbols'), document.getElementById('findings')]"
        ".map(e => e.getBoundingClientRect().top)"
    )
    assert order[0] < order[1]
    rows = p.eval_on_selector_all(
        "#top-symbols tbody tr", "rs => rs.map(r => Array.from(r.cells, c => c.innerText))"
    )
    assert len(rows) == html.TOP_SYMBOLS
    errors = [int(r[3]) for r in rows]
    new = [int(r[2]) for r in rows]
    assert new[0] == max(new)
    assert errors[0] >= errors[-1]
    symbol = rows[0][0]
    p.click("#top-symbols a.symbol-link >> nth=0")
    assert page.shown_count() == int(rows[0][1])
    assert set(p.eval_on_selector_all(
        "article.finding:not(.filtered-out)", "cs => cs.map(c => c.dataset.symbol)"
    )) == {symbol}  # fmt: skip
    p.click("#symbol-clear")
    assert page.shown_count() == 600
    assert page.errors == []
    p.close()
