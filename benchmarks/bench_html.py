"""The HTML report at scale: how long a generated N-finding page takes to load and to
filter in Chromium (headless, through Playwright, the system `chromium`). No network.

    .venv/bin/python benchmarks/bench_html.py [--findings 3000] [--runs 3] [--out FILE.png]

The report is tests/bigreport.py's `big_report(N)`: long signatures, seven source lines and
two call chains per finding, 300 files, 400 symbols. Figures, each the median of `--runs`
fresh page loads (a new page each time, the file already on disk):

- load: from navigation start to the first frame after the load event (the page's script
  has run: controls shown, the first findings rendered), `performance.now()` in the page;
- search: one keystroke's worth (the search box set to a term, an `input` event) until the
  next frame is painted;
- facet: unchecking one severity until the next frame;
- file: choosing one file in the File filter until the next frame.

The goal (issue 24): load under 3 s, each filter under 1 s, for 3,000 findings.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from auditor.reporters import html  # noqa: E402
from tests.bigreport import big_report  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))"
TIMED = """async (action) => {
    const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    await frame();
    const t0 = performance.now();
    if (action === "search") {
        const box = document.getElementById("search");
        box.value = "module_042";
        box.dispatchEvent(new Event("input", {bubbles: true}));
    } else if (action === "facet") {
        document.querySelector('input[name="severity"][value="info"]').click();
    } else {
        const select = document.getElementById("filter-file");
        select.value = select.options[5].value;
        select.dispatchEvent(new Event("input", {bubbles: true}));
    }
    await frame();
    return performance.now() - t0;
}"""


def measure(ctx: Any, url: str) -> dict[str, float]:
    page = ctx.new_page()
    page.goto(url, wait_until="load", timeout=300_000)
    page.evaluate(NEXT_FRAME)
    figures = {"load": page.evaluate("() => performance.now()")}
    figures["nodes"] = page.evaluate("() => document.getElementsByTagName('*').length")
    for action in ("search", "facet", "file"):
        figures[action] = page.evaluate(TIMED, action)
    page.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--findings", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, help="save a screenshot of the loaded page")
    args = parser.parse_args()
    if shutil.which("chromium") is None:
        print("bench_html: no `chromium` on PATH (Debian: apt-get install chromium)")
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "big.html"
        page_file.write_text(html.render(big_report(args.findings)), encoding="utf-8")
        size = page_file.stat().st_size
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=shutil.which("chromium"), args=ARGS, headless=True
            )
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            runs = [measure(ctx, page_file.as_uri()) for _ in range(args.runs)]
            if args.out:
                page = ctx.new_page()
                page.goto(page_file.as_uri(), wait_until="load")
                page.screenshot(path=str(args.out))
            browser.close()
    median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(f"{args.findings} findings, {size / 1e6:.1f} MB, {median['nodes']:.0f} elements")
    print(f"medians of {args.runs} loads in Chromium (headless):")
    for key in ("load", "search", "facet", "file"):
        print(
            f"  {key:<7} {median[key] / 1000:7.3f} s   (runs: "
            + ", ".join(f"{r[key] / 1000:.3f}" for r in runs)
            + ")"
        )
    ok = median["load"] < 3000 and max(median[k] for k in ("search", "facet", "file")) < 1000
    print("goal (load < 3 s, filters < 1 s):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
