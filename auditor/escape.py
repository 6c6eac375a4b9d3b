# Maintainers: one escaper per output sink. Everything a report shows comes from untrusted
# input (the consumer's names, paths and source lines; the provider's signatures; the
# index's versions), so every reporter and the CLI's log lines pass what they show through
# the function for their sink, and nowhere else is escaping done:
#   terminal()        a terminal or CI log (text report, stderr): C0/C1 controls (ESC, BEL,
#                     CR, LF...), DEL, bidi overrides and other invisible format characters,
#                     lone surrogates: shown as \xNN / \uNNNN escapes; a tab stays.
#   visible()         the same, for the HTML page (before jinja2's autoescape).
#   visible_lines()   the same keeping line feeds, for multi-line text the HTML page shows
#                     in a <pre> (a proposed fix, a kind's documentation); CR shown as \r.
#   json_text()       a JSON document (JSON, SARIF): those characters as \uNNNN escapes
#                     inside strings (json.dumps leaves C1, bidi and surrogates raw).
#   workflow_data() / workflow_property()   GitHub Actions workflow commands (%, CR, LF;
#                     property values also `:` and `,`), after visible() for the rest.
#   markdown_text() / markdown_code()   GitHub-flavoured Markdown: inline text with every
#                     markup character backslash-escaped and `<` as &lt; (no HTML, no
#                     comments), code spans fenced longer than any backtick run inside, and
#                     both flattened to one line.
#   markdown_html()   text inside an HTML element of a Markdown document (a <summary>), where
#                     Markdown escapes are not read: one line, controls visible, HTML
#                     escaped, `@` as an entity (no mention).
#   sarif_uri()       a SARIF artifactLocation.uri: percent-encoded (RFC 3986).
#   xml_text() / xml_attr()   JUnit XML: &, <, >, quotes as entities; what XML 1.0 cannot
#                     hold at all (C0 but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) and
#                     the invisible characters terminal() shows, as visible \xNN escapes;
#                     an attribute also keeps its tab and line breaks as character refs.
# tests/unit/test_trust_sinks.py pushes random strings through every reporter and checks
# each output is well formed for its sink.
"""Escaping untrusted text for each place a report is shown."""

from __future__ import annotations

import re
from urllib.parse import quote

# Controls (not tab), DEL, C1, soft hyphen, Arabic letter mark, Mongolian vowel separator,
# zero-width and bidi marks/embeddings/overrides/isolates, line and paragraph separators,
# word joiners, BOM, interlinear annotations, and lone surrogates (undecodable file names).
_UNSAFE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_UNSAFE_BUT_LINES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_JSON_RAW = re.compile(  # what json.dumps(ensure_ascii=False) leaves raw: not C0, not layout
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_MARKDOWN = re.compile(r"([\\`*_\[\]#|~!$])")
_BLOCK_START = re.compile(r"^(\s*)([-+=>]|\d+[.)])")
_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_COMMAND_START = re.compile(r"^(\s*):(?=:)", re.MULTILINE)


def terminal(text: str) -> str:
    """Text safe to print on a terminal or in a CI log, on one line. A value that would
    start a line with `::` (a GitHub Actions workflow command, which the runner honours
    after leading blanks) has its first colon escaped."""
    return _COMMAND_START.sub(r"\1\\x3a", _UNSAFE.sub(_escaped, text))


def terminal_lines(text: str) -> str:
    """The same, keeping line feeds (a multi-line value laid out by us)."""
    shown = _UNSAFE_BUT_LINES.sub(_escaped, text.replace("\r\n", "\n")).replace("\r", "\\r")
    return _COMMAND_START.sub(r"\1\\x3a", shown)


def visible(text: str) -> str:
    """For HTML (then autoescaped): invisible and control characters made visible."""
    return _UNSAFE.sub(_escaped, text)


def visible_lines(text: str) -> str:
    """For multi-line HTML text (a <pre>, then autoescaped): as visible(), line feeds kept."""
    return _UNSAFE_BUT_LINES.sub(_escaped, text.replace("\r\n", "\n")).replace("\r", "\\r")


def json_text(document: str) -> str:
    """A JSON document with C1 controls, bidi and format characters and lone surrogates as
    \\uNNNN escapes (json.dumps escapes only C0). Outside strings JSON has none of them."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def workflow_data(text: str) -> str:
    """A workflow command's message: controls made visible, then %, CR and LF encoded (the
    Actions toolkit's rules), so a value can never start a command of its own."""
    shown = _UNSAFE_BUT_LINES.sub(_escaped, text)
    return shown.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A workflow command's property value: as data, plus `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def one_line(text: str) -> str:
    return " ".join(_BREAKS.split(text))


def markdown_text(text: str, *, starts_block: bool = False) -> str:
    """Inline Markdown that renders as exactly this text: one line; the characters of
    inline markup backslash-escaped (and, `starts_block`, a list or quote marker at its
    start); `&`, `<` and `@` as entities (no HTML element, comment or entity can start,
    nobody is mentioned)."""
    flat = terminal(one_line(text)).replace("&", "&amp;")
    flat = _MARKDOWN.sub(r"\\\1", flat).replace("<", "&lt;").replace("@", "&#64;")
    return _BLOCK_START.sub(_unblock, flat, count=1) if starts_block else flat


def _unblock(match: re.Match[str]) -> str:
    """`- x` -> `\\- x`; `1. x` -> `1\\. x` (digits are not escapable, the delimiter is)."""
    lead, marker = match.group(1), match.group(2)
    if marker[0].isdigit():
        return f"{lead}{marker[:-1]}\\{marker[-1]}"
    return f"{lead}\\{marker}"


def markdown_code(text: str) -> str:
    """An inline code span showing `text` (one line): the fence is one backtick longer
    than the longest run inside, padded when the text starts or ends with a backtick."""
    flat = terminal(one_line(text))
    if not flat:
        return ""  # an empty span cannot be written; there is nothing to show
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    edges = flat.startswith(("`", " ")) or flat.endswith(("`", " "))
    pad = " " if edges and flat.strip(" ") else ""  # CommonMark strips one pad, not all-blank
    return f"{fence}{pad}{flat}{pad}{fence}"


def markdown_html(text: str) -> str:
    """Text inside an HTML element in Markdown (`<summary>...</summary>`): one line (a blank
    line would end the HTML block), controls made visible, `&<>"'` escaped, `@` as `&#64;`."""
    import html

    return html.escape(visible(one_line(text)), quote=True).replace("@", "&#64;")


def markdown_cell(text: str) -> str:
    """A GFM table cell: `|` escaped (GFM splits on it even inside code spans)."""
    return one_line(text).replace("|", "\\|")


def sarif_uri(path: str) -> str:
    """A relative posix path as a URI reference: everything but unreserved characters and
    `/` percent-encoded (`#`, `?`, `%`, spaces, quotes, `<`...), UTF-8 for the rest."""
    return quote(path, safe="/", errors="backslashreplace")


_XML_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff\ufffe\uffff]"
)
_XML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_XML_MARKUP = re.compile("[&<>\"']")
_XML_LAYOUT = {"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}


def xml_text(text: str) -> str:
    """XML 1.0 element content: markup characters as entities, what XML cannot carry or a
    reader would not see as \\xNN escapes; tabs and line breaks kept."""
    shown = _XML_UNSAFE.sub(_escaped, text)
    return _XML_MARKUP.sub(lambda m: _XML_ENTITIES[m.group()], shown)


def xml_attr(text: str) -> str:
    """An XML 1.0 attribute value (quoted with `"`): as xml_text, and tab, LF and CR as
    character references (a parser would turn them into blanks)."""
    return re.sub("[\t\n\r]", lambda m: _XML_LAYOUT[m.group()], xml_text(text))
