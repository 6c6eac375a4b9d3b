# Maintainers: a run replayed. When nothing an audit rests on has changed since an earlier
# run asked the same thing, that run's report is shown again: no release resolved, no
# source read, nothing parsed, nothing fetched (like ccache's direct mode, or mypy's cache
# of a module whose inputs are unchanged, for the whole run).
#
# Owns: the replay store, `replay/<key>.json` under the cache root (MAX_ENTRIES newest are
# kept); the key of a run; the check that an entry still holds.
# - The key (run_key) hashes what the run is asked and how it runs: the caller's parts (the
#   command line and the settings as merged, the index settings, the working folder, the
#   baseline file's content), the environment variables drift-audit reads, whether stdout
#   and stderr are terminals, the Python running it, the code (the size and mtime of every
#   file of this package) and the installed libraries (the mtime of each site-packages
#   folder, which any install or upgrade changes).
# - An entry (save) holds the report and its pipeline.Provenance: the cache records and
#   pages the run read (by Confined.signature; a cache file is only ever replaced by a
#   rename, so a changed one has another inode or mtime), the entries of each project's
#   trees index.json it used (that file is rewritten whenever another release of the project
#   is fetched), and until when its pages are fresh. A run whose sources could change under
#   the same names (an installed distribution, a local archive, folder provider or index) is
#   never kept (Provenance.unreplayable). A folder consumer is kept with folder_state():
#   every source and metadata file it holds (and the project files above it) by size, mtime,
#   ctime and inode; not kept when one changed less than RACY_SECONDS before the run began
#   (its next change could keep the same mtime: git's "racily clean" rule) or it holds a
#   link.
# - load() gives the report only when every signature is the same and the pages are still
#   fresh, so a replay answers exactly what a run would: the derived memos (kept scans,
#   lookups, chains) are functions of those inputs and the code, both in the key.
# Takes: the cache root, a key, a Report. Gives: a Report with stats.replayed, or None.
# Every failure to read or write an entry is only a miss. DRIFT_AUDIT_NO_REPLAY=1: none.
"""Replaying a run whose inputs are unchanged."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sys
import time
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.files import Confined

if TYPE_CHECKING:
    from collections.abc import Sequence

    from auditor.model import Provenance, Report

logger = logging.getLogger("drift_audit")
FORMAT = 1
FOLDER = "replay"
MAX_BYTES = 64 << 20
MAX_ENTRIES = 64
MAX_INDEX_BYTES = 16 << 20  # a project's trees index.json (sources/cache.py's record limit)
SWITCH = "DRIFT_AUDIT_NO_REPLAY"
RACY_SECONDS = 2.0
PY_SUFFIXES = (".py", ".pyi")
METADATA_NAMES = frozenset(
    {"pyproject.toml", "setup.cfg", "setup.py", "PKG-INFO", "METADATA", "top_level.txt",
     "entry_points.txt", "direct_url.json", "RECORD"}
)  # fmt: skip
_ENV_PREFIXES = ("DRIFT_AUDIT_", "PIP_", "XDG_")
_ENV_NAMES = (
    "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS", "HOME",
    "VIRTUAL_ENV", "NETRC",
)  # fmt: skip


def enabled() -> bool:
    return not (os.environ.get(SWITCH) or os.environ.get("DRIFT_AUDIT_NO_MEMO"))


def run_key(parts: Sequence[str]) -> str:
    """The key of a run asked as `parts` say, here, now, by this code."""
    digest = hashlib.sha256(f"{FORMAT}\0{code_stamp()}\0".encode())
    env = sorted(
        (k, v) for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES
    )
    terminals = (_isatty(sys.stdout), _isatty(sys.stderr))
    for part in (*parts, repr(env), repr(terminals), str(Path.cwd())):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:40]


@cache
def code_stamp() -> str:
    """This package's files (path, size, mtime) and each site-packages folder's mtime, with
    the Python that runs them: a replay never outlives a change to the code that made it."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{sys.version}\0{sys.executable}\0{sys.platform}\0".encode())
    for folder, dirs, names in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(folder, name)  # noqa: PTH118 (os.walk's strings; no Path per file)
            with contextlib.suppress(OSError):
                st = os.stat(path)  # noqa: PTH116
                digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    for entry in sys.path:
        if entry.endswith("site-packages"):
            with contextlib.suppress(OSError):
                digest.update(f"{entry}\0{os.stat(entry).st_mtime_ns}\n".encode())  # noqa: PTH116
    return digest.hexdigest()


def load(cache_root: Path, key: str) -> Report | None:
    """The report kept under `key` if everything it rests on is unchanged; else None."""
    fs = Confined(cache_root)
    entry = fs.read_json(f"{FOLDER}/{key}.json", limit=MAX_BYTES)
    if entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    fresh_until = entry.get("fresh_until")
    if fresh_until is not None and not (
        isinstance(fresh_until, float) and time.time() < fresh_until
    ):
        return None
    consulted = entry.get("consulted")
    if not isinstance(consulted, list) or not all(_holds(fs, row) for row in consulted):
        return None
    entries = entry.get("entries")
    if not isinstance(entries, list) or not all(_same_entries(fs, row) for row in entries):
        return None
    folder = entry.get("folder")
    if folder is not None and (
        not isinstance(folder, str) or _listed(folder_state(Path(folder))) != entry.get("files")
    ):
        return None
    from auditor.errors import AuditError
    from auditor.reporters.json_report import from_dict

    try:
        report = from_dict(entry.get("report"), where="a kept report")
    except AuditError:
        return None
    logger.info("replayed: every input is the same as in a run at %s", _when(entry.get("made")))
    # this run's work: nothing parsed, fetched or asked; what the consumer holds is the same
    done = replace(
        report.stats,
        provider_modules_loaded=0,
        provider_modules_cached=0,
        provider_modules_earlier=0,
        bytes_fetched=0,
        requests=0,
        replayed=True,
    )
    return replace(report, stats=done)


def save(
    cache_root: Path, key: str, report: Report, provenance: Provenance, *, began: float
) -> None:
    """Keep `report` under `key`, unless its sources could change under the same names
    (`began`: when the run began, time.time())."""
    if provenance.unreplayable:
        logger.debug("not kept for a replay: %s", provenance.unreplayable)
        return
    files = None
    if provenance.folder is not None:
        state = folder_state(Path(provenance.folder))
        racy = (began - RACY_SECONDS) * 1e9
        if state is None or any(mtime >= racy for _, mtime, _ in state):
            logger.debug("not kept for a replay: the consumer folder changed just now")
            return
        files = _listed(state)
    from auditor.reporters.json_report import to_dict

    fresh = provenance.fresh_until
    entry: dict[str, Any] = {
        "format": FORMAT,
        "key": key,
        "made": time.time(),
        "fresh_until": None if math.isinf(fresh) else fresh,
        "consulted": [[rel, list(sig) if sig else None] for rel, sig in provenance.consulted],
        "entries": [[rel, [list(pair) for pair in used]] for rel, used in provenance.entries],
        "folder": provenance.folder,
        "files": files,
        "report": to_dict(report, undecided=True),
    }
    fs = Confined(cache_root)
    try:
        fs.write(f"{FOLDER}/{key}.json", json.dumps(entry, separators=(",", ":")).encode())
        _prune(fs)
    except (OSError, ValueError) as error:
        logger.debug("could not keep the report for a replay: %s", error)


FileState = tuple[str, int, tuple[int, int, int, int]]  # path, mtime, (size, mtime, ctime, ino)


def folder_state(folder: Path) -> list[FileState] | None:
    """What a folder consumer's audit can read, by signature: under `folder` every .py/.pyi
    file, every metadata file (METADATA_NAMES) and everything in a .dist-info/.egg-info
    folder, hidden folders and __pycache__ left out; above it, the project files of each
    folder up to the root (present or absent), the PKG-INFOs a package folder's metadata may
    come from (sources/local.py) and, beside it, `<name>.py(i)`. None when it
    holds a link (where it leads could change unseen) or cannot be read."""
    found: list[FileState] = []
    try:
        if not _walk_state(str(folder), False, found):
            return None
        above = [folder.parent / f"{folder.name}{s}" for s in PY_SUFFIXES]
        for parent in folder.parents:
            above.extend(parent / name for name in ("pyproject.toml", "setup.cfg", "setup.py"))
        for project in list(folder.parents)[:2]:  # where a package folder's metadata is read
            above.append(project / "PKG-INFO")
            above.extend(sorted(project.glob("*.egg-info/PKG-INFO")))
            above.extend(sorted(project.glob("src/*.egg-info/PKG-INFO")))
        for path in above:
            try:
                found.append(_state(str(path), path.lstat()))
            except FileNotFoundError:
                found.append((str(path), 0, (-1, -1, -1, -1)))
    except (OSError, RecursionError):
        return None
    return found


def _walk_state(folder: str, meta: bool, found: list[FileState]) -> bool:
    """folder_state() below one folder, in name order; False at the first link."""
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.is_symlink():
            return False
        if entry.is_dir(follow_symlinks=False):
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            inner = meta or entry.name.endswith((".dist-info", ".egg-info"))
            if not _walk_state(entry.path, inner, found):
                return False
        elif meta or entry.name.endswith(PY_SUFFIXES) or entry.name in METADATA_NAMES:
            found.append(_state(entry.path, entry.stat(follow_symlinks=False)))
    return True


def _state(path: str, st: os.stat_result) -> FileState:
    return (path, st.st_mtime_ns, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))


def _listed(state: list[FileState] | None) -> list[list[Any]] | None:
    """folder_state() as kept in an entry (JSON lists)."""
    if state is None:
        return None
    return [[path, *sig] for path, _, sig in state]


def _holds(fs: Confined, row: object) -> bool:
    """Whether a cache file read by the kept run is still the one it read (or still absent)."""
    if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)):
        return False
    try:
        now = fs.signature(row[0])
    except (OSError, ValueError):
        return False
    return bool((list(now) if now else None) == row[1])


def _same_entries(fs: Confined, row: object) -> bool:
    """Whether a trees index.json still maps each version the kept run used to the same
    tree (other versions published since change nothing the run read)."""
    if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)):
        return False
    rel, used = row
    now = fs.read_json(rel, limit=MAX_INDEX_BYTES)
    if not now or not isinstance(used, list):
        return False
    return all(
        isinstance(pair, list) and len(pair) == 2 and now.get(pair[0]) == pair[1] for pair in used
    )


def _prune(fs: Confined) -> None:
    """The MAX_ENTRIES newest entries kept (one per command line asked)."""
    names = [n for n in fs.listdir(FOLDER) if n.endswith(".json")]
    if len(names) <= MAX_ENTRIES:
        return
    aged = sorted(names, key=lambda n: (fs.signature(f"{FOLDER}/{n}") or (0, 0, 0))[1])
    for name in aged[: len(names) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            fs.remove(f"{FOLDER}/{name}")


def _when(made: object) -> str:
    if not isinstance(made, float):
        return "an unknown time"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(made))


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
