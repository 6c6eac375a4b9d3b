# Maintainers: one escaper per output sink. Everything a report shows comes from untrusted
# input (the consumer's names, paths and source lines; the provider's signatures; the
# index's versions), so every reporter and the CLI's log lines pass what they show through
# the function for their sink, and nowhere else is escaping done. What is invisible is
# one set for every sink (below: C0/C1 controls, DEL, every format character of Unicode
# category Cf, tag characters and bidi controls among them, the other default-ignorable
# code points, line and paragraph separators, lone surrogates); each sink shows it its way:
#   terminal()        a terminal or CI log (text report, stderr): the invisible set as
#                     Python writes it in a literal, \xNN / \uNNNN / \UNNNNNNNN; a tab stays.
#   visible()         the same, for the HTML page (before jinja2's autoescape).
#   visible_lines()   the same keeping line feeds, for multi-line text the HTML page shows
#                     in a <pre> (a proposed fix, a kind's documentation); CR shown as \r.
#   json_text()       a JSON document (JSON, SARIF, GitLab): the set as \uNNNN escapes inside
#                     strings, past the BMP as a surrogate pair (json.dumps escapes only C0),
#                     so the document holds the same strings and only its bytes change.
#   workflow_data() / workflow_property()   GitHub Actions workflow commands (%, CR, LF;
#                     property values also `:` and `,`), after visible() for the rest.
#   markdown_text() / markdown_code()   GitHub-flavoured Markdown: inline text with every
#                     markup character backslash-escaped and `<` as &lt; (no HTML, no
#                     comments), a word GitHub would link or mention (`://`, `www.`, `@`) as a
#                     code span, code spans fenced longer than any backtick run inside, and
#                     both flattened to one line.
#   markdown_html()   text inside an HTML element of a Markdown document (a <summary>), where
#                     Markdown escapes are not read: one line, controls visible, HTML
#                     escaped, `@` as an entity, a word GitHub would link inside <code>.
#   sarif_uri()       a SARIF artifactLocation.uri: percent-encoded (RFC 3986).
#   xml_text() / xml_attr()   JUnit XML: &, <, >, quotes as entities; what XML 1.0 cannot
#                     hold at all (C0 but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) and
#                     the invisible set, as visible \xNN escapes; an attribute also keeps
#                     its tab and line breaks as character refs.
# tests/unit/test_trust_sinks.py pushes random strings through every reporter and checks
# each output is well formed for its sink, and every Cf code point through every escaper.
"""Escaping untrusted text for each place a report is shown."""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import quote

# What every sink shows as an escape, beyond the C0 controls: DEL and C1; every format
# character (Unicode category Cf, as of Unicode 15.1: soft hyphen, Arabic number signs and
# letter mark, zero-width and bidi marks, embeddings, overrides and isolates, word joiners,
# BOM, interlinear annotations, Kaithi, Egyptian and shorthand format controls, musical
# beams, the language tag and the tag characters U+E0020-E007F that spell hidden ASCII);
# every other default-ignorable code point, which a renderer draws as nothing (combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, variation selectors, and the
# blocks Unicode keeps for future ones, U+E0000-E0FFF whole); line and paragraph
# separators; lone surrogates (undecodable file names). Written out as ranges so importing
# costs no walk of the Unicode database; tests/unit/test_trust_sinks.py checks that every
# Cf code point of the running Python's unicodedata is in them.
_FORMAT = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF),
)  # fmt: skip
_INVISIBLE = (*_FORMAT, *_IGNORABLE, (0x2028, 0x2029), (0xD800, 0xDFFF))
_ASTRAL = tuple(r for r in _INVISIBLE if r[0] > 0xFFFF)  # no range spans U+FFFF
_DEL_C1 = ((0x7F, 0x9F),)
_C0_BUT_TAB = ((0x00, 0x08), (0x0A, 0x1F))
_C0_BUT_LAYOUT = ((0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F))  # tab, LF and CR kept
_SINKS = {  # what each sink escapes, by name
    "one line": (*_C0_BUT_TAB, *_DEL_C1, *_INVISIBLE),
    "lines": (*_C0_BUT_LAYOUT, *_DEL_C1, *_INVISIBLE),
    "json": (*_DEL_C1, *_INVISIBLE),  # what json.dumps(ensure_ascii=False) leaves raw
    "xml": (*_C0_BUT_LAYOUT, *_DEL_C1, *_INVISIBLE, (0xFFFE, 0xFFFF)),  # + not XML at all
}


@cache
def _unsafe(sink: str, ascii_only: bool) -> re.Pattern[str]:
    """What a sink escapes as a character class, compiled at its first use (about 0.4 ms,
    so importing this module compiles none). For ASCII text (most of a report) only its
    ASCII part; else its BMP part and every code point past the BMP, which the escaper
    keeps unless it is invisible: each range past the BMP would cost every character of a
    document one more test, and such code points are rare."""
    ranges = _SINKS[sink]
    if ascii_only:
        ranges = tuple((a, min(b, 0x7F)) for a, b in ranges if a <= 0x7F)
    else:
        ranges = (*(r for r in ranges if r[1] <= 0xFFFF), (0x10000, 0x10FFFF))
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]")


def _show(sink: str, text: str) -> str:
    """`text` with what `sink` escapes as Python writes it in a literal."""
    return _unsafe(sink, text.isascii()).sub(_escaped, text)


_MARKDOWN = re.compile(r"([\\`*_\[\]#|~!$])")
_BLOCK_START = re.compile(r"^(\s*)([-+=>]|\d+[.)])")
_LINKABLE = re.compile(r"://|[Ww][Ww][Ww]\.|@")  # GFM autolinks (any case) and mentions
_BLANKS = re.compile(r"([ \t]+)")  # between words, kept
_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _escaped(match: re.Match[str]) -> str:
    """As Python writes the code point in a string literal: \\xNN, \\uNNNN, \\UNNNNNNNN;
    past the BMP only an invisible one (the class matches them all)."""
    char = match.group()
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}" if _invisible_astral(code) else char


def _json_escaped(match: re.Match[str]) -> str:
    """A JSON string escape: \\uNNNN, an invisible code point past the BMP as its
    surrogate pair."""
    char = match.group()
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    if not _invisible_astral(code):
        return char
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def _invisible_astral(code: int) -> bool:
    return any(first <= code <= last for first, last in _ASTRAL)


_COMMAND_START = re.compile(r"^(\s*):(?=:)", re.MULTILINE)


def terminal(text: str) -> str:
    """Text safe to print on a terminal or in a CI log, on one line. A value that would
    start a line with `::` (a GitHub Actions workflow command, which the runner honours
    after leading blanks) has its first colon escaped."""
    return _COMMAND_START.sub(r"\1\\x3a", _show("one line", text))


def terminal_lines(text: str) -> str:
    """The same, keeping line feeds (a multi-line value laid out by us)."""
    shown = _show("lines", text.replace("\r\n", "\n")).replace("\r", "\\r")
    return _COMMAND_START.sub(r"\1\\x3a", shown)


def visible(text: str) -> str:
    """For HTML (then autoescaped): invisible and control characters made visible."""
    return _show("one line", text)


def visible_lines(text: str) -> str:
    """For multi-line HTML text (a <pre>, then autoescaped): as visible(), line feeds kept."""
    return _show("lines", text.replace("\r\n", "\n")).replace("\r", "\\r")


def json_text(document: str) -> str:
    """A JSON document with C1 controls, format and other invisible characters and lone
    surrogates as \\uNNNN escapes, a surrogate pair past the BMP (json.dumps escapes only
    C0): json.loads reads back the same strings. Outside strings JSON has none of them."""
    return _unsafe("json", document.isascii()).sub(_json_escaped, document)


def workflow_data(text: str) -> str:
    """A workflow command's message: controls made visible, then %, CR and LF encoded (the
    Actions toolkit's rules), so a value can never start a command of its own."""
    shown = _show("lines", text)
    return shown.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A workflow command's property value: as data, plus `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def one_line(text: str) -> str:
    return " ".join(_BREAKS.split(text))


def markdown_text(text: str, *, starts_block: bool = False) -> str:
    """Inline Markdown that renders as exactly this text: one line; the characters of
    inline markup backslash-escaped (and, `starts_block`, a list or quote marker at its
    start); `&` and `<` as entities (no HTML element, comment or entity can start). A word
    GitHub could make a link or a mention of (one holding `://`, `www.` or `@`: GFM's URL,
    www and email autolinks) is a code span instead, shown as it is and never linked: an
    escape or an entity does not reliably stop them (the email autolink and mentions read
    the text it spells)."""
    flat = terminal(one_line(text))
    if _LINKABLE.search(flat):
        flat = "".join(
            _code_span(w) if _LINKABLE.search(w) else _inline(w) for w in _BLANKS.split(flat)
        )
    else:
        flat = _inline(flat)
    return _BLOCK_START.sub(_unblock, flat, count=1) if starts_block else flat


def _inline(word: str) -> str:
    escaped = _MARKDOWN.sub(r"\\\1", word.replace("&", "&amp;"))
    return escaped.replace("<", "&lt;")


def _unblock(match: re.Match[str]) -> str:
    """`- x` -> `\\- x`; `1. x` -> `1\\. x` (digits are not escapable, the delimiter is)."""
    lead, marker = match.group(1), match.group(2)
    if marker[0].isdigit():
        return f"{lead}{marker[:-1]}\\{marker[-1]}"
    return f"{lead}\\{marker}"


def markdown_code(text: str) -> str:
    """An inline code span showing `text` (one line): the fence is one backtick longer
    than the longest run inside, padded when the text starts or ends with a backtick."""
    return _code_span(terminal(one_line(text)))


def _code_span(flat: str) -> str:
    if not flat:
        return ""  # an empty span cannot be written; there is nothing to show
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    edges = flat.startswith(("`", " ")) or flat.endswith(("`", " "))
    pad = " " if edges and flat.strip(" ") else ""  # CommonMark strips one pad, not all-blank
    return f"{fence}{pad}{flat}{pad}{fence}"


def markdown_html(text: str) -> str:
    """Text inside an HTML element in Markdown (`<summary>...</summary>`): one line (a blank
    line would end the HTML block), controls made visible, `&<>"'` escaped, `@` as `&#64;`,
    and a word that could be linked (as in markdown_text) inside <code>."""
    import html

    shown = []
    for word in _BLANKS.split(visible(one_line(text))):
        escaped = html.escape(word, quote=True).replace("@", "&#64;")
        shown.append(f"<code>{escaped}</code>" if _LINKABLE.search(word) else escaped)
    return "".join(shown)


def markdown_cell(text: str) -> str:
    """A GFM table cell: `|` escaped (GFM splits on it even inside code spans)."""
    return one_line(text).replace("|", "\\|")


def sarif_uri(path: str) -> str:
    """A relative posix path as a URI reference: everything but unreserved characters and
    `/` percent-encoded (`#`, `?`, `%`, spaces, quotes, `<`...), UTF-8 for the rest."""
    return quote(path, safe="/", errors="backslashreplace")


_XML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_XML_MARKUP = re.compile("[&<>\"']")
_XML_LAYOUT = {"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}


def xml_text(text: str) -> str:
    """XML 1.0 element content: markup characters as entities, what XML cannot carry or a
    reader would not see as \\xNN escapes; tabs and line breaks kept."""
    shown = _show("xml", text)
    return _XML_MARKUP.sub(lambda m: _XML_ENTITIES[m.group()], shown)


def xml_attr(text: str) -> str:
    """An XML 1.0 attribute value (quoted with `"`): as xml_text, and tab, LF and CR as
    character references (a parser would turn them into blanks)."""
    return re.sub("[\t\n\r]", lambda m: _XML_LAYOUT[m.group()], xml_text(text))
