"""`drift-audit cache info|clear`: what the cache holds per release, and emptying it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from auditor.cli import _is_cache_command, main
from auditor.files import CACHEDIR_TAG, Confined
from auditor.sources.cachedir import CacheEntry, Owner, cache_usage, clear_cache

if TYPE_CHECKING:
    from pathlib import Path


KEY = "0123456789abcdef"  # an index's folder: trees/<index key>/<name>/


def _fill(root: Path) -> None:
    """One extracted release (acme 0.1) and one read by ranges (acme 0.2, two members), in a
    folder tagged as drift-audit tags the caches it makes."""
    Confined(root).write_tag()
    extracted = root / "trees" / KEY / "acme" / "0.1-aaaa"
    (extracted / "acme").mkdir(parents=True)
    (extracted / "acme" / "__init__.py").write_text("A = 1\n")
    (extracted / "release.json").write_text(json.dumps({"extra": {}}))
    ranged = root / "trees" / KEY / "acme" / "0.2-bbbb"
    ranged.mkdir()
    (ranged / "release.json").write_text(json.dumps({"extra": {"members": f"{KEY}/{'b' * 64}"}}))
    files = root / "members" / KEY / ("b" * 64) / "files" / "acme"
    files.mkdir(parents=True)
    (files / "__init__.py").write_text("B = 2\n")
    (files / "core.py").write_text("def run(): pass\n")
    (root / "members" / KEY / ("b" * 64) / "listing.json").write_text("{}")
    index = {"0.1": "0.1-aaaa", "0.2": "0.2-bbbb"}
    (root / "trees" / KEY / "acme" / "index.json").write_text(json.dumps(index))
    (root / "pages" / KEY).mkdir(parents=True)
    (root / "pages" / KEY / "acme.json").write_text("{}")


def test_usage_lists_each_release_with_how_it_was_read(tmp_path: Path) -> None:
    _fill(tmp_path)
    usage = cache_usage(tmp_path)
    assert usage.entries == (
        CacheEntry("acme", "0.1", "extracted", 1, 6 + len(json.dumps({"extra": {}}))),
        CacheEntry("acme", "0.2", "ranges", 2, 6 + 16),
    )
    assert (usage.pages, usage.local) == (1, 0)
    assert usage.size == sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())


def test_clear_empties_a_tagged_cache_and_keeps_it_a_cache(tmp_path: Path) -> None:
    _fill(tmp_path)
    (tmp_path / "later.txt").write_text("in a tagged folder, part of the cache")
    assert clear_cache(tmp_path).freed > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [CACHEDIR_TAG]
    assert cache_usage(tmp_path).entries == ()
    assert cache_usage(tmp_path).owned.owner is Owner.TAGGED
    never = clear_cache(tmp_path / "never-made")
    assert (never.freed, never.owned.owner) == (0, Owner.MISSING)


def test_cache_info_and_clear_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["cache", "info", "--cache-dir", str(tmp_path)])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"cache: {tmp_path}\n" in out
    assert "  acme 0.2: 2 members read by ranges" in out
    with pytest.raises(SystemExit):
        main(["cache", "clear", "--cache-dir", str(tmp_path)])
    assert capsys.readouterr().out.startswith(f"cleared {tmp_path} (")
    assert not (tmp_path / "trees").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["cache", "info"], True),
        (["cache", "clear", "--cache-dir", "x"], True),
        (["cache"], True),
        (["cache", "--against", "vllm==0.17.0"], False),  # a consumer folder named cache
        (["speculators", "--against", "vllm"], False),
        ([], False),
    ],
)
def test_only_cache_info_or_clear_is_the_cache_command(args: list[str], expected: bool) -> None:
    assert _is_cache_command(args) is expected
