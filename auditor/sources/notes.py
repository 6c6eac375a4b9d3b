# Maintainers: notes said once. A note that is the same on every run of one project (the
# baseline inferred, and why) is worth a line the first time, not on every pre-commit run.
#
# Owns: `notes/<sha1 of the note's key>` under the cache root, an empty file per note said
#       (the key: who the consumer is, which provider, which baseline, why; so a new
#       version of any of them is a new note). Through files.Confined only: nothing below
#       the cache root is followed, and the cache is untrusted (the worst a planted marker
#       does is hide a note that -v still shows).
# Takes: the cache root and a key. Gives: whether the note is new here. Every failure to
# read or write a marker means "new": the note is said again, never lost.
"""Notes said once per project and version, remembered in the cache folder."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from auditor.files import Confined

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

FOLDER = "notes"


def first_time(cache_root: Path, key: Sequence[str]) -> bool:
    """True when the note under `key` was not said before with this cache (and mark it
    said); False when it was."""
    name = f"{FOLDER}/{note_name(key)}"
    fs = Confined(cache_root)
    try:
        if fs.lstat(name) is not None:
            return False
        fs.write(name, b"")
    except OSError:
        return True
    return True


def note_name(key: Sequence[str]) -> str:
    """The marker's file name: the sha1 of the key's parts (40 hex digits)."""
    digest = hashlib.sha1(usedforsecurity=False)
    for part in key:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()
