"""sources/cachedir.py: whose a folder is before `cache clear` deletes anything in it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from auditor.errors import FetchError, NotACacheError
from auditor.files import CACHEDIR_TAG, CACHEDIR_TAG_TEXT, Confined
from auditor.sources.cachedir import Owner, clear_cache, ownership

if TYPE_CHECKING:
    from pathlib import Path

HEX16, HEX32, HEX64 = "0123456789abcdef", "ab" * 16, "cd" * 32
OLDER = [  # what drift-audit releases, this one and older ones, leave at the top of a cache
    f"trees/{HEX16}/acme/index.json",
    "trees/acme/index.json",
    f"pages/{HEX16}/acme.json",
    f"members/{HEX16}/{HEX64}/listing.json",
    f"members/{HEX64}/listing.json",
    f"members/cd-{HEX64}/listing.json",
    f"local/{HEX16}/release.json",
    f"resolutions/{HEX16}/acme.json",
    f"chains/{HEX32}.json",
    f"chains/.{HEX32}.json.a1b2c3d4e5f6.tmp",
    "chains/tmpab_cd123.tmp",
    f"tmp/{HEX16}/download",
    f"tmp/damaged-{HEX16}/tree",
    "tmp/tmpq2w_e4r5/x",
]


def make(root: Path, rels: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}")
    return root


def test_every_name_drift_audit_makes_is_an_older_cache(tmp_path: Path) -> None:
    assert ownership(Confined(make(tmp_path / "c", OLDER))).owner is Owner.LEGACY


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ("tmp/report.txt", "tmp/'report.txt' is not a name drift-audit makes there"),
        ("local/bin/tool", "local/'bin' is not a name drift-audit makes there"),
        ("chains/notes.json", "chains/'notes.json' is not a name drift-audit makes there"),
        ("resolutions/v1/x.json", "resolutions/'v1' is not a name drift-audit makes there"),
        ("src/a.py", "it holds 'src', which drift-audit does not make"),
    ],
)
def test_one_name_drift_audit_never_makes_is_not_a_cache(
    tmp_path: Path, extra: str, why: str
) -> None:
    owned = ownership(Confined(make(tmp_path / "c", [*OLDER, extra])))
    assert (owned.owner, owned.why) == (Owner.FOREIGN, f"no {CACHEDIR_TAG}, and {why}")


def test_a_tag_that_is_a_link_is_no_tag(tmp_path: Path) -> None:
    """A link to a real drift-audit tag elsewhere does not make a folder drift-audit's."""
    real = make(tmp_path / "real", [])
    Confined(real).write_tag()
    home = make(tmp_path / "home", [".bashrc"])
    (home / CACHEDIR_TAG).symlink_to(real / CACHEDIR_TAG)
    owned = ownership(Confined(home))
    assert (owned.owner, owned.why) == (Owner.FOREIGN, f"its {CACHEDIR_TAG} is not drift-audit's")
    with pytest.raises(NotACacheError, match="refusing to clear"):
        clear_cache(home)
    assert (home / ".bashrc").exists()


def test_clear_removes_fifos_and_stops_at_a_name_it_cannot_address(tmp_path: Path) -> None:
    cache = make(tmp_path / "cache", ["trees/x", "a\\b"])
    (cache / CACHEDIR_TAG).write_text(CACHEDIR_TAG_TEXT)
    os.mkfifo(cache / "fifo")  # removed, never opened (which would block)
    with pytest.raises(FetchError, match=r"cannot clear 'a\\\\b' from the cache"):
        clear_cache(cache)
    assert sorted(p.name for p in cache.iterdir()) == [CACHEDIR_TAG, "a\\b"]
