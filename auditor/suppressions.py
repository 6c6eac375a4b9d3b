# Maintainers: inline suppressions (`# drift-audit: ignore[KIND]`), as the findings use them.
#
# Owns: whether a comment on a line of a finding's span suppresses it; the comments, or the
# kinds of one, that suppress nothing (unused); and what is said of them: a kind the comment
# names that is no kind of the catalogue (a misspelling, `unexpected-keywrd`) is called
# unknown, with the kind it was most likely meant to be, as `--select` says of one
# (config.unknown_kind_hint), on stderr and in the unused-suppression finding's suggestion.
# Takes: the scan's suppressions (path -> line -> slugs, as scan/source.suppressions reads
# them) and findings. Gives: unused entries `(path, line, kinds)`, notes and warning lines.
"""Inline suppressions: what they suppress, and what they name that is no kind."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from auditor.config import unknown_kind_hint
from auditor.kinds import Kind
from auditor.model import Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from auditor.model import Finding

COMMENT = re.compile(r"#\s*drift-audit\s*:\s*ignore(?:\[[^\]]*\])?")


def unused_suppressions(
    suppressions: Mapping[str, Mapping[int, frozenset[str]]], findings: Iterable[Finding]
) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """`(path, line, kinds)` of each suppression comment, or part of one, that matched nothing.

    A comment is used by a suppressed finding when it sits on a line of the finding's span
    (any line of a call over several). A bare `# drift-audit: ignore` is unused when it
    suppresses no finding (kinds `()`); `ignore[a, b]` lists the slugs among a and b that
    suppress no finding (a slug that is no kind never does).
    """
    used: dict[tuple[str, int], set[str]] = {}
    for f in findings:
        if f.status is Status.SUPPRESSED:
            for line in _suppressing_lines(f, suppressions):
                used.setdefault((f.location.path, line), set()).add(f.kind.slug)
    unused: list[tuple[str, int, tuple[str, ...]]] = []
    for path in sorted(suppressions):
        for line, kinds in sorted(suppressions[path].items()):
            matched = used.get((path, line), set())
            if not kinds and not matched:
                unused.append((path, line, ()))
            elif kinds - matched:
                unused.append((path, line, tuple(sorted(kinds - matched))))
    return tuple(unused)


def suppressed(finding: Finding, suppressions: Mapping[str, Mapping[int, frozenset[str]]]) -> bool:
    """Whether a suppression comment on any line of the finding's span covers its kind (the
    carets of a multi-line call point at the keyword's line: a comment there works too)."""
    return bool(_suppressing_lines(finding, suppressions))


def _suppressing_lines(
    finding: Finding, suppressions: Mapping[str, Mapping[int, frozenset[str]]]
) -> list[int]:
    """The lines of the finding's span whose suppression comment covers its kind."""
    where = finding.location
    in_file = suppressions.get(where.path, {})
    last = max(where.line, where.end_line)
    return [
        line
        for line in range(where.line, last + 1)
        if (kinds := in_file.get(line)) is not None and (not kinds or finding.kind.slug in kinds)
    ]


def unknown_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """The slugs among `kinds` that are no kind of the catalogue, in order."""
    known = {kind.slug for kind in Kind}
    return tuple(slug for slug in kinds if slug not in known)


MAX_NAMED = 3  # unknown slugs of one comment spelt out; the rest are counted


def unknown_note(kinds: Iterable[str]) -> str | None:
    """What to say of the slugs an unused comment names that are no kind (None: all are
    kinds): each unknown, with the closest kind, as `--select` says it; past MAX_NAMED of
    them, how many more."""
    unknown = unknown_kinds(kinds)
    if not unknown:
        return None
    named = ", ".join(_with_closest(slug) for slug in unknown[:MAX_NAMED])
    more = len(unknown) - MAX_NAMED
    rest = f" and {more} more" if more > 0 else ""
    word = "kind" if len(unknown) == 1 else "kinds"
    return f"unknown {word} {named}{rest}; `drift-audit --list-kinds` lists them"


def _with_closest(slug: str) -> str:
    hint = unknown_kind_hint(slug)  # "did you mean 'x'? `drift-audit --list-kinds` lists them"
    close = hint.split("? ", 1)[0] + "?" if hint.startswith("did you mean") else None
    return f"{slug!r} ({close})" if close else repr(slug)


def unused_warnings(unused: Iterable[tuple[str, int, tuple[str, ...]]]) -> list[str]:
    """The stderr lines of the unused comments: one for the kinds a comment names that are
    no kind at all, one for those (or a bare `ignore`) that matched nothing."""
    lines = []
    for path, line, kinds in unused:
        unknown = unknown_kinds(kinds)
        note = unknown_note(unknown)
        if note is not None:
            lines.append(f"{path}:{line}: unused suppression: {note}")
        known = tuple(k for k in kinds if k not in unknown)
        if known or not kinds:
            comment = f"ignore[{', '.join(known)}]" if known else "ignore"
            lines.append(
                f"{path}:{line}: unused suppression `# drift-audit: {comment}`: "
                "no such finding on this line"
            )
    return lines
