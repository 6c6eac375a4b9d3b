"""Trust, rounds two to four: whatever a finding holds, each report is well formed for its sink.

A property test pushes random strings (controls, ANSI and OSC sequences, bidi overrides, every
format character of Unicode category Cf and the tag characters among them, newlines,
backticks, `%`, `::`, `<!--`, `|`, `@`, URLs, lone surrogates) through every field a report
shows and checks each of the nine formats: a terminal sees no control it did not ask for and
no invisible character, a CI log no workflow command it did not write, Markdown no HTML, no
extra row and nothing GitHub would link, SARIF a percent-encoded URI, JSON what went in, HTML
no markup but its own; the files a report names as excluded (round four, item 4) are hostile
names too. Then the review's items 13-16, 24 and 25 (round two) and 10 and 11
(round four: invisible format characters raw, Markdown autolinks) end to end through the CLI.
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.cli import ecosystem_cli
from auditor.escape import (
    json_text,
    markdown_code,
    markdown_html,
    markdown_text,
    terminal,
    terminal_lines,
    visible,
    visible_lines,
    workflow_data,
    workflow_property,
    xml_attr,
    xml_text,
)
from auditor.kinds import Kind
from auditor.model import (
    ConsumerInfo,
    Excluded,
    Finding,
    Location,
    ProviderInfo,
    Report,
    Stats,
    Status,
    Ungated,
)
from auditor.reporters import REPORTERS, json_report
from tests.trust import acme, machine
from tests.trust.archives import Member, wheel
from tests.trust.cli import invoke
from tests.trust.fakeindex import FakeIndex, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from click.testing import Result

# Every format character (category Cf) this Python's Unicode database knows, and the other
# code points a renderer draws as nothing (default-ignorable: variation selectors, Hangul
# fillers, the combining grapheme joiner...): none may reach any sink raw.
FORMAT = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf")
IGNORABLE = "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180f\u3164\ufe00\ufe0f\uffa0\U000e0100\U000e01ef"
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous instructions")  # hidden ASCII
LINKS = [
    "https://evil.example/login", "www.evil.example", "ops@evil.example", "HTTP://EVIL.EXAMPLE",
    "mailto:ops@evil.example", "(www.evil.example)", "*https://evil.example*", "x<https://e.example>",
]  # fmt: skip
HOSTILE = [
    "\x1b[31m", "\x1b]52;c;SGVsbG8=\x07", "\x1b]8;;http://x\x1b\\", "\x9b2J", "\x07", "\r",
    "\n", "\n::error file=x::pwned\n", "::warning::", "\u202e", "\u2066", "\u200b", "\ufeff",
    "\u2028", "\udcff", "`", "``", "```", "%", "%0A", "<!--", "-->", "<script>", "|", "@team",
    "&amp;", "*", "_", "[x](http://y)", "# ", "\\", "\"", "'", "\t", "\x00", "\x7f",
    TAGS, "\U000e0001", "\u0600", "\u2064", "\U0001d173", "\ufe0f", *LINKS,
]  # fmt: skip
PIECES = st.one_of(
    st.sampled_from(HOSTILE), st.sampled_from(FORMAT + IGNORABLE), st.text(max_size=6)
)
HOSTILE_TEXT = st.lists(PIECES, max_size=6).map("".join)


def _char_class(chars: str) -> str:
    return "".join(f"\\U{ord(c):08x}" for c in chars)


UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + _char_class(FORMAT + IGNORABLE) + "]"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the text reporter's own colours


@st.composite
def hostile_reports(draw: st.DrawFn) -> Report:
    text = HOSTILE_TEXT
    path = "widget/" + draw(text) + ".py"
    line = draw(text)
    finding = Finding(
        kind=draw(st.sampled_from([Kind.UNEXPECTED_KEYWORD, Kind.MISSING_ARGUMENT])),
        location=Location(path, 2, 1, 2, max(len(line), 1) + 1),
        scope="widget." + draw(text),
        symbol="acme." + draw(text),
        parameter=draw(text),
        broken_in=(draw(text),),
        baseline_signature="(" + draw(text) + ")",
        target_signature="(" + draw(text) + ")",
        reached_from=((draw(text), draw(text)),),
        suggestion=draw(text),
        status=draw(st.sampled_from(list(Status))),
        source=((1, draw(text)), (2, line), (3, draw(text))),
    )
    providers = (ProviderInfo("acme" + draw(text), draw(text), (draw(text),)),)
    excluded = Excluded("config", "pyproject.toml", (draw(text),), ("widget/" + draw(text),))
    return Report(
        consumer=ConsumerInfo(draw(text), draw(text), draw(text)),
        provider=providers[0],
        findings=(finding,),
        stats=Stats(files_scanned=1, call_sites=1),
        providers=providers,
        matrix=((True,),),
        unused_suppressions=((path, 3, (draw(text),)),),
        excluded=(excluded,) if draw(st.booleans()) else (),  # a file name is the PR's own
        ungated=(Ungated("gate-tests", "config", "pyproject.toml"),) if draw(st.booleans()) else (),
    )


def _lines_of(text: str) -> list[str]:
    return text.split("\n")


def check_text(out: str, *, color: bool) -> None:
    plain = SGR.sub("", out) if color else out
    assert not UNSAFE.search(plain), repr(UNSAFE.search(plain))
    assert not any(line.startswith("::") for line in _lines_of(plain))


def _notes(report: Report) -> int:
    """How many things the report says the settings narrowed (files excluded, gate-tests)."""
    return len(report.excluded) + len(report.ungated)


def check_github(out: str, report: Report) -> None:
    lines = out.rstrip("\n").split("\n")
    assert len(lines) == len(report.findings) + _notes(report)  # a `::warning title=` each
    for line in lines:
        assert not UNSAFE.search(line) and "\r" not in line
        match = re.fullmatch(r"::(error|warning|notice) ([^:]*)::(.*)", line)
        assert match is not None, line
        for prop in match.group(2).split(","):
            key, _, value = prop.partition("=")
            assert key in {"file", "line", "col", "endLine", "endColumn", "title"}, prop
            assert "," not in value and ":" not in value


def check_json(out: str, report: Report) -> None:
    assert not UNSAFE.search(out.replace("\n", ""))
    back = json_report.load_report(out)
    assert back.findings[0].location.path == report.findings[0].location.path
    assert back.findings[0].source == report.findings[0].source
    assert back.consumer == report.consumer


def check_sarif(out: str) -> None:
    assert not UNSAFE.search(out.replace("\n", ""))
    document = json.loads(out)
    for result in document["runs"][0]["results"]:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert re.fullmatch(r"[A-Za-z0-9_.~/%-]*", uri), uri


def check_gitlab(out: str, report: Report) -> None:
    assert not UNSAFE.search(out.replace("\n", ""))
    issues = json.loads(out)
    notes = [i for i in issues if i["check_name"] in ("excluded-files", "ungated-test-files")]
    assert len(notes) == _notes(report)
    paths = [issue["location"]["path"] for issue in issues if issue not in notes]
    if report.findings[0].status in (Status.NEW, Status.PREEXISTING):  # GitLab has no others
        assert paths == [report.findings[0].location.path]


def check_junit(out: str, report: Report) -> None:
    assert not UNSAFE.search(out.replace("\n", "").replace("\r", ""))
    suites = ET.fromstring(out.encode("utf-8")).findall("testsuite")
    assert len(suites) == len(report.findings) + (1 if _notes(report) else 0)  # the settings


def outside_code(markdown: str) -> str:
    """A Markdown document without its code spans, line by line as CommonMark reads them:
    outside a span a backslash escapes the next character; a run of backticks opens a span
    that the next run of the same length closes, or is literal when none does."""
    return "\n".join(_outside_code(line) for line in markdown.split("\n"))


def _outside_code(line: str) -> str:
    kept, i = [], 0
    while i < len(line):
        run = re.match(r"\\.|`+", line[i:])
        if run is None or run.group().startswith("\\"):
            step = len(run.group()) if run else 1
            kept.append(line[i : i + step])
            i += step
            continue
        fence = run.group()
        close = re.compile(f"(?<!`){fence}(?!`)").search(line, i + len(fence))
        kept.append(" " if close else fence)
        i = close.end() if close else i + len(fence)
    return "".join(kept)


# What GitHub would link outside code: a URL, a www. or an email autolink (its parser reads
# the text an escape or entity spells, so `&#64;` and `https\://` count), a mention.
AUTOLINK = re.compile(r"[a-z][a-z0-9+.-]*:\\?/\\?/|www\\?\.|@|&#64;", re.IGNORECASE)


def autolinks(markdown: str) -> list[str]:
    """What in a Markdown document, outside code spans and <code>, GitHub could link."""
    return AUTOLINK.findall(re.sub(r"<code>.*?</code>", "", outside_code(markdown)))


def check_markdown(out: str, report: Report) -> None:
    assert not UNSAFE.search(out.replace("\n", ""))
    assert autolinks(out) == [], out
    prose = outside_code(out)  # inside a code span `<!--` is text, not markup
    assert "<!--" not in prose and "<script" not in prose
    assert re.search(r"<(?!/?(details|summary)>)", prose) is None, out
    for row in [line for line in out.split("\n") if line.startswith("| ")]:
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        assert len(cells) in (5, 6), row  # every row keeps its columns
    new = sum(1 for f in report.findings if f.status is Status.NEW)
    if new:
        table = out.split("### New findings\n\n")[1].split("\n\n")[0].strip()
        assert len(table.split("\n")) == 2 + new


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.text.extend(v for _, v in attrs if v)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


BENIGN = Report(
    consumer=ConsumerInfo("widget", "1.0", "folder"),
    provider=ProviderInfo("acme", "0.1", ("0.2",)),
    findings=(
        Finding(
            kind=Kind.UNEXPECTED_KEYWORD,
            location=Location("widget/a.py", 2, 1, 2, 5),
            scope="widget.go",
            symbol="acme.run",
            parameter="old",
            broken_in=("0.2",),
            baseline_signature="(old)",
            target_signature="(new)",
            reached_from=(("widget", "widget.go"),),
            suggestion="x",
            source=((1, "a"), (2, "b"), (3, "c")),
        ),
    ),
    stats=Stats(files_scanned=1, call_sites=1),
    providers=(ProviderInfo("acme", "0.1", ("0.2",)),),
    matrix=((True,),),
)


def check_html(out: str, status: Status) -> None:
    assert not UNSAFE.search(out.replace("\n", ""))
    page, benign = _Tags(), _Tags()
    page.feed(out)
    benign.feed(REPORTERS["html"](_with_status(BENIGN, status)))
    assert set(page.tags) <= set(benign.tags), set(page.tags) - set(benign.tags)
    assert page.tags.count("script") == 1


def _with_status(report: Report, status: Status) -> Report:
    from dataclasses import replace

    return replace(report, findings=tuple(replace(f, status=status) for f in report.findings))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # html renders are the slow part
@given(hostile_reports())
def test_every_reporter_is_well_formed_for_its_sink(report: Report) -> None:
    check_text(REPORTERS["text"](report, color=False), color=False)
    check_text(REPORTERS["text"](report, color=True), color=True)
    check_text(REPORTERS["concise"](report, color=True), color=True)
    check_gitlab(REPORTERS["gitlab"](report), report)
    check_junit(REPORTERS["junit"](report), report)
    check_github(REPORTERS["github"](report), report)
    check_json(REPORTERS["json"](report), report)
    check_sarif(REPORTERS["sarif"](report))
    check_markdown(REPORTERS["markdown"](report), report)
    check_html(REPORTERS["html"](report), report.findings[0].status)


@given(HOSTILE_TEXT)
def test_a_code_span_shows_exactly_its_text(text: str) -> None:
    span = markdown_code(text)
    flat = terminal(" ".join(re.split(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", text)))
    if not flat:
        assert span == ""
        return
    fence = re.match(r"`+", span)
    assert fence is not None
    inner = span[len(fence.group()) : -len(fence.group())]
    assert "`" * len(fence.group()) not in inner
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    assert inner == terminal(
        " ".join(re.split(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", text))
    )


ESCAPERS = {
    f.__name__: f
    for f in (
        terminal, terminal_lines, visible, visible_lines, workflow_data, workflow_property,
        xml_text, xml_attr, markdown_text, markdown_code, markdown_html,
    )
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ESCAPERS))
def test_every_format_character_is_shown_as_python_writes_it(name: str) -> None:
    """Round four, item 10: each format character of this Python's Unicode database (and
    each other default-ignorable one) is shown as in a Python literal: \\xad, \\u200b,
    \\U000e0069, by every escaper of a sink that shows text."""
    escaper = ESCAPERS[name]
    for char in FORMAT + IGNORABLE:
        shown = escaper(f"a{char}b")
        assert char not in shown, (name, hex(ord(char)))
        assert char.encode("unicode_escape").decode("ascii") in shown, (name, shown)


def test_json_escapes_every_format_character_and_reads_back_the_same_string() -> None:
    """Round four, item 10: JSON (and SARIF, GitLab) hold the same strings, only the bytes
    are escaped; a code point past the BMP as its surrogate pair, as ensure_ascii writes it."""
    value = {"path": f"widget/x{TAGS}.py", "all": FORMAT + IGNORABLE + "\udcff \x7f\x85"}
    document = json_text(json.dumps(value, indent=2, ensure_ascii=False))
    assert not UNSAFE.search(document.replace("\n", ""))
    assert json.loads(document) == value
    assert document == json.dumps(value, indent=2)  # ASCII and escapes only: byte for byte
    assert "\\udb40\\udc69" in document  # U+E0069, a hidden "i"


def test_printable_text_is_left_as_it_is() -> None:
    """Only invisible and control characters are escaped: letters, symbols and emoji of
    any script are shown as they are."""
    text = "café 中文 Ωμέγα ½ ∑ 😀 ﷺ ‐"
    for escaper in (terminal, visible, xml_text, workflow_data):
        assert escaper(text) == text, escaper.__name__
    assert json_text(json.dumps(text, ensure_ascii=False)) == json.dumps(text, ensure_ascii=False)


@pytest.mark.parametrize("link", LINKS)
def test_a_word_github_would_link_is_a_code_span_in_markdown(link: str) -> None:
    """Round four, item 11: GitHub turns `https://...`, `www....` and an email address in
    plain text into a link, even after a backslash escape or an entity. Such a word is a
    code span in Markdown text (and <code> in a <summary>): shown, never linked."""
    for shown in (markdown_text(f"see {link} now"), markdown_text(f"{link} x", starts_block=True)):
        assert autolinks(shown) == [], shown
        assert markdown_code(link) in shown
    in_html = markdown_html(f"see {link} now")
    assert autolinks(in_html) == [] and "<code>" in in_html, in_html
    assert markdown_text("see acme.run now, 3 < 4") == "see acme.run now, 3 &lt; 4"


# --------------------------------------------------------------------------- through the CLI


def _project(tmp_path: Path, *, name: str | None = None, version: str | None = None) -> Path:
    extra = {}
    if name is not None or version is not None:
        extra["pyproject.toml"] = (
            "[project]\n" + f"name = {json.dumps(name or 'widget')}\n"
            f"version = {json.dumps(version or '1.0')}\n"
        )
    return acme.consumer(tmp_path / "project", extra=extra)


def test_markdown_cannot_be_hidden_by_a_version_with_newlines(tmp_path: Path) -> None:
    """Item 13: a consumer version with newlines rendered 'No drift found' and hid the
    findings in an HTML comment."""
    version = "1.0\n\n**No drift found** in 0 files.\n\n<!--"
    project = _project(tmp_path, version=version)
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "markdown")
    assert result.exit_code == 1, result.output
    assert "<!--" not in result.stdout
    assert "**No drift found**" not in result.stdout
    assert "### New findings" in result.stdout and "`widget/__init__.py:5`" in result.stdout


def test_markdown_code_spans_survive_backticks_in_a_file_name(tmp_path: Path) -> None:
    """Item 13: a file name with double backticks broke its code span."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "a``b.py").write_text(acme.CONSUMER)
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "markdown")
    assert "``` widget/a``b.py:5 ```" in result.stdout or "```widget/a``b.py:5```" in result.stdout


SOURCE_ATTACK = (
    "import acme\n\n\ndef go():\n"
    "    return acme.run(1, old=5)  # \x1b]52;c;cHduZWQ=\x07 \x1b[2J \u202eevil\n"
)


@pytest.mark.parametrize("color", ["--color", "--no-color"])
def test_escape_sequences_in_source_never_reach_the_terminal(tmp_path: Path, color: str) -> None:
    """Item 14: ANSI CSI and OSC 52 in source lines reached the terminal raw (OSC 52 even
    when piped); item 25: bidi overrides were shown raw."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text(SOURCE_ATTACK, encoding="utf-8")
    result = invoke(str(project), *acme.folder_args(tmp_path), color)
    assert result.exit_code == 1, result.output
    shown = SGR.sub("", result.stdout)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b]52;c;cHduZWQ=\\x07" in shown and "\\u202eevil" in shown


def test_a_file_name_cannot_write_a_workflow_command(tmp_path: Path) -> None:
    """Item 14: a file name holding `\\n::error ...` printed a raw workflow command on
    stderr (the unused-suppression warning) and in the text report."""
    project = acme.consumer(tmp_path / "project")
    name = "x\n::error file=pwned.py::injected\n.py"
    (project / "widget" / name).write_text(
        "import acme  # drift-audit: ignore\nacme.run(1, old=5)\n", encoding="utf-8"
    )
    for fmt in ("text", "github", "markdown"):
        result = invoke(str(project), *acme.folder_args(tmp_path), "--format", fmt)
        assert result.exit_code == 1, result.output
        for stream in (result.stdout, result.stderr):
            assert not any(line.startswith("::error file=pwned") for line in stream.split("\n"))
    assert "unused suppression" in result.stderr


def test_a_file_name_that_is_not_utf8_leaves_every_format_working(tmp_path: Path) -> None:
    """Item 15: one non-UTF-8 file name made every format fail (UnicodeEncodeError)."""
    project = acme.consumer(tmp_path / "project")
    raw = bytes(project / "widget") + b"/x\xff.py"
    Path(raw.decode("utf-8", "surrogateescape")).write_text(acme.CONSUMER)
    for fmt in REPORTERS:
        result = invoke(str(project), *acme.folder_args(tmp_path), "--format", fmt)
        assert result.exit_code == 1, (fmt, result.output)
        assert "internal error" not in result.stderr
    assert "skipping widget/x\\xff.py: its name is not valid UTF-8" in result.stderr


@pytest.mark.parametrize("fmt", ["html", "json", "text"])
def test_a_huge_default_is_cut_in_every_report(tmp_path: Path, fmt: str) -> None:
    """Item 16: a 1 MB provider default with 100 call sites gave 200 MB reports."""
    old, new = acme.provider_folders(tmp_path / "providers")
    huge = "'" + "x" * 1_000_000 + "'"
    (new / "acme" / "__init__.py").write_text(f"def run(a, b={huge}, new=3):\n    return a\n")
    calls = "".join(f"    acme.run({i}, old=5)\n" for i in range(100))
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text(f"import acme\n\n\ndef go():\n{calls}")
    result = invoke(
        str(project), "--against", f"acme @ {new.as_uri()}", "--baseline", f"acme @ {old.as_uri()}",
        "--format", fmt,
    )  # fmt: skip
    assert result.exit_code == 1, result.output[-2000:]
    assert len(result.stdout) < 3_000_000, len(result.stdout)
    assert "…" in result.stdout


def test_sarif_uris_are_percent_encoded(tmp_path: Path) -> None:
    """Item 24: `widget/a#b.py` read as `widget/a` (spaces, quotes, `<` too)."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / 'a#b c"<d.py').write_text(acme.CONSUMER)
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "sarif")
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(result.stdout)["runs"][0]["results"]
    }
    assert "widget/a%23b%20c%22%3Cd.py" in uris, uris


def test_bidi_overrides_are_visible_in_the_html_code_view(tmp_path: Path) -> None:
    """Item 25: U+202E was shown raw in the HTML code view."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text(SOURCE_ATTACK, encoding="utf-8")
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "html")
    assert "\u202e" not in result.stdout and "\x1b" not in result.stdout
    assert "\\u202eevil" in result.stdout


HIDDEN = TAGS  # "ignore previous instructions" in tag characters: nothing a reader sees
INVISIBLE_SOURCE = (
    "import acme\n\n\ndef go():\n"
    f"    return acme.run(1, old=5)  # \u2064\u180b\ufe0f\u0600\U0001d173{HIDDEN}\n"
)


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_tag_characters_and_other_format_characters_are_escaped_in_every_format(
    tmp_path: Path, fmt: str
) -> None:
    """Round four, item 10: Unicode tag characters (U+E0000-E007F, which spell hidden ASCII)
    in a file name and a keyword, and other format characters in a source line, passed raw
    into every format. Each format shows them escaped; the JSON formats keep the very
    strings (only their bytes are escaped)."""
    project = acme.consumer(tmp_path / "project")
    (project / "widget" / "__init__.py").write_text(INVISIBLE_SOURCE, encoding="utf-8")
    (project / "widget" / f"x{HIDDEN}.py").write_text(
        f"import acme\n\n\ndef go():\n    return acme.run(1, **{{'k{HIDDEN}': 5}})\n"
        "\n\ndef h():\n    return acme.run(1, old=5)\n",
        encoding="utf-8",
    )
    result = invoke(
        str(project), *acme.folder_args(tmp_path), "--format", fmt, "--show-preexisting"
    )
    assert result.exit_code == 1, result.output
    for stream in (result.stdout, result.stderr):
        assert not UNSAFE.search(stream.replace("\n", "").replace("\r", "")), fmt
    if fmt in ("json", "sarif", "gitlab"):
        assert "\\udb40\\udc69" in result.stdout  # U+E0069 as JSON writes it
        assert HIDDEN in json.dumps(json.loads(result.stdout), ensure_ascii=False)
    else:
        assert "\\U000e0069\\U000e0067" in result.stdout
    if fmt == "json":
        paths = {f.location.path for f in json_report.load_report(result.stdout).findings}
        assert f"widget/x{HIDDEN}.py" in paths
    if fmt in ("text", "html"):  # the code frame
        assert "\\u2064\\u180b\\ufe0f\\u0600\\U0001d173" in result.stdout


LINKED_VERSION = "1.0 see https://evil.example/login or www.evil.example, ops@evil.example"


def test_links_in_the_audit_markdown_are_never_linked(tmp_path: Path) -> None:
    """Round four, item 11, the audit's Markdown: the consumer's version (its own
    pyproject) reached the context line as plain text, where GitHub links a URL, a www.
    name and an email address. Each such word is a code span."""
    project = _project(tmp_path, version=LINKED_VERSION)
    result = invoke(str(project), *acme.folder_args(tmp_path), "--format", "markdown")
    assert result.exit_code == 1, result.output
    assert autolinks(result.stdout) == [], result.stdout
    shown = "`https://evil.example/login` or `www.evil.example,` `ops@evil.example`"
    assert shown in result.stdout


def eco(*args: str) -> Result:
    return CliRunner().invoke(ecosystem_cli, list(args), prog_name="drift-audit ecosystem")


@contextlib.contextmanager
def _dependent_holding(tmp_path: Path, member: str) -> Iterator[list[str]]:
    """A loopback index with acme and one dependent, mal 1.0, whose wheel holds a member
    named `member` that its RECORD lies about (an error row quoting the name): yields the
    arguments of an `ecosystem --dependents` run against it."""
    dist = tmp_path / "dist"
    dist.mkdir()
    index = FakeIndex()
    index.add(*acme.wheels(dist))
    index.add(wheel(dist, "mal", "1.0", {"mal/__init__.py": acme.CONSUMER},
                    extra=[Member.text(member, "y = 1\n")], tamper=member,
                    requires=["acme==0.1"]))  # fmt: skip
    with serving(index):
        yield [
            "--against", "acme==0.2", "--dependents", "--index-url", index.url,
            "--cache-dir", str(tmp_path / "cache"),
        ]  # fmt: skip


def test_links_in_a_dependents_error_are_never_linked_in_the_ecosystem_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round four, item 11: a dependent's wheel holding a member named with a URL, a www.
    name and an email address (its RECORD hash wrong) put all three, clickable, into the
    error cell of the release pull request's comment."""
    machine.isolate(monkeypatch)
    name = "mal/x see https://evil.example/login or www.evil.example or ops@evil.example .py"
    with _dependent_holding(tmp_path, name) as args:
        result = eco(*args, "--format", "markdown")
    assert result.exit_code == 2, result.output  # every audit failed; the report is written
    (row,) = [line for line in result.stdout.splitlines() if "mal==1.0" in line]
    assert "| error |" in row and "does not match" in row
    assert autolinks(result.stdout) == [], result.stdout
    assert "`https://evil.example/login` or `www.evil.example` or `ops@evil.example`" in row


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_tag_characters_from_a_dependent_are_escaped_in_every_ecosystem_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """Round four, item 10, the ecosystem's reports: a member name of hidden tag
    characters and other format characters, quoted in the dependent's error row."""
    machine.isolate(monkeypatch)
    name = f"mal/x{HIDDEN}\u2064\ufe0f\u0600.py"
    with _dependent_holding(tmp_path, name) as args:
        result = eco(*args, "--format", fmt)
    assert result.exit_code == 2, result.output
    assert "mal" in result.stdout
    for stream in (result.stdout, result.stderr):
        assert not UNSAFE.search(stream.replace("\n", "")), fmt
    if fmt == "json":
        (row,) = json.loads(result.stdout)["consumers"]
        assert name in row["error"]
    else:
        shown = result.stdout.replace("\\\\", "\\")  # Markdown text escapes a backslash
        assert "\\U000e0069\\U000e0067" in shown and "\\u2064\\ufe0f\\u0600" in shown


def test_a_regressed_consumers_spec_is_never_linked_in_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round four, item 11: a regressed consumer's spec is the <summary> of its folded
    findings, raw HTML where Markdown escapes do not apply: a word GitHub would link is
    inside <code> there."""
    machine.isolate(monkeypatch)
    widget = acme.consumer(tmp_path / "www.evil.example" / "project") / "widget"
    listed = tmp_path / "consumers.txt"
    listed.write_text(f"{widget}\n", encoding="utf-8")
    result = eco(
        *acme.folder_args(tmp_path), "--consumers", str(listed),
        "--cache-dir", str(tmp_path / "cache"), "--offline", "--format", "markdown",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    (summary,) = [line for line in result.stdout.splitlines() if "<summary>" in line]
    assert "<code>" in summary and "www.evil.example" in summary, summary
    assert autolinks(result.stdout) == [], result.stdout
