"""Deprecation notes in docstrings: about the whole callable, or about one of its parameters.

What it owns: reading a provider docstring (numpydoc, Google or reST style, as griffe gives it,
dedented) for the notes that say something is deprecated: `.. deprecated::` directives,
`Deprecated:`/`Deprecated.` paragraphs and "Deprecated since ..." text, and deciding what
each note is about:

- a note inside a parameters section (numpydoc `Parameters` / `Other Parameters` underlined
  with dashes; Google `Args:`, `Arguments:`, `Keyword Args:`...), under one entry, is about
  that parameter (pandas' `to_datetime`: `.. deprecated:: 2.0.0` indented under
  `infer_datetime_format : bool`);
- a note elsewhere with a sentence that names a parameter in quotes or backticks beside the
  word argument, parameter, keyword or kwarg and says it is deprecated, removed, ignored or
  without effect (`The ``squeeze`` keyword is deprecated`) is about that parameter;
- any other `.. deprecated::` or `Deprecated:` note is about the callable itself.

What it takes: the docstring text and the callable's parameter names (`catch_all` when it
takes `**kwargs`: a documented keyword it swallows is one too). What it gives: `Notes`, whether
the callable itself is deprecated and which parameters are. Pure: no griffe, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

# A note that deprecates what it sits in (function level when it sits at the top).
WHOLE = re.compile(r"^\s*(?:\.\. deprecated::|Deprecated[:.])")
# A note that can only be read about a parameter (too loose to deprecate a function).
SINCE = re.compile(r"\bdeprecated since\b", re.IGNORECASE)
PARAMETER_SECTIONS = frozenset(
    {"parameters", "params", "args", "arguments", "keyword args", "keyword arguments",
     "other parameters", "kwargs", "keyword parameters"}
)  # fmt: skip
GOOGLE_HEADER = re.compile(r"^(\s*)([A-Z][A-Za-z ]*):\s*$")
UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
ENTRY = re.compile(r"^\s*\*{0,2}([A-Za-z_]\w*)\s*(?:[:(,]|$)")
NAMED = r"(?:``|`|'|\"|\*){name}(?:``|`|'|\"|\*)"
ABOUT_PARAMETER = r"(?i:argument|parameter|keyword|kwarg|option)s?\b"
SAYS_GONE = re.compile(r"deprecat|removed|ignored|no effect", re.IGNORECASE)
DIRECTIVE = re.compile(r"\.\. deprecated::\s*\S*")


@dataclass(frozen=True)
class Notes:
    """What a docstring's deprecation notes are about."""

    whole: bool  # the callable itself is deprecated
    parameters: tuple[str, ...] = ()  # only these parameters are


@dataclass
class _Section:
    parameters: bool  # a parameters section
    indent: int  # its header's indentation
    entry_indent: int | None = None  # the indentation of its entries, from the first one
    entry: str | None = None  # the entry the lines read last belong to


def notes(text: str, parameters: Iterable[str], *, catch_all: bool = False) -> Notes:
    """The deprecation notes of a docstring, each about the callable or one parameter."""
    names = frozenset(parameters)
    lines = text.splitlines()
    whole = False
    about: list[str] = []
    section: _Section | None = None
    for index, line in enumerate(lines):
        section = _section_at(lines, index, section)
        marker = WHOLE.match(line) is not None
        if not marker and SINCE.search(line) is None:
            continue
        subject = _subject(lines, index, section, names, catch_all)
        if subject is not None:
            about.append(subject)
        elif marker and (section is None or not section.parameters):
            whole = True
    return Notes(whole, tuple(dict.fromkeys(about)))


def _section_at(lines: list[str], index: int, current: _Section | None) -> _Section | None:
    """The section line `index` is in (a header line opens one; its entries are tracked)."""
    line = lines[index]
    if not line.strip():
        return current
    indent = _indent(line)
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if UNDERLINE.match(following) and _indent(following) == indent:  # numpydoc header
        return _Section(line.strip().lower() in PARAMETER_SECTIONS, indent)
    if UNDERLINE.match(line):
        return current
    google = GOOGLE_HEADER.match(line)
    if google and google.group(2).lower() in PARAMETER_SECTIONS:
        return _Section(True, indent, entry_indent=None)
    if current is None:
        return None
    if current.entry_indent is None and current.parameters:
        current.entry_indent = indent if indent >= current.indent else None
    if current.parameters and current.entry_indent is not None:
        if indent < current.entry_indent:  # dedented past the entries: the section ended
            return None
        entry = ENTRY.match(line) if indent == current.entry_indent else None
        if entry is not None:
            current.entry = entry.group(1)
    return current


def _subject(
    lines: list[str], index: int, section: _Section | None, names: frozenset[str], catch_all: bool
) -> str | None:
    """The parameter a note at line `index` is about, or None (the callable, or nothing)."""
    if (
        section is not None
        and section.parameters
        and section.entry_indent is not None
        and _indent(lines[index]) > section.entry_indent
        and _known(section.entry, names, catch_all)
    ):
        return section.entry
    text = DIRECTIVE.sub(" ", " ".join(line.strip() for line in _paragraph(lines, index)))
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        if SAYS_GONE.search(sentence) is None:
            continue
        for name in sorted(names):
            quoted = NAMED.format(name=re.escape(name))
            if re.search(rf"{quoted}\s+{ABOUT_PARAMETER}|{ABOUT_PARAMETER}\s+{quoted}", sentence):
                return name
    return None


def _known(name: str | None, names: frozenset[str], catch_all: bool) -> bool:
    return name is not None and (name in names or catch_all)


def _paragraph(lines: list[str], index: int) -> list[str]:
    """The note's text: its line and what follows it, up to a blank line or a dedent."""
    indent = _indent(lines[index])
    out = [lines[index]]
    for line in lines[index + 1 :]:
        if not line.strip() or (_indent(line) < indent):
            break
        out.append(line)
    if len(out) == 1:  # a directive whose content is indented after a blank line
        rest = [line for line in lines[index + 1 : index + 4] if line.strip()]
        out += [line for line in rest[:2] if _indent(line) > indent]
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
