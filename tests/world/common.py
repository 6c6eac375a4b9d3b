"""What run.py, judge.py and score.py share: the work folder, the command line, files.

The work folder (default `~/.cache/drift-audit-world/`, `DRIFT_AUDIT_WORLD_DIR` to move it)
keeps everything a rerun reuses:

    cache/                       drift-audit's --cache-dir, one for every upgrade
    upgrades/<id>/consumers.txt  the dependents audited (manifest order, --limit applied)
    upgrades/<id>/store-<tool>.sqlite   drift-audit's --store, one per tool digest
    upgrades/<id>/ecosystem.json the ecosystem report (drift-audit --format json)
    upgrades/<id>/judged.json    the judge's verdicts and the touchpoint breaks
    venvs/<provider>-<version>-py<python>/   scratch venvs with one provider release
    consumers/<name>-<version>/  a consumer release, downloaded and extracted (never run)
    home/                        HOME of every probe (providers that write caches there)
    upgrades/<id>/suites.json    the test-suite judge's suites and breaks (suites.py)
    suites/sdists/<name>-<version>/      a dependent's sdist, extracted whole (its tests)
    suites/outcomes/<id>/<name>-<version>/  each suite's outcome, by side, provider release
                                 and a digest of the judge's modules (what a rerun resumes)
    suites/venvs/, suites/runs/  a dependent's two venvs and run folders while its suites run
    suites/dates/                release upload times per package (the cut-off caps)
    suites/home/, suites/tmp/, pip-cache/   HOME, TMPDIR and pip's cache of its installs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / ".venv" / "bin" / "drift-audit"


def work_dir() -> Path:
    folder = os.environ.get("DRIFT_AUDIT_WORLD_DIR") or "~/.cache/drift-audit-world"
    path = Path(folder).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def upgrade_dir(work: Path, upgrade_id: str) -> Path:
    path = work / "upgrades" / upgrade_id
    path.mkdir(parents=True, exist_ok=True)
    return path


def tool_digest() -> str:
    """A digest of drift-audit's own sources: a store is reused only by the same tool."""
    sha = hashlib.sha256()
    for path in sorted((REPO / "auditor").rglob("*")):
        if path.is_file() and path.suffix in {".py", ".md", ".json", ".html", ".j2"}:
            sha.update(path.relative_to(REPO).as_posix().encode())
            sha.update(path.read_bytes())
    return sha.hexdigest()[:12]


def parser(description: str) -> argparse.ArgumentParser:
    """The options every stage takes (make world passes WORLD_ARGS to all three)."""
    cli = argparse.ArgumentParser(description=description)
    cli.add_argument("--manifest", type=Path, default=None, help="default: manifest.toml")
    cli.add_argument("--only", action="append", default=None, metavar="ID", help="an upgrade id")
    cli.add_argument("--limit", type=int, default=None, metavar="N", help="first N dependents")
    return cli


def manifest_of(args: argparse.Namespace) -> Any:
    """The manifest the options name (or the default one, saying when it is the dev one)."""
    from tests.world.manifest import default_manifest, load

    path = args.manifest
    if path is None:
        path, message = default_manifest()
        if message:
            say(f"world: {message}")
    return load(path)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> None:
    """Sorted keys, two-space indent, a final newline; written to a temp file, then renamed."""
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_text(path, text)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    Path(tmp).replace(path)
