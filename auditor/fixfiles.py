# Maintainers: the fix stage on disk: what --fix writes and --diff shows.
#
# Owns: per consumer file with a chosen fix, its text now, its fixed text and the bytes that
# go back to disk (FixedFile), and the unified diff of them all. A file is read as the audit
# read it (a FolderTree over the import root: files.read_under, a link followed only inside
# the folder named, ConsumerInfo.confine: a package folder, not its parent; decoded as
# Python decodes it, sources/trees.decode_source), and written inside that folder, back in
# the encoding it was read in (a BOM stays, a coding cookie's encoding too). A file changed
# since the audit read it is an AuditError: fixes are made against the text that was
# audited, never another. The fixed text is the old one with each edited call or import
# spliced in (fixes.apply, fixsplice.py): every other byte stays, line ends and all. A file
# is left alone, with a warning naming it, when libcst does not read the edited code as Python
# does (fixes.Applied.refused), when its fixed text would not parse (fixtext.parses: the
# proposals are checked too, this is the last look) or its AST would differ from the old
# one's anywhere but at the edited nodes (fixsplice.only_edited), when that text cannot be
# written in the file's encoding, or when the writer would refuse it (files.refusal: a link,
# several hard links, not a regular file); its findings stay.
# --diff shows exactly what --fix would write; every line it prints goes through
# escape.terminal() (line endings kept), so a source line or a file name cannot reach the
# terminal or a CI log raw, and a plain text diff is difflib's, byte for byte.
# Takes: a Report whose findings carry fixes. Gives: FixedFiles, their files.Output records
# (written by files.write_outputs, all or nothing), the diff text. Imports libcst (fixes.py)
# only when a file is fixed.
"""The files --fix rewrites and the diff --diff prints."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.errors import AuditError
from auditor.escape import terminal
from auditor.files import Output, refusal
from auditor.model import Status, text_digest

if TYPE_CHECKING:
    from auditor.model import Finding, Report

log = logging.getLogger("drift_audit")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # lines as the parser ends them


@dataclass(frozen=True, slots=True)
class FixedFile:
    path: Path  # on disk
    shown: str  # relative to the project root, as reports name it
    old: str
    new: str
    fixed: tuple[Finding, ...]
    data: bytes = b""  # `new` in the file's own encoding: what --fix writes


def fixed_files(report: Report, *, unsafe: bool, option: str) -> list[FixedFile]:
    """Per file with a chosen fix that can be written: its path, old and new text, the
    findings fixed. AuditError for a report that is not a folder's, or a file that cannot
    be read or changed since the audit read it (nothing is written then)."""
    if report.consumer.root is None:
        raise AuditError(
            f"{option} works on a folder consumer, and this one is not a folder",
            hint="point CONSUMER at the project or package folder (unpack a release first)",
        )
    root = Path(report.consumer.root)
    inside = Path(report.consumer.confine or root)  # a package folder: not its parent
    out = []
    for module_path, chosen in sorted(_chosen(report, unsafe=unsafe).items()):
        change = _fixed_file(root, inside, module_path, chosen, unsafe=unsafe)
        if change is not None:
            out.append(change)
    return out


def outputs(changes: list[FixedFile], root: Path) -> list[Output]:
    """What files.write_outputs writes for --fix: every file or none, never a hard link,
    each inside `root` (the consumer's confine)."""
    return [Output(c.path, c.data, root=root, keep_links=False) for c in changes]


def diff_text(report: Report, *, unsafe: bool) -> str:
    """--diff: the fixes as one unified diff (a/ and b/ paths relative to the project root),
    each line escaped for the terminal."""
    return diff_of(fixed_files(report, unsafe=unsafe, option="--diff"))


def diff_of(changes: list[FixedFile]) -> str:
    """The unified diff of these fixed files, each line escaped for the terminal."""
    import difflib

    chunks: list[str] = []
    for change in changes:
        chunks.extend(
            difflib.unified_diff(
                _LINES.findall(change.old),
                _LINES.findall(change.new),
                fromfile=f"a/{change.shown}",
                tofile=f"b/{change.shown}",
            )
        )
    return "".join(_shown(line) for line in chunks)


def _shown(line: str) -> str:
    """One diff line for the terminal: its text escaped, its line ending kept (a lone CR,
    which would let the next line overwrite it, shown as \\x0d before a line feed)."""
    for end in ("\r\n", "\n", "\r"):
        if line.endswith(end):
            return terminal(line[: -len(end)]) + ("\\x0d\n" if end == "\r" else end)
    return terminal(line)


def _chosen(report: Report, *, unsafe: bool) -> dict[str, list[Finding]]:
    """The findings whose fix is applied, by file (relative to the import root)."""
    by_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        if finding.fix is None or finding.status is Status.SUPPRESSED:
            continue
        if finding.fix.safe or unsafe:
            by_file.setdefault(finding.module_path or finding.location.path, []).append(finding)
    return by_file


def _fixed_file(
    root: Path, inside: Path, module_path: str, chosen: list[Finding], *, unsafe: bool
) -> FixedFile | None:
    path = root / module_path
    data, old = _read(root, inside, module_path)
    if any(f.fix is not None and f.fix.digest != text_digest(old) for f in chosen):
        raise AuditError(
            f"{path} changed since it was audited; nothing was written",
            hint="run drift-audit --fix again",
        )
    new, done, why = fixed_text(module_path, old, chosen, unsafe=unsafe)
    if new == old and why is None:
        return None
    encoded = b""
    if why is None:
        encoded, why = _written(root, inside, module_path, data, old, new)
    if why is not None:
        shown = chosen[0].location.path
        log.warning("not fixing %s: %s; its findings stay (fix it by hand)", shown, why)
        return None
    return FixedFile(path, chosen[0].location.path, old, new, tuple(done), encoded)


def fixed_text(
    module_path: str, old: str, chosen: list[Finding], *, unsafe: bool
) -> tuple[str, list[Finding], str | None]:
    """The file's text with the chosen fixes spliced in (fixes.apply), the findings fixed,
    and why that text is not written (None: it is): it would not parse, or its AST would
    differ from the old one's anywhere but at the edited calls and imports (fixsplice.py)."""
    from auditor import fixes
    from auditor.fixsplice import only_edited
    from auditor.fixtext import parses

    applied = fixes.apply(old, chosen, unsafe=unsafe)
    if applied.refused is not None:
        return old, [], applied.refused
    if applied.text == old:
        return old, [], None
    if not parses(module_path, applied.text):
        return old, [], "the fixed text would not parse"
    if not only_edited(module_path, old, applied.text, applied.splices):
        return old, [], "the fixed text would change more than the edited calls and imports"
    return applied.text, applied.fixed, None


def _read(root: Path, inside: Path, module_path: str) -> tuple[bytes, str]:
    """The file's bytes and text, read as the audit reads a consumer's file."""
    from auditor.sources.trees import FolderTree, decode_source

    path = root / module_path
    try:
        data = FolderTree(root, strict=True, confine=inside).read_bytes(module_path)
        text = decode_source(data, strict=True) if data is not None else None
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"cannot fix {path}: {exc}", hint="fix it by hand") from exc
    if data is None or text is None:
        raise AuditError(f"cannot fix {path}: it is gone, or not a file drift-audit reads")
    return data, text


def _written(
    root: Path, inside: Path, module_path: str, data: bytes, old: str, new: str
) -> tuple[bytes, str | None]:
    """The fixed text as the bytes to write, and why they are not written (None: they are)."""
    from auditor.sources.trees import source_encoding

    encoding = source_encoding(data)
    try:
        if old.encode(encoding) != data:
            return b"", f"its text would not be written back as the same {encoding} bytes"
        encoded = new.encode(encoding)
    except (UnicodeError, LookupError):
        return b"", f"the fixed text cannot be written in the file's encoding, {encoding}"
    return encoded, refusal(Output(root / module_path, encoded, root=inside, keep_links=False))
