# Maintainers: the fixes proposed for a file, kept in the cache, so that a warm run of a
# report that carries fixes (JSON, SARIF, HTML) does not import libcst (~0.1 s) to propose
# them again.
#
# Owns: `fixes/<code>/<text sha256>.json` under the cache root: for one consumer file's text,
# each finding's Fix (or none), keyed by the finding as the fix stage sees it (every field:
# kind, place, hint...). <code> hashes fixes.py and model.py, so a kept proposal never
# outlives a change to how proposals are made. Every failure to read or write is a miss.
# Takes: the findings with hints, a reader of consumer files, fixes.propose for what is not
# kept. Gives: the findings with their fixes, as fixes.propose would. DRIFT_AUDIT_NO_MEMO=1 or
# DRIFT_AUDIT_NO_FIX_KEEP=1: nothing kept.
"""Fix proposals kept per file text."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.files import Confined
from auditor.model import Finding, Fix, text_digest
from auditor.scan.store import Mismatch, decode, encode

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

logger = logging.getLogger("drift_audit")
SWITCH = "DRIFT_AUDIT_NO_FIX_KEEP"
MAX_BYTES = 16 << 20


def with_fixes(
    findings: tuple[Finding, ...],
    read: Callable[[str], str | None],
    root: Path | None,
    propose: Callable[[Sequence[Finding], Callable[[str], str | None]], tuple[Finding, ...]],
) -> tuple[Finding, ...]:
    """`findings`, each with its Fix where its hint applies: kept ones read back, the others
    proposed (`propose`, fixes.propose) and kept."""
    if root is None or os.environ.get(SWITCH) or os.environ.get("DRIFT_AUDIT_NO_MEMO"):
        return propose(findings, read)
    fs = Confined(root)
    texts: dict[str, str | None] = {}
    out = list(findings)
    missing: dict[str, list[int]] = {}  # text sha256 -> indexes
    kept: dict[str, dict[str, Any]] = {}
    for i, finding in enumerate(findings):
        if finding.hint is None:
            continue
        path = finding.module_path or finding.location.path
        if path not in texts:
            texts[path] = read(path)
        text = texts[path]
        if text is None:
            continue
        sha = text_digest(text)
        if sha not in kept:
            kept[sha] = fs.read_json(_rel(sha), limit=MAX_BYTES)
        key = _finding_key(finding)
        if key in kept[sha]:
            fix = _decoded(kept[sha][key], sha)
            if fix is not _MISS:
                out[i] = replace(finding, fix=fix) if isinstance(fix, Fix) else finding
                continue
        missing.setdefault(sha, []).append(i)
    if not missing:
        return tuple(out)
    asked = [findings[i] for indexes in missing.values() for i in indexes]
    proposed = propose(asked, read)
    for i, made in zip((i for idx in missing.values() for i in idx), proposed, strict=True):
        out[i] = made
    for sha, indexes in missing.items():
        entry = kept[sha]
        for i in indexes:
            entry[_finding_key(findings[i])] = encode(out[i].fix)
        _save(fs, sha, entry)
    return tuple(out)


@cache
def _version() -> str:
    """A hash of the code proposals depend on."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    names = (
        "fixes.py",
        "fixtext.py",
        "fixsplice.py",
        "model.py",
        "fixkeep.py",
        "scan/store.py",
        "bind.py",
        "scan/source.py",
    )
    for name in names:  # store: the codec; bind: the names a fix may write; source: parsing
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()[:16]


def _finding_key(finding: Finding) -> str:
    """The finding as the fix stage sees it (every field but its fix), hashed."""
    return hashlib.sha256(repr(replace(finding, fix=None)).encode()).hexdigest()[:32]


def _rel(sha: str) -> str:
    return f"fixes/{_version()}/{sha[:40]}.json"


def _save(fs: Confined, sha: str, entry: dict[str, Any]) -> None:
    try:
        fs.write(_rel(sha), json.dumps(entry, separators=(",", ":")).encode())
    except (OSError, ValueError) as error:
        logger.debug("could not keep the proposed fixes: %s", error)


_MISS = object()


def _decoded(data: Any, sha: str) -> Fix | object | None:
    """A kept Fix (by the kept scan's codec, scan/store.py) made against this very text;
    None for a finding with no fix; _MISS for anything else."""
    try:
        fix = decode(data, Fix | None)
    except (Mismatch, TypeError):
        return _MISS
    return fix if fix is None or fix.digest == sha else _MISS
