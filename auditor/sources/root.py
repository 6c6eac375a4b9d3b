# Maintainers: where the cache is, and nothing else, so that finding it costs no import of
# the cache's machinery (a replayed run, replay.py, opens only its own entry there).
"""The cache folder's location."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "DRIFT_AUDIT_CACHE_DIR"


def cache_root(cache_dir: str | Path | None = None) -> Path:
    """The cache folder: the argument, else $DRIFT_AUDIT_CACHE_DIR, else the user cache dir."""
    chosen = cache_dir or os.environ.get(CACHE_ENV)
    if not chosen:
        import platformdirs

        chosen = platformdirs.user_cache_dir("drift-audit")
    return Path(chosen).expanduser()
