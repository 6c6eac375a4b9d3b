"""The official SARIF 2.1.0 JSON Schema, for the tests that validate drift-audit's SARIF.

The schema is OASIS's, so it is not copied into this repository. It is found, in order: the
file named by $DRIFT_AUDIT_SARIF_SCHEMA; `../shared/schemas/sarif-schema-2.1.0.json` beside
the checkout; the copy downloaded once into the user cache
(`<user cache>/drift-audit-tests/sarif-schema-2.1.0.json`, by the network test
tests/functional/test_sarif_schema.py, which `make test` runs before the unit tests).
`local_schema()` never uses the network; `fetched_schema()` downloads when none is found.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import jsonschema
import platformdirs

ENV = "DRIFT_AUDIT_SARIF_SCHEMA"
NAME = "sarif-schema-2.1.0.json"
URL = f"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/{NAME}"
TIMEOUT = 30  # seconds, for the one download
REPO_ROOT = Path(__file__).resolve().parents[1]
SKIP_REASON = (
    f"no SARIF schema: set {ENV}, provide ../shared/schemas, or run the network test "
    "tests/functional/test_sarif_schema.py once (make test), which caches it"
)


def cached_path() -> Path:
    return Path(platformdirs.user_cache_dir("drift-audit-tests")) / NAME


def local_schema() -> Path | None:
    """The schema file already on this machine, if any (no network)."""
    candidates = [os.environ.get(ENV), REPO_ROOT.parent / "shared" / "schemas" / NAME]
    candidates.append(cached_path())
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def fetched_schema() -> Path:
    """The local schema, else the official one downloaded into the user cache (once: later
    runs find it there). Raises OSError when it cannot be downloaded, ValueError when what
    came back is not the SARIF 2.1.0 schema."""
    found = local_schema()
    if found is not None:
        return found
    with urllib.request.urlopen(URL, timeout=TIMEOUT) as response:
        data = response.read()
    _check(json.loads(data))
    target = cached_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False, suffix=".part") as part:
        part.write(data)
    Path(part.name).replace(target)  # whole or not at all
    return target


def _check(schema: Any) -> None:
    if not isinstance(schema, dict) or schema.get("id") != URL:
        raise ValueError(f"{URL} did not answer with the SARIF 2.1.0 schema")


def validator(path: Path) -> Any:
    """A validator of the schema's own draft (draft-04 for SARIF 2.1.0)."""
    schema = json.loads(path.read_text(encoding="utf-8"))
    _check(schema)
    return jsonschema.validators.validator_for(schema)(schema)


def errors(path: Path, document: Any) -> list[str]:
    """What in `document` does not fit the schema at `path`, first five, by location."""
    found = sorted(validator(path).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in found[:5]]
