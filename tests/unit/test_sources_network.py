"""One real round trip to the configured package index (skipped with -m 'not network')."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from auditor.sources import open_index

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.network
def test_a_small_pure_python_release_comes_from_the_configured_index(tmp_path: Path) -> None:
    index = open_index(cache_dir=tmp_path)
    [release] = index.releases("six==1.16.0")
    index.close()  # kept-alive connections to the index
    assert (release.name, release.version, release.import_names) == ("six", "1.16.0", ("six",))
    assert list(release.tree.walk()) == ["six.py"]
    assert '__version__ = "1.16.0"' in (release.tree.read_text("six.py") or "")
    assert index.bytes_fetched > 0
    again = open_index(cache_dir=tmp_path)
    again.releases("six==1.16.0")
    again.close()
    assert again.bytes_fetched == 0
