# Maintainers: a site decided by the difference between two releases.
#
# Owns: `Basis`, what one site's verdict against one release rests on: every lookup it made,
#       with the answer, and every provider module those answers read, with the digest of
#       its files (the memo's own dependencies, provider/memo.py); `basis()`, which gives
#       None when the verdict rests on something the files do not settle (an unknown that is
#       not `closed`, a compiled module with no stub, a file that could not be read, a
#       callable whose signature is hidden by code that was not followed); `unchanged()`.
#       A site the newest target leaves undecided is decided "unchanged" when the baseline's
#       basis is the same: the same lookups, the same answers, the same files, and what is
#       still unknown lies outside the provider (the standard library, another distribution,
#       the program's own data) or in those very files. Python's answer is then the same in
#       both releases: the upgrade does not break the site. It is counted, never a finding.
# Takes: the lookups a check made (pipeline._VerdictMemo) and the provider's dependencies.
# Gives: bases and yes/no. Pure.
"""Decide by difference: what a verdict rests on, compared between two releases."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.model import Lookup

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from auditor.model import Resolution

Query = tuple[str, bool, bool, "Resolution"]  # dotted, module_only, from_import, answer
Deps = tuple[tuple[str, str], ...]  # (module, digest of its files)
Basis = tuple[tuple[Query, ...], frozenset[tuple[str, str]]]
OPAQUE_DIGESTS = ("compiled",)  # an extension module with no stub: its bytes are not read
UNREADABLE = ":unreadable"


def basis(
    queries: Iterable[Query], deps_of: Callable[[str, bool, bool], Deps | None]
) -> Basis | None:
    """What a verdict rests on, or None when the files it read do not settle it."""
    asked: list[Query] = []
    files: set[tuple[str, str]] = set()
    for dotted, module_only, from_import, answer in queries:
        if not _settled(answer):
            return None
        deps = deps_of(dotted, module_only, from_import)
        if deps is None or any(_opaque(digest) for _, digest in deps):
            return None
        files.update(deps)
        asked.append((dotted, module_only, from_import, answer))
    return tuple(asked), frozenset(files)


def unchanged(before: Basis | None, after: Basis | None) -> bool:
    """Whether two releases give a verdict on the same basis (so Python's same answer)."""
    return before is not None and before == after


def _settled(answer: Resolution) -> bool:
    """An answer the files it read settle: found (with nothing hidden), missing, or an
    unknown whose cause lies outside them (`closed`)."""
    if answer.status in (Lookup.UNKNOWN, Lookup.UNLISTED):
        return answer.closed
    if answer.status is Lookup.UNREADABLE:
        return False
    symbol = answer.symbol
    return symbol is None or symbol.why_unknown is None or symbol.unknown_closed


def _opaque(digest: str) -> bool:
    return digest in OPAQUE_DIGESTS or digest.endswith(UNREADABLE)
