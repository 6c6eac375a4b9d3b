"""The lookup memo: answers reused only while every file they depended on is unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from auditor.model import Lookup
from auditor.provider import MemoizedProvider, ProviderAPI, ResolutionMemo
from tests.helpers import DictTree

if TYPE_CHECKING:
    from pathlib import Path


V1 = {
    "acme/__init__.py": "from acme.core import run\n",
    "acme/core.py": "def run(a, b=1): ...\n",
    "acme/other.py": "def unrelated(): ...\n",
}


def provider(files: dict[str, str], memo: ResolutionMemo) -> MemoizedProvider:
    return MemoizedProvider(DictTree(files), ("acme",), "1", memo)


def test_a_repeat_is_answered_from_the_memo_without_parsing(tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    first = provider(V1, ResolutionMemo(memo_file))
    expected = first.resolve("acme.run")
    first.memo.save()
    again = provider(V1, ResolutionMemo(memo_file))
    assert again.resolve("acme.run") == expected
    assert again.modules_loaded == 0  # griffe never ran
    assert again.memo.hits == 1


def test_a_changed_dependency_invalidates_the_answer(tmp_path: Path) -> None:
    memo = ResolutionMemo(tmp_path / "memo.json")
    assert provider(V1, memo).resolve("acme.run").symbol is not None
    changed = {**V1, "acme/core.py": "def run(a): ...\n"}
    fresh = provider(changed, memo)
    symbol = fresh.resolve("acme.run").symbol
    assert symbol is not None and str(symbol.signature) == "(a)"
    assert fresh.modules_loaded > 0


def test_releases_share_answers_when_the_files_read_are_the_same(tmp_path: Path) -> None:
    memo = ResolutionMemo(None)
    provider(V1, memo).resolve("acme.run")
    other_release = {**V1, "acme/other.py": "def unrelated(x): ...\n"}  # not read by the lookup
    second = provider(other_release, memo)
    assert second.resolve("acme.run").status is Lookup.FOUND
    assert second.modules_loaded == 0


def test_memoized_answers_equal_direct_ones(tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    paths = ["acme.run", "acme.core.run", "acme.gone", "acme.core", "torch.x"]
    direct = ProviderAPI(DictTree(V1), ("acme",), "1")
    warm = provider(V1, ResolutionMemo(memo_file))
    for path in paths:
        warm.resolve(path)
    warm.memo.save()
    reread = provider(V1, ResolutionMemo(memo_file))
    assert [reread.resolve(p) for p in paths] == [direct.resolve(p) for p in paths]


def test_a_corrupt_memo_file_is_ignored(tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    memo_file.write_text("{not json")
    assert provider(V1, ResolutionMemo(memo_file)).resolve("acme.run").status is Lookup.FOUND
    memo_file.write_text(json.dumps({"format": 999, "entries": {}}))
    assert ResolutionMemo(memo_file).lookup("x", str) is None


def test_a_stored_answer_that_does_not_read_back_is_a_miss_and_is_replaced(
    tmp_path: Path,
) -> None:
    """Stored answers are read back only when a lookup gives one: one that does not fit
    (a hostile or damaged memo) is then forgotten, counted as a miss, and made again."""
    memo_file = tmp_path / "memo.json"
    direct = ProviderAPI(DictTree(V1), ("acme",), "1").resolve("acme.run")
    first = provider(V1, ResolutionMemo(memo_file))
    first.resolve("acme.run")
    first.memo.save()
    document = json.loads(memo_file.read_text())
    ((key, rows),) = ((k, r) for k, r in document["entries"].items() if k.startswith("acme.run|"))
    damages: list[dict[str, Any]] = [
        {"path": 1},
        {"symbol": {"kind": "no such kind"}},
        {"status": "gone"},
    ]
    for damage in damages:
        value = rows[0][1]
        rows[0][1] = {**value, **damage}
        if "symbol" in damage:
            rows[0][1]["symbol"] = {**value["symbol"], **damage["symbol"]}
        memo_file.write_text(json.dumps(document))
        again = provider(V1, ResolutionMemo(memo_file))
        assert again.resolve("acme.run") == direct
        assert (again.memo.hits, again.memo.misses) == (0, 1), damage
        assert again.modules_loaded > 0  # made again by griffe
        again.memo.save()
        fixed = provider(V1, ResolutionMemo(memo_file))
        assert fixed.resolve("acme.run") == direct and fixed.memo.hits == 1
        document = json.loads(memo_file.read_text())
        rows = document["entries"][key]


def test_the_memo_module_does_not_import_griffe() -> None:
    code = "import auditor.provider, sys; print('griffe' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
